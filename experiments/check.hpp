#pragma once
/// `phasecheck check ALG --topology T`: a registered algorithm generated and verified in one
/// pass. Its phases go from the generator straight into the streaming verifier and are dropped,
/// so what stays in memory is the checkers' state, never the schedule: the same report as
/// `generate | verify`, without the p^2 messages on disk or in a document (issue 23's first
/// step; tests/experiments/test_check.cpp compares the two on every algorithm and example).

#include "core/parameters.hpp"
#include "core/topology.hpp"
#include "schedules/registry.hpp"
#include "verify/report.hpp"

namespace phasecheck::experiments {

/// Throws InputError when the parameters or the machine do not fit the algorithm (naming the
/// parameter and its range, as `generate` does), before any phase is made.
verify::Report check_algorithm(const schedules::Algorithm& algorithm, const Topology& model,
                               Parameters parameters);

}  // namespace phasecheck::experiments
