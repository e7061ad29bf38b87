#pragma once
// The C++ values behind the module's Python classes that are not the libraries' own types.

#include <pybind11/pybind11.h>

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

/// Marks a Schedule as read with the GIL released (verify, draw, save): add_phase and the other
/// changes refuse it meanwhile (busy), so another Python thread cannot reallocate its phases
/// under the reader. Made and destroyed with the GIL held (before gil_scoped_release, whose
/// destructor takes the GIL back first).
class ReadingSchedule {
 public:
  explicit ReadingSchedule(const Schedule& schedule);
  ~ReadingSchedule();
  ReadingSchedule(const ReadingSchedule&) = delete;
  ReadingSchedule& operator=(const ReadingSchedule&) = delete;
  /// InputError naming `what` when `schedule` is being read.
  static void refuse_change(const Schedule& schedule, const std::string& what);

 private:
  const Schedule& schedule_;
};

/// Text made by the libraries (a report, a message naming a file) as a Python str: UTF-8, each
/// ill-formed byte replaced, never a UnicodeDecodeError.
py::str python_text(const std::string& text);

/// Raises phasecheck.CheckFailed carrying `report` (the exception's `report` attribute), its
/// message `message` followed by the report's text.
[[noreturn]] void raise_check_failed(const PyReport& report, const std::string& message);

}  // namespace phasecheck::python
