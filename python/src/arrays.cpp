#include "python/src/arrays.hpp"

#include <sstream>

namespace phasecheck::python {

bool is_array(const py::handle& object) { return py::isinstance<py::array>(object); }

std::uint64_t read_count(const py::handle& object, const std::string& where, std::uint64_t max) {
  // bool is an int in Python; a True where a rank belongs is a mistake, not a 1.
  if (PyBool_Check(object.ptr()) || !PyIndex_Check(object.ptr()))
    throw InputError(where + ": " + type_name(object) +
                     " is not an integer");
  const py::int_ value = py::reinterpret_steal<py::int_>(PyNumber_Index(object.ptr()));
  if (!value) throw py::error_already_set();
  int overflow = 0;
  const long long signed_value = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
  if (overflow < 0 || (overflow == 0 && signed_value < 0))
    throw InputError(where + ": " + text_of(value) + " is negative");
  std::uint64_t unsigned_value = static_cast<std::uint64_t>(signed_value);
  if (overflow > 0) {  // at least 2^63: up to 2^64 - 1 still fits
    unsigned_value = PyLong_AsUnsignedLongLong(value.ptr());
    if (unsigned_value == static_cast<std::uint64_t>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      throw InputError(where + ": " + text_of(value) + " is above " + std::to_string(max));
    }
  }
  if (unsigned_value > max)
    throw InputError(where + ": " + text_of(value) + " is above " + std::to_string(max));
  return unsigned_value;
}

IntMatrix::IntMatrix(const py::array& array, std::string argument, std::size_t columns)
    : array_(array), argument_(std::move(argument)) {
  const py::dtype dtype = array.dtype();
  kind_ = dtype.kind();
  item_size_ = static_cast<std::size_t>(dtype.itemsize());
  // '=' native, '|' not applicable, '<' or '>' explicit (the other order is swapped when read).
  const char order = dtype.attr("byteorder").cast<std::string>().front();
  swapped_ = (order == '>' && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) ||
             (order == '<' && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
  if (kind_ != 'i' && kind_ != 'u')
    throw InputError(argument_ + ": dtype " + text_of(dtype) +
                     " is not an integer type (use int32, int64, uint32, ...)");
  const auto shape = [&] {
    std::ostringstream s;
    s << "(";
    for (py::ssize_t i = 0; i < array.ndim(); ++i) s << (i ? ", " : "") << array.shape(i);
    s << (array.ndim() == 1 ? ",)" : ")");
    return s.str();
  };
  if (columns == 0) {
    if (array.ndim() != 1)
      throw InputError(argument_ + ": shape " + shape() + " is not a vector (n,)");
    rows_ = static_cast<std::size_t>(array.shape(0));
    row_stride_ = array.strides(0);
  } else {
    if (array.ndim() != 2 || static_cast<std::size_t>(array.shape(1)) != columns)
      throw InputError(argument_ + ": shape " + shape() + " is not (n, " +
                       std::to_string(columns) + ")");
    rows_ = static_cast<std::size_t>(array.shape(0));
    columns_ = columns;
    matrix_ = true;
    row_stride_ = array.strides(0);
    column_stride_ = array.strides(1);
  }
  data_ = static_cast<const char*>(array.data());
}

std::string IntMatrix::place(std::size_t row, std::size_t column) const {
  return argument_ + "[" + std::to_string(row) +
         (matrix_ ? ", " + std::to_string(column) : "") + "]";
}

void IntMatrix::refuse_negative(std::size_t row, std::size_t column, std::int64_t value) const {
  throw InputError(place(row, column) + ": " + std::to_string(value) + " is negative");
}

void IntMatrix::refuse_above(std::size_t row, std::size_t column, std::uint64_t value,
                             std::uint64_t max) const {
  throw InputError(place(row, column) + ": " + std::to_string(value) + " is above " +
                   std::to_string(max) + limit_);
}

std::uint64_t IntMatrix::at(std::size_t row, std::size_t column, std::uint64_t max) const {
  std::uint64_t out = 0;
  dispatch([&](auto tag) { out = element<decltype(tag)>(row, column, max); });
  return out;
}

}  // namespace phasecheck::python
