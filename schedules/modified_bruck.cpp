// Bruck et al.'s index operation (Section 3) with r = 2 and one port, without the local rotations
// of Phases 1 and 3: they are folded into the addressing, as zero-copy implementations with
// derived datatypes do. Processor i's block-id j is the message to (i + j) mod p wherever it is:
// at its origin in input[(i + j) mod p], in transit in scratch[j], and after its last hop (the
// round of j's highest bit) in output[(i - j) mod p] of its destination i. So ceil(log2 p) rounds,
// all of them communicating (the self copy rides along in the first), with Bruck's C2.

#include <algorithm>
#include <bit>
#include <string>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "schedules/bruck.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kParameters[] = {kAlltoallCollective};

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "modified-bruck");
  if (header.collective != Collective::alltoall)
    throw InputError("modified-bruck is an alltoall; for allgather use bruck-concat");
  return header.ranks();
}

/// Appends `op`, or lengthens the last op when `op` continues it slot for slot.
void append(std::vector<BufferOp>& ops, const BufferOp& op) {
  if (!ops.empty()) {
    BufferOp& last = ops.back();
    if (last.src == op.src && last.dst == op.dst && last.from.buffer == op.from.buffer &&
        last.to.buffer == op.to.buffer && last.from.index + last.count == op.from.index &&
        last.to.index + last.count == op.to.index) {
      last.count += op.count;
      return;
    }
  }
  ops.push_back(op);
}

}  // namespace

std::span<const ParameterSpec> modified_bruck_parameters() { return kParameters; }

Schedule modified_bruck_program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  // Built whole, and its table is derived from it by running it (16 bytes per output and scratch
  // slot, up to 2 p^2 of them): refused before that passes the memory limit.
  check_memory(checked_mul(std::uint64_t{p} * p, sizeof(BufferOp) + 2 * 16),
               "modified-bruck on " + std::to_string(p) +
                   " ranks (its buffer program is built whole, about p^2 ops, and run)");
  const unsigned rounds = radix_digits(p, 2);
  Schedule s{header, {}};
  std::uint32_t scratch = 0;  // one more than the highest block-id ever in transit
  std::vector<BufferOp> ops;
  for (unsigned x = 0; x < std::max(rounds, 1u); ++x) {
    const std::uint64_t d = std::uint64_t{1} << x;
    ops.clear();
    if (x == 0)  // the self copy: block-id 0 never moves
      for (Rank i = 0; i < p; ++i)
        ops.push_back({i, i, {Buffer::input, i}, {Buffer::output, i}, 1});
    for (Rank i = 0; i < p; ++i) {
      const auto to = static_cast<Rank>((i + d) % p);
      for (std::uint64_t j = d; j < p; ++j) {
        if ((j & d) == 0) continue;
        const auto id = static_cast<std::uint32_t>(j);
        // Not moved yet (no lower bit set): still at its origin i, in the caller's input.
        const Slot from = j % d == 0 ? Slot{Buffer::input, static_cast<std::uint32_t>((i + j) % p)}
                                     : Slot{Buffer::scratch, id};
        // Its highest bit is x: this hop ends at its destination, origin (to - j) mod p.
        const Slot into =
            j < 2 * d ? Slot{Buffer::output, static_cast<std::uint32_t>((to + p - j % p) % p)}
                      : Slot{Buffer::scratch, id};
        if (into.buffer == Buffer::scratch) scratch = std::max(scratch, id + 1);
        append(ops, {i, to, from, into, 1});
      }
    }
    Phase round(rounds == 0 ? std::string("self copy")
                            : "distance " + std::to_string(d) + ": block-ids with bit " +
                                  std::to_string(x) + " set to rank + " + std::to_string(d) +
                                  (x == 0 ? ", and the self copy" : ""));
    for (const BufferOp& op : ops) round.add(op);
    s.phases.push_back(std::move(round));
  }
  BufferLayout layout = natural_layout(Collective::alltoall, p, 1);
  layout.scratch = scratch;
  s.header.buffers = layout;
  return s;
}

Claims modified_bruck_claims(const ScheduleHeader& header) {
  const Rank n = checked_ranks(header);
  const unsigned rounds = radix_digits(n, 2);
  std::uint64_t c2 = 0;
  std::vector<std::size_t> round_end;
  std::uint64_t dist = 1;
  for (unsigned x = 0; x < rounds; ++x, dist *= 2) {
    c2 += blocks_with_digit(n, 2, dist, 1);
    round_end.push_back(x);
  }
  Claims claims{.invariants = {rotation_invariant(n, 2, std::move(round_end))},
                .phases = PhaseClaim::exactly(
                    std::max(rounds, 1u),
                    "ceil(log2 p) = " + std::to_string(rounds) +
                        " rounds of Bruck et al. with r = 2, no local phase (one for p = 1, "
                        "the self copy)")};
  claims.c2 = PhaseClaim::exactly(
      c2, "per round the block-ids with that bit set (Bruck et al., Section 3.2, r = 2)");
  return claims;
}

}  // namespace phasecheck::schedules
