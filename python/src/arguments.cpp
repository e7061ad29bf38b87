#include "python/src/arguments.hpp"

#include "core/error.hpp"

namespace phasecheck::python {

std::string text_of(py::handle object) {
  const py::str text(object);
  const auto bytes = py::reinterpret_steal<py::bytes>(
      PyUnicode_AsEncodedString(text.ptr(), "utf-8", "backslashreplace"));
  if (!bytes) throw py::error_already_set();
  return bytes.cast<std::string>();
}

std::string read_text(const py::handle& object, const std::string& argument) {
  if (!py::isinstance<py::str>(object))
    throw InputError(argument + ": a str is needed, not " + type_name(object));
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(object.ptr(), &size);
  if (!utf8) {  // a lone surrogate has no UTF-8
    PyErr_Clear();
    throw InputError(argument + ": the str is not valid Unicode text (a lone surrogate)");
  }
  return std::string(utf8, static_cast<std::size_t>(size));
}

bool read_flag(const py::handle& object, const std::string& argument) {
  if (PyBool_Check(object.ptr())) return object.ptr() == Py_True;
  if (py::isinstance(object, py::module_::import("numpy").attr("bool_")))
    return PyObject_IsTrue(object.ptr()) == 1;
  throw InputError(argument + ": True or False is needed, not " + type_name(object));
}

std::vector<std::string> read_texts(const py::handle& object, const std::string& argument) {
  if (!py::isinstance<py::list>(object) && !py::isinstance<py::tuple>(object))
    throw InputError(argument + ": a list of str is needed, not " + type_name(object));
  std::vector<std::string> out;
  std::size_t i = 0;
  for (const py::handle item : object)
    out.push_back(read_text(item, argument + "[" + std::to_string(i++) + "]"));
  return out;
}

std::string path_of(const py::handle& object, const std::string& argument) {
  if (!py::isinstance<py::str>(object) && !py::isinstance<py::bytes>(object) &&
      !py::hasattr(object, "__fspath__"))
    throw InputError(argument + ": a path (str, bytes or os.PathLike) is needed, not " +
                     type_name(object));
  // The file system's bytes, as the command line gets them (a name that is not UTF-8 included).
  const std::string path = py::module_::import("os").attr("fsencode")(object).cast<std::string>();
  if (path.find('\0') != std::string::npos)
    throw InputError(argument + ": the path holds a NUL character");
  if (path == "-")
    throw InputError(argument + ": '-' is the command line's standard input or output; name a "
                                "file ('./-' for one called '-')");
  return path;
}

}  // namespace phasecheck::python
