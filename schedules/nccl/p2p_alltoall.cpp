// nccl-p2p-alltoall: NCCL has no alltoall kernel; an alltoall is ncclGroupStart, ncclSend and
// ncclRecv to every peer, ncclGroupEnd (as nccl-tests' alltoall and RCCL's ncclAllToAll do). The
// planner (src/enqueue.cc, scheduleP2pTasksToPlan) walks p2pSchedule: in round t every rank sends
// to p2pSchedule[t].sendRank and receives from p2pSchedule[t].recvRank, so the rounds are the
// phases here, round 0 the self copy. The order of peers is ncclP2pSchedule's (src/init.cc;
// p2p_schedule.hpp): NCCL 2.30.7 (commit 5067397c) by default, whose walk over groups of
// P2P_SCHEDULE_GROUP_SIZE came with 2.28.7, or with version=2.22.3 the walk over nodes of 2.22.3
// to 2.28.3. Every round is a permutation, so p phases and one port suffice; how NCCL spreads a
// round over channels and batches (8 p2p ops a batch) is not modelled.

#include "schedules/nccl/p2p_alltoall.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/direct.hpp"
#include "schedules/nccl/rows.hpp"

namespace phasecheck::schedules::nccl {
namespace {

constexpr std::string_view kVersions[] = {"2.28.7", "2.22.3"};

constexpr ParameterSpec kParameters[] = {
    kAlltoallCollective,
    {"gpus_per_node", UInt{1, RankCount{}},
     InWords{"the machine's nodes (cluster, gpu-cluster), else p: one node (xgmi, dgx1, ...)"},
     "ranks per node, numbered node by node; a last node may hold fewer"},
    {"group_size", UInt{1, 1024}, Fixed{"8"},
     "NCCL_P2P_SCHEDULE_GROUP_SIZE (default NCCL_MAX_DEV_WORK_P2P_PER_BATCH = 8)"},
    {"version", Choice{kVersions}, Fixed{"2.28.7"},
     "2.28.7 (to 2.30.7): quadratic walk over groups; 2.22.3 (to 2.28.3): over nodes"},
};

/// The nodes of the machine: a cluster's; a GPU graph's routers with GPUs when a router holds
/// several (gpu-cluster: a router per node), else one node (xgmi, dgx1: a router per GPU of one
/// box).
std::vector<Rank> machine_nodes(const Topology& t) {
  if (const auto* c = std::get_if<Cluster>(&t)) return c->node_sizes();
  std::vector<Rank> nodes;
  const auto* g = std::get_if<Graph>(&t);
  if (g && std::any_of(g->hosts().begin(), g->hosts().end(), [](Rank n) { return n > 1; }))
    for (const Rank hosts : g->hosts())
      if (hosts > 0) nodes.push_back(hosts);
  if (nodes.empty()) nodes.push_back(ranks(t));
  return nodes;
}

}  // namespace

std::span<const ParameterSpec> P2pAlltoallOptions::parameters() { return kParameters; }

P2pAlltoallOptions P2pAlltoallOptions::from(const ScheduleHeader& header) {
  const Rank p = header.ranks();
  check_parameters(header.parameters, kParameters, p, "nccl-p2p-alltoall");
  if (header.collective != Collective::alltoall)
    throw InputError(
        "nccl-p2p-alltoall is NCCL's alltoall; NCCL's allgather is ring, PAT or NVLS "
        "(nccl-pat-allgather models PAT)");
  P2pAlltoallOptions o;
  if (header.parameters.has("gpus_per_node")) {
    const auto gpus = static_cast<Rank>(read_uint(header.parameters, kParameters[1], p, p));
    o.node_sizes.assign(p / gpus, gpus);
    if (p % gpus != 0) o.node_sizes.push_back(p % gpus);
  } else {
    o.node_sizes = machine_nodes(header.topology);
  }
  o.group_size = static_cast<Rank>(read_uint(header.parameters, kParameters[2], p));
  o.walk = read_choice(header.parameters, kParameters[3]) == kVersions[0] ? P2pWalk::groups
                                                                          : P2pWalk::nodes;
  return o;
}

void emit_p2p_alltoall(Rank ranks, const std::function<Rank(Rank, Rank)>& peer,
                       const PhaseSink& out) {
  Phase round;
  round.reserve(ranks, ranks);
  for (Rank t = 0; t < ranks; ++t) {
    round.clear();
    round.set_label("round " + std::to_string(t));
    for (Rank r = 0; r < ranks; ++r) {
      const Rank to = peer(t, r);
      round.add(r, to, Block{r, to});
    }
    out(round);
  }
}

Claims p2p_alltoall_claims(const P2pSchedule& schedule) {
  const Rank p = schedule.ranks();
  return {.invariants = {partners_delivered(
              "after round t every rank r has sent to p2pSchedule[t].sendRank", p,
              [schedule](Rank t, Rank r) {
                return t < schedule.ranks() ? schedule.send_peer(t, r) : kEveryRank;
              })},
          .phases = PhaseClaim::exactly(p, "p rounds of ncclP2pSchedule, round 0 the self copy")};
}

namespace {

P2pSchedule schedule_of(const ScheduleHeader& h) {
  const P2pAlltoallOptions o = P2pAlltoallOptions::from(h);
  return P2pSchedule(o.walk, o.node_sizes, o.group_size);
}

}  // namespace

Algorithm p2p_alltoall_row() {
  return {"nccl-p2p-alltoall",
          "grouped send/recv in NCCL's p2p schedule: p rounds, quadratic walk over groups",
          "NCCL 2.30.7 src/init.cc ncclP2pSchedule, src/enqueue.cc scheduleP2pTasksToPlan",
          kParameters,
          [](const ScheduleHeader& h, const PhaseSink& out) {
            const P2pSchedule s = schedule_of(h);
            emit_p2p_alltoall(
                s.ranks(), [&s](Rank t, Rank r) { return s.send_peer(t, r); }, out);
          },
          [](const ScheduleHeader& h) { return p2p_alltoall_claims(schedule_of(h)); },
          // Every phase is a permutation: one send and one receive per rank, so k >= 1 ports; a
          // single-ported node (Sanders-Traeff) would need a pairing.
          [](const ScheduleHeader&, const Topology& model) {
            return std::holds_alternative<FullyConnected>(model);
          }};
}

}  // namespace phasecheck::schedules::nccl
