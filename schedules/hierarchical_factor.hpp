#pragma once
/// The clustered, hierarchical factor algorithm (Sanders & Träff, Section 3, Fig. 2), with its
/// loop invariant and Theorem 1's step count. See hierarchical_factor.cpp.

#include <span>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

struct HierarchicalFactorOptions {
  Cluster cluster = Cluster({1});
  Collective collective = Collective::alltoall;
  /// The paper's implementation remark: when |A| is even, put all self-loops in one factor, and
  /// move the steps without inter-node communication to the end of the schedule.
  bool compact = false;

  /// collective and compact (default false).
  static std::span<const ParameterSpec> parameters();
  /// Reads parameters(); the topology must be a cluster.
  static HierarchicalFactorOptions from(const ScheduleHeader& header);
};

/// Emits one table phase per step of ClusteredAllToAll, labelled "phase P, round i, step s"
/// (P from 1 as in Fig. 3; i the factor index; s from 1 within the round); the last step of each
/// of the algorithm's phases adds ", end of phase P". Local copies take no step.
void hierarchical_factor(const HierarchicalFactorOptions& options, const PhaseSink& out);

/// The loop invariant of Fig. 2, checked at every "end of phase" boundary, and Theorem 1:
/// between max size x (p - 1) and max size x p steps.
Claims hierarchical_factor_claims(const HierarchicalFactorOptions& options);

/// A step of the kind the proof of Theorem 1 calls inefficient: a node paired with itself sends
/// while two nodes of maximal size exchange.
bool inefficient_step(const Cluster& cluster, const Phase& step);

}  // namespace phasecheck::schedules
