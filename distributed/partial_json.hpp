#pragma once
/// The wire format of verify::Verifier::Partial and RangeFindings between MPI processes: JSON text
/// (nlohmann), so that a counterexample crosses with every field a report prints. Internal to one
/// run of one build (both ends are the same program), so unversioned.

#include <string>

#include "verify/verifier.hpp"

namespace phasecheck::distributed {

std::string to_wire(const verify::Verifier::Partial& partial);
/// Throws std::runtime_error on text to_wire did not write.
verify::Verifier::Partial from_wire(const std::string& text);

std::string to_wire(const verify::Verifier::RangeFindings& findings);
/// Throws std::runtime_error on text to_wire did not write.
verify::Verifier::RangeFindings range_findings_from_wire(const std::string& text);

}  // namespace phasecheck::distributed
