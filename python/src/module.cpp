// phasecheck._native: the libraries' API for Python (docs/python.md). The package phasecheck
// (python/phasecheck/__init__.py) re-exports it with the pure-Python parts (the pytest plugin,
// fuzz's result). Bad input from Python or from a file raises phasecheck.InputError, a
// ValueError, with the message `phasecheck` prints before exit 2.

#include "core/error.hpp"
#include "python/src/native.hpp"

PYBIND11_MODULE(_native, m) {
  namespace py = pybind11;
  using namespace phasecheck::python;
  m.doc() = "phasecheck's libraries, bound for Python (docs/python.md)";
  py::register_exception<phasecheck::InputError>(m, "InputError", PyExc_ValueError);
  bind_limits(m);
  bind_topology(m);
  bind_schedule(m);
  bind_report(m);
  bind_algorithms(m);
  bind_verify(m);
  bind_fuzz(m);
  bind_gate(m);
}
