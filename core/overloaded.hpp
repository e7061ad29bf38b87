#pragma once
/// Overloaded{lambda...}: the visitor for std::visit with one lambda per alternative. With one
/// lambda per model kind and no generic one, adding a kind to Topology is a compile error at every
/// visit until it is handled, never a silent default.

namespace phasecheck {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace phasecheck
