#pragma once
/// A buffer program (format 3) compiled to an MSCCL++ execution plan (core/mscclpp.hpp) that
/// mscclpp's executor loads (docs/mscclpp.md, "Export"). Only memory channels and data-ordered
/// signals, so that the plan is correct under the model of core/mscclpp_execution.hpp:
///
/// - every gpu gets one threadblock per peer it exchanges with (both directions, on one memory
///   channel to that peer) and one for its local copies, if it makes any. The executor holds 64
///   ops a threadblock: a pair whose next phase might not fit moves on, on both sides, to fresh
///   threadblocks with channels of their own (the k-th channels of a to b and of b to a pair);
///   so does every 12 sends one way of a pair within a phase, and the local copies likewise;
/// - a call opens with the DSL's handshake on every pair threadblock (rlxsignal to the peer,
///   rlxwait from it): the peer's puts of this call come after this gpu's reads of the last one;
/// - a send of phase t becomes a put into a staging range of the receiver's scratch (after the
///   program's own scratch, one range per send, never reused within a call), a nop and a signal;
///   the receiver waits, joins and copies the range to the send's destination. The puts of one
///   phase to one peer (in one threadblock) share one signal and one wait;
/// - within a phase a gpu's puts come first, then its local copies (ordered so that a copy
///   reading a slot runs before one writing it; a cycle of them goes through staging), then its
///   receives: the program reads at a phase's start and writes at its end;
/// - an op waits for the last op of every other threadblock of its gpu that wrote a slot it
///   reads, or read or wrote a slot it writes, through a device semaphore that one threadblock
///   releases (after a nop) and one acquires (before a nop; the acquires of a phase's puts, or
///   receives, of one threadblock go before the first of them); two ops of one threadblock that
///   touch a slot in common, one writing, have a nop between them.
///
/// Deterministic and pure: the same program and options give the same plan. The caller checks the
/// result by lowering it again (verify/mscclpp_execution.hpp) and verifying it.

#include <cstdint>
#include <string>

#include "core/mscclpp.hpp"
#include "core/schedule.hpp"

namespace phasecheck::programs {

struct MscclppExportOptions {
  std::string name;  ///< the plan's name; empty: the schedule's algorithm
  std::uint64_t min_message_size = 0;
  std::uint64_t max_message_size = ~std::uint64_t{0};
};

/// Throws InputError when the options are invalid (min_message_size > max_message_size).
void check_options(const MscclppExportOptions& options);

/// The MSCCL++ plan of the format-3 `program` (header.buffers set, every op well-formed).
/// Throws InputError when the options are invalid (check_options), or when a threadblock would
/// still run more ops than the executor holds (mscclpp::kMaxOpsPerThreadblock: the releases that
/// later ops attach to a full threadblock's ops), naming the gpu, the threadblock and the count.
/// O(ops + chunks moved) time and memory, plus O(ops per phase and gpu ^ 2) to order a phase's
/// local copies.
mscclpp::Plan to_mscclpp(const Schedule& program, const MscclppExportOptions& options);

}  // namespace phasecheck::programs
