#pragma once
/// The direct algorithms of the foundation: every message m_od (or, for allgather, rank o's block
/// to rank d) is sent once, straight from o to d. They differ only in which messages share a
/// phase. One file each: factor.cpp, shift.cpp, pairwise_xor.cpp, linear.cpp; their one parameter
/// in direct.cpp. All but linear emit direct phases (permutation_phases.hpp); linear's one phase
/// of p (p - 1) transfers is a Phase, charged as it grows.

#include <span>

#include "core/invariant.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

struct DirectOptions {
  Rank ranks = 1;
  Collective collective = Collective::alltoall;
  /// The one parameter these algorithms take: collective=alltoall|allgather.
  static std::span<const ParameterSpec> parameters();
  /// Checks the header's parameters against parameters(); the machine matters only for its rank
  /// count. Throws InputError naming an unknown parameter.
  static DirectOptions from(const ScheduleHeader& header, std::string_view algorithm);
};

/// Sanders–Träff Section 2: p rounds over the 1-factors of the complete graph with self-loops.
void factor(const DirectOptions& options, const DirectSink& out, PhaseRange range = {});
std::vector<Invariant> factor_invariants(const DirectOptions& options);

/// MPICH's order: in step j rank i sends to (i + j) mod p. p steps, step 0 the local copy.
void shift(const DirectOptions& options, const DirectSink& out, PhaseRange range = {});
std::vector<Invariant> shift_invariants(const DirectOptions& options);

/// Pairwise exchange: in step j ranks i and i xor j swap. p steps; p must be a power of two.
void pairwise_xor(const DirectOptions& options, const DirectSink& out, PhaseRange range = {});
std::vector<Invariant> pairwise_xor_invariants(const DirectOptions& options);

/// LAM's basic linear algorithm: every rank posts every send at once, a single phase.
void linear(const DirectOptions& options, const PhaseSink& out);

/// An invariant for a direct schedule whose phase t delivers the message from every rank i to
/// partner(t, i): after phase t, each of those messages has been delivered. Because delivery is
/// monotone, checking phase t's partners after phase t establishes "every message of phases
/// 0..t has been delivered" at every boundary, in O(p) per phase.
template <class Partner>
Invariant partners_delivered(std::string name, Rank ranks, Partner partner) {
  return {std::move(name), [ranks, partner](const Boundary& at, const DataView& state) -> Finding {
            bool applies = false;  // some partner is within the algorithm's own phases
            for (Rank i = 0; i < ranks; ++i) {
              const Rank j = partner(static_cast<Rank>(at.phase), i);
              if (j >= ranks)
                continue;  // a phase beyond the algorithm's own; the phase claim reports it
              applies = true;
              if (!state.delivered(i, j))
                return Finding::broken("the message from rank " + std::to_string(i) + " to rank " +
                                       std::to_string(j) + " has not been delivered");
            }
            return applies ? Finding::holds() : Finding::not_applicable();
          }};
}

}  // namespace phasecheck::schedules
