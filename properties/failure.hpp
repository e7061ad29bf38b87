#pragma once
/// A fuzzing campaign's smallest failing case, written out for a person to replay: the machine's
/// topology.json, the schedule.json made on it (when one was), the report.txt of its verification.
/// Both drivers (fuzz.hpp over rapidcheck, function_fuzz.hpp in process) record failures here.

#include <optional>
#include <string>

#include "core/schedule.hpp"
#include "properties/fuzz.hpp"

namespace phasecheck::properties {

/// A failing case as found: after shrinking, the smallest.
struct FoundFailure {
  Topology topology = FullyConnected(1, 1);
  std::optional<Schedule> schedule;
  std::string what;    ///< "shift: contention: ..."
  std::string report;  ///< the verifier's report of the case, rendered
};

/// Writes the failure's files into `dir` ("": none are written) and returns what the reports say
/// of it; `again` is the call that finds it again.
FuzzFailure record_failure(const FoundFailure& f, const std::string& dir, const std::string& again);

}  // namespace phasecheck::properties
