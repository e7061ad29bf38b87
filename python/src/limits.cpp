// The limits of core/limits.hpp from Python: what the command line's --max-memory and
// --max-input-size set for one run, set here for the interpreter's process.

#include "core/limits.hpp"
#include "python/src/arrays.hpp"
#include "python/src/native.hpp"

namespace phasecheck::python {

void bind_limits(py::module_& m) {
  m.def("limits", [] {
    py::dict d;
    d["max_memory"] = limits().max_memory_bytes;
    d["max_input_size"] = limits().max_input_bytes;
    return d;
  }, "The memory and input-size limits in bytes (docs/limits.md)");
  m.def(
      "set_limits",
      [](const py::object& max_memory, const py::object& max_input_size) {
        Limits l = limits();
        if (!max_memory.is_none()) l.max_memory_bytes = read_count(max_memory, "max_memory", UINT64_MAX);
        if (!max_input_size.is_none())
          l.max_input_bytes = read_count(max_input_size, "max_input_size", UINT64_MAX);
        set_limits(l);
      },
      py::kw_only(), py::arg("max_memory") = py::none(), py::arg("max_input_size") = py::none(),
      "Sets the limits (bytes) for this process; None keeps one");
}

}  // namespace phasecheck::python
