#pragma once
/// The local copies of one gpu in one phase of a buffer program, in an order that one
/// threadblock can run them one after the other: every op of a phase reads the state at the
/// phase's start, so a copy that reads a slot must come before a copy that writes it. Shared by
/// the exporters (programs/msccl_export.hpp, programs/mscclpp_export.hpp).

#include <optional>
#include <span>
#include <vector>

#include "core/buffers.hpp"

namespace phasecheck::programs {

/// `copies` (local ops of one rank and one phase) ordered so that a copy reading a slot comes
/// before every copy writing it; empty when they read each other's destinations in a cycle (a
/// swap), which no order serves. O(copies^2).
std::optional<std::vector<const BufferOp*>> order_local_copies(
    std::span<const BufferOp* const> copies);

}  // namespace phasecheck::programs
