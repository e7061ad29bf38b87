#include "python/src/interrupt.hpp"

#include <pybind11/pybind11.h>

namespace phasecheck::python {

void Checkpoint::operator()() {
  const auto now = std::chrono::steady_clock::now();
  if (now < next_) return;
  next_ = now + std::chrono::milliseconds(50);
  pybind11::gil_scoped_acquire gil;
  // Runs the handlers of signals that arrived (only on the main thread: elsewhere it returns 0);
  // SIGINT's default handler raises KeyboardInterrupt.
  if (PyErr_CheckSignals() != 0) throw pybind11::error_already_set();
}

}  // namespace phasecheck::python
