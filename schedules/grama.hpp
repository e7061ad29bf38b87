#pragma once
/// The textbook all-to-all personalized algorithms of Grama, Gupta, Karypis and Kumar,
/// "Introduction to Parallel Computing", Section 4.5: ring, mesh, hypercube. Three of them are
/// store-and-forward: transfers carry consolidated messages of many blocks, which the delivery
/// checker follows hop by hop. One file each: ring.cpp, mesh.cpp, hypercube_exchange.cpp,
/// hypercube_pairwise.cpp.

#include <span>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

struct RingOptions {
  Rank ranks = 1;
  Collective collective = Collective::alltoall;
  /// Half the clusters go each way round (the Section 4.5.1 remark): about half the steps and
  /// half the t_w term.
  bool bidirectional = false;
  /// collective and bidirectional (default false).
  static std::span<const ParameterSpec> parameters();
  static RingOptions from(const ScheduleHeader& header);
};
/// Section 4.5.1, Fig. 4.18: p - 1 steps, each node forwarding a consolidated message to its
/// neighbour that shrinks by one block per step (bidirectional: floor(p / 2) steps).
void ring(const RingOptions& options, const PhaseSink& out);
Claims ring_claims(const RingOptions& options);

struct MeshOptions {
  std::uint32_t rows = 1, cols = 1;
  bool wraparound = false;
  Collective collective = Collective::alltoall;
  /// collective only: the shape is the machine's.
  static std::span<const ParameterSpec> parameters();
  /// The shape comes from a mesh topology; any other machine needs a square number of ranks.
  static MeshOptions from(const ScheduleHeader& header);
};
/// Section 4.5.2, Fig. 4.19: a row phase (clusters by destination column), then a column phase
/// (clusters by destination row), each the ring algorithm along the lines (on a mesh without
/// wraparound, the linear-array variant: each cluster travels toward its target).
void mesh(const MeshOptions& options, const PhaseSink& out);
Claims mesh_claims(const MeshOptions& options);

struct HypercubeOptions {
  unsigned dimension = 0;
  Collective collective = Collective::alltoall;
  /// collective only: the dimension is log p.
  static std::span<const ParameterSpec> parameters();
  /// p must be a power of two; the machine can be any (a what-if for non-hypercubes).
  static HypercubeOptions from(const ScheduleHeader& header, std::string_view algorithm);
};
/// Section 4.5.3, Fig. 4.20: log p steps; in step k nodes exchange, across dimension k, the p/2
/// blocks whose destination differs from them in bit k.
void hypercube_exchange(const HypercubeOptions& options, const PhaseSink& out);
Claims hypercube_exchange_claims(const HypercubeOptions& options);

/// Section 4.5.3, Algorithm 4.10: p - 1 steps; in step j node i exchanges M_{i, i xor j} directly.
/// With e-cube routing no link carries two messages in a step.
void hypercube_pairwise(const HypercubeOptions& options, const DirectSink& out,
                        PhaseRange range = {});
Claims hypercube_pairwise_claims(const HypercubeOptions& options);

}  // namespace phasecheck::schedules
