#pragma once
// Integers from Python, checked where they come in (python/src/arguments.hpp has the other
// arguments): a NumPy array of an integer dtype read where
// it lies (any strides, no copy), or a Python int. Every refusal is phasecheck::InputError
// (Python's phasecheck.InputError, a ValueError) naming the argument and the index:
// "add_phase: transfers[17, 1]: -3 is negative", "transfers: dtype float64 is not an integer
// type", "transfers: shape (5, 4) is not (n, 2)".

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "python/src/arguments.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/error.hpp"

namespace phasecheck::python {

namespace py = pybind11;

/// `bits` with its bytes reversed (an array of the other byte order).
template <class U>
U byteswap(U bits) {
  if constexpr (sizeof(U) == 2) return __builtin_bswap16(bits);
  else if constexpr (sizeof(U) == 4) return __builtin_bswap32(bits);
  else return __builtin_bswap64(bits);
}

/// Whether `object` is a NumPy array (then it is read as one, never element by element).
bool is_array(const py::handle& object);

/// The non-negative integer `object` at most `max`: InputError naming `where` for another type
/// (bool included), a negative value or one above `max`.
std::uint64_t read_count(const py::handle& object, const std::string& where, std::uint64_t max);

/// A NumPy array of integers seen as a matrix of `rows()` x `columns()` (a vector is one
/// column). Refuses another dtype, another number of dimensions or columns, naming `argument`.
class IntMatrix {
 public:
  /// `columns`: the columns required (0: a vector is required).
  IntMatrix(const py::array& array, std::string argument, std::size_t columns);

  std::size_t rows() const { return rows_; }
  /// The element at (row, column), checked non-negative and at most `max` (InputError naming the
  /// argument and the index otherwise).
  std::uint64_t at(std::size_t row, std::size_t column, std::uint64_t max) const;
  /// Calls visit(row, column, value) for every element, row by row, after the same checks; one
  /// dispatch on the dtype for the whole array.
  template <class Visit>
  void for_each(std::uint64_t max, Visit&& visit) const;
  const std::string& argument() const { return argument_; }
  /// Words after "is above MAX" in a refusal: " (the last rank)".
  void describe_limit(std::string text) { limit_ = std::move(text); }

 private:
  template <class T>
  std::uint64_t element(std::size_t row, std::size_t column, std::uint64_t max) const;
  template <class Visit>
  void dispatch(Visit&& typed) const;
  std::string place(std::size_t row, std::size_t column) const;
  [[noreturn]] void refuse_negative(std::size_t row, std::size_t column, std::int64_t value) const;
  [[noreturn]] void refuse_above(std::size_t row, std::size_t column, std::uint64_t value,
                                 std::uint64_t max) const;

  py::array array_;  // kept alive while read
  std::string argument_;
  std::string limit_;
  const char* data_ = nullptr;
  std::size_t rows_ = 0, columns_ = 1;
  bool matrix_ = false;   // (n, k): places name row and column
  bool swapped_ = false;  // the array's byte order is not the machine's: read by value
  py::ssize_t row_stride_ = 0, column_stride_ = 0;
  char kind_ = 'i';
  std::size_t item_size_ = 8;
};

template <class T>
std::uint64_t IntMatrix::element(std::size_t row, std::size_t column, std::uint64_t max) const {
  std::make_unsigned_t<T> bits;
  __builtin_memcpy(&bits,
                   data_ + static_cast<py::ssize_t>(row) * row_stride_ +
                       static_cast<py::ssize_t>(column) * column_stride_,
                   sizeof(T));
  if constexpr (sizeof(T) > 1)
    if (swapped_) bits = byteswap(bits);
  const T value = static_cast<T>(bits);
  if constexpr (std::is_signed_v<T>)
    if (value < 0) refuse_negative(row, column, value);
  if (static_cast<std::uint64_t>(value) > max)
    refuse_above(row, column, static_cast<std::uint64_t>(value), max);
  return static_cast<std::uint64_t>(value);
}

/// Calls typed(T{}) with the array's element type.
template <class Visit>
void IntMatrix::dispatch(Visit&& typed) const {
  switch (kind_ == 'i' ? -static_cast<int>(item_size_) : static_cast<int>(item_size_)) {
    case -1: return typed(std::int8_t{});
    case -2: return typed(std::int16_t{});
    case -4: return typed(std::int32_t{});
    case -8: return typed(std::int64_t{});
    case 1: return typed(std::uint8_t{});
    case 2: return typed(std::uint16_t{});
    case 4: return typed(std::uint32_t{});
    case 8: return typed(std::uint64_t{});
    default: throw InputError(argument_ + ": an integer dtype of an unexpected size");
  }
}

template <class Visit>
void IntMatrix::for_each(std::uint64_t max, Visit&& visit) const {
  dispatch([&](auto tag) {
    using T = decltype(tag);
    for (std::size_t r = 0; r < rows_; ++r)
      for (std::size_t c = 0; c < columns_; ++c) visit(r, c, element<T>(r, c, max));
  });
}

}  // namespace phasecheck::python
