#pragma once
// How a check from Python is spread: `threads` checking threads (0: the machine's cores, as the
// command line's default) in this one process, stopping at `checkpoint` (Ctrl-C).

#include <pybind11/pybind11.h>

#include "pipeline/check.hpp"
#include "python/src/interrupt.hpp"

namespace phasecheck::python {

/// InputError naming `threads` unless it is an integer in [0, 1024].
pipeline::Spread make_spread(const pybind11::handle& threads, Checkpoint& checkpoint);

}  // namespace phasecheck::python
