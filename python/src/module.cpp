// phasecheck._native: the libraries' API for Python (docs/python.md). The package phasecheck
// (python/phasecheck/__init__.py) re-exports it with the pure-Python parts (the pytest plugin,
// fuzz's result). Bad input from Python or from a file raises phasecheck.InputError, a
// ValueError, with the message `phasecheck` prints before exit 2.

#include "core/error.hpp"
#include "core/escape.hpp"
#include "python/src/native.hpp"

PYBIND11_MODULE(_native, m) {
  namespace py = pybind11;
  using namespace phasecheck::python;
  m.doc() = "phasecheck's libraries, bound for Python (docs/python.md)";
  // The message as the command line prints it before exit 2: through text_escape, so that what
  // a file put in it stays inert and it is always valid text.
  static py::exception<phasecheck::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const phasecheck::InputError& e) {
      PyErr_SetString(input_error.ptr(),
                      phasecheck::text_escape(e.what(), phasecheck::Newlines::keep).c_str());
    }
  });
  bind_limits(m);
  bind_topology(m);
  bind_schedule(m);
  bind_report(m);
  bind_algorithms(m);
  bind_verify(m);
  bind_fuzz(m);
  bind_gate(m);
}
