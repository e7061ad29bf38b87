#pragma once
// Arguments from Python other than integers and arrays (python/src/arrays.hpp): text, flags,
// lists of text and paths, each checked where it comes in. A wrong type or value is
// phasecheck::InputError (Python's phasecheck.InputError) naming the argument, never pybind11's
// TypeError.

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace phasecheck::python {

namespace py = pybind11;

/// str(object), for messages (a lone surrogate written as \udcff, never an error).
std::string text_of(py::handle object);

/// The name of `object`'s type, for messages ("int", "ndarray").
inline std::string type_name(const py::handle object) {
  return text_of(py::type::handle_of(object).attr("__name__"));
}

/// The str `object`: InputError naming `argument` for another type.
std::string read_text(const py::handle& object, const std::string& argument);
/// The bool `object` (True, False or a NumPy bool; 1 is not a flag): InputError naming `argument`
/// for another type.
bool read_flag(const py::handle& object, const std::string& argument);
/// A list or tuple of str (each named `argument[i]` when it is not one).
std::vector<std::string> read_texts(const py::handle& object, const std::string& argument);

/// The path `object` names (str, bytes or os.PathLike), as the file system's bytes
/// (os.fsencode: a name that is not UTF-8 included): InputError naming `argument` for another
/// type, a NUL inside, or "-" (the command line's standard input or output).
std::string path_of(const py::handle& object, const std::string& argument);

}  // namespace phasecheck::python
