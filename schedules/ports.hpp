#pragma once
/// Whether a machine has the ports a schedule's phases need: the one test the rows that post
/// several messages per phase share (contention_free_on).

#include <algorithm>
#include <cstdint>
#include <variant>

#include "core/topology.hpp"

namespace phasecheck::schedules {

/// Whether `model` is fully connected with ports for `messages` concurrent messages per rank
/// (capped at p - 1, which no phase needs more than).
inline bool fully_connected_with(const Topology& model, std::uint64_t messages) {
  const auto* f = std::get_if<FullyConnected>(&model);
  return f && f->ports >= std::min<std::uint64_t>(messages, f->ranks > 1 ? f->ranks - 1 : 1);
}

}  // namespace phasecheck::schedules
