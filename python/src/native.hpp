#pragma once
// The pieces of the native module `phasecheck._native` (docs/python.md): each binds one idea of
// the libraries' API; module.cpp calls them in order. Nothing here decides about schedules: the
// libraries do, as they do for the command line.

#include <pybind11/pybind11.h>

namespace phasecheck::python {

namespace py = pybind11;

void bind_limits(py::module_& m);      // limits.cpp: the memory and input-size limits
void bind_topology(py::module_& m);    // topology.cpp: machines built, loaded, saved
void bind_schedule(py::module_& m);    // schedule.cpp: schedules built in Python, load, save
void bind_report(py::module_& m);      // report.cpp: Report, checks, counterexamples
void bind_algorithms(py::module_& m);  // algorithms.cpp: the registry, generate, check
void bind_verify(py::module_& m);      // verify.cpp: verify and draw
void bind_fuzz(py::module_& m);        // fuzz.cpp: a Python generator fuzzed, shrunk
void bind_gate(py::module_& m);        // gate.cpp: a gate manifest, case by case

}  // namespace phasecheck::python
