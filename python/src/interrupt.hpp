#pragma once
// Long calls run with the GIL released and stop on Ctrl-C: the work calls a Checkpoint between
// phases, which looks at Python's signals at most every 50 ms (taking the GIL for that moment
// only) and throws the KeyboardInterrupt Python raised, which pybind11 hands back to Python.

#include <chrono>

namespace phasecheck::python {

class Checkpoint {
 public:
  /// Throws pybind11::error_already_set (KeyboardInterrupt, or what a signal handler raised)
  /// when a signal handler of Python's asked to stop. Call it with the GIL released.
  void operator()();

 private:
  std::chrono::steady_clock::time_point next_ = std::chrono::steady_clock::now();
};

}  // namespace phasecheck::python
