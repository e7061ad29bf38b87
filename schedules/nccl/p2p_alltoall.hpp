#pragma once
/// nccl-p2p-alltoall's options and its phase emitter, for the row and for tests that perturb it.

#include <functional>
#include <span>
#include <vector>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"
#include "schedules/nccl/p2p_schedule.hpp"

namespace phasecheck::schedules::nccl {

struct P2pAlltoallOptions {
  P2pWalk walk = P2pWalk::groups;
  std::vector<Rank> node_sizes;  ///< ranks per node, in rank order
  Rank group_size = 8;           ///< P2P_SCHEDULE_GROUP_SIZE

  static std::span<const ParameterSpec> parameters();
  /// Reads collective, gpus_per_node (default: the machine's nodes), group_size and version.
  /// InputError for anything but alltoall, naming what to use.
  static P2pAlltoallOptions from(const ScheduleHeader& header);
};

/// Round t: every rank r sends [r, peer(t, r)] to peer(t, r). `peer` is the schedule's
/// send_peer; a test hands in a perturbed one.
void emit_p2p_alltoall(Rank ranks, const std::function<Rank(Rank round, Rank rank)>& peer,
                       const PhaseSink& out);

/// p rounds; after round t every rank has received from its round-t peer.
Claims p2p_alltoall_claims(const P2pSchedule& schedule);

}  // namespace phasecheck::schedules::nccl
