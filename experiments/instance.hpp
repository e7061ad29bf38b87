#pragma once
/// One registered algorithm generated on one machine and verified against its own claims: the
/// unit of `survey` (every algorithm on a few machines) and `sweep` (one algorithm on every p).

#include <optional>
#include <string>

#include "core/parameters.hpp"
#include "core/topology.hpp"
#include "core/traffic.hpp"
#include "schedules/registry.hpp"
#include "verify/report.hpp"

namespace phasecheck::experiments {

struct Instance {
  /// Why the algorithm does not take this machine or these parameters (its InputError); then
  /// there is no report.
  std::optional<std::string> not_applicable;
  std::optional<verify::Report> report;
  /// Whether the algorithm claims contention-freedom on the machine: only then does contention
  /// break a claim (verify::Report::broken_claims).
  bool contention_free_claimed = false;
};

/// Generates `algorithm` with `parameters` on `model` and verifies it with its claims: its phase
/// table streamed into the verifier, or with `buffers` its buffer program, held whole (that is
/// how programs are made). An alltoallv algorithm takes its `traffic` (schedules::make_header).
/// An InputError of the generator is the instance's not_applicable.
Instance check_instance(const schedules::Algorithm& algorithm, const Topology& model,
                        const Parameters& parameters, bool buffers = false,
                        SharedTraffic traffic = {});

}  // namespace phasecheck::experiments
