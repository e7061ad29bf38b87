#pragma once
// The C++ values behind the module's Python classes that are not the libraries' own types.

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "core/schedule.hpp"
#include "core/topology.hpp"
#include "verify/report.hpp"

namespace phasecheck::python {

namespace py = pybind11;

/// phasecheck.Topology: a machine model. (Topology is a std::variant, which pybind11 would
/// otherwise convert to its alternatives.)
struct Machine {
  Topology topology;
};

/// phasecheck.Report: a verification report, the source it names ("<schedule>" for one held in
/// Python), and the schedule's header, for the pictures of its counterexample.
struct PyReport {
  verify::Report report;
  std::string source;
  ScheduleHeader header;
};

/// phasecheck.Check: one check of a report, with the collective its counterexample's blocks
/// belong to (for its text).
struct PyCheck {
  CheckResult result;
  Collective collective = Collective::alltoall;
};

/// The path `object` names (str or os.PathLike): InputError naming `argument` otherwise.
std::string path_of(const py::handle& object, const std::string& argument);

/// Raises phasecheck.CheckFailed carrying `report` (the exception's `report` attribute), its
/// message `message` followed by the report's text.
[[noreturn]] void raise_check_failed(const PyReport& report, const std::string& message);

}  // namespace phasecheck::python
