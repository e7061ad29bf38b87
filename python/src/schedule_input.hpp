#pragma once
// The header of a schedule made in Python (phasecheck.Schedule's arguments) and an alltoallv's
// traffic matrix given from Python, checked as a file's header is: InputError naming the argument.

#include <pybind11/pybind11.h>

#include <string>

#include "core/schedule.hpp"
#include "core/traffic.hpp"

namespace phasecheck::python {

namespace py = pybind11;

/// Schedule(ranks, collective, topology, algorithm=, buffers=, parts=, traffic=, inplace=): the
/// machine is `topology` (its ranks must equal `ranks` when both are given) or, without one,
/// `ranks` single-ported fully connected ranks. "alltoallv" is an alltoall with `traffic`.
/// `buffers` (a dict: chunks, input, output, scratch, inplace; missing sizes are the collective's
/// natural ones) makes a buffer program (format 3).
ScheduleHeader make_schedule_header(const py::object& ranks, const std::string& collective,
                                    const py::object& topology, const std::string& algorithm,
                                    const py::object& buffers, const py::object& parts,
                                    const py::object& traffic, bool inplace);

/// An alltoallv's matrix: a (p, p) NumPy integer array of element counts (row: sender), or a
/// traffic file's path (io/traffic.hpp); nothing for None. InputError naming the cell otherwise.
SharedTraffic read_traffic_argument(const py::object& traffic, Rank ranks);

}  // namespace phasecheck::python
