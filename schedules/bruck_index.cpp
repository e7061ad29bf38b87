// The index algorithm of Bruck et al., Section 3 (Phases 1-3, the radix-r decomposition of Phase 2
// in Section 3.2, the short last subphase of Appendix A, k-port grouping in Section 3.4): the phase
// table of its rounds, and the buffer program of Appendix A with its rotations and packing.

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "schedules/bruck.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kRadix{"radix", UInt{2, RankCount{}}, Fixed{"2"},
                               "r: block-ids as w = ceil(log_r n) digits, one subphase each"};
constexpr ParameterSpec kParameters[] = {kAlltoallCollective, kRadix, kPorts};

std::uint64_t mod(std::int64_t a, std::uint64_t n) {
  const auto r = a % static_cast<std::int64_t>(n);
  return static_cast<std::uint64_t>(r < 0 ? r + static_cast<std::int64_t>(n) : r);
}

/// Steps of subphase x: r - 1, or for the last, ceil(n / r^(w-1)) - 1 (Appendix A, line 8).
Rank steps_in(Rank n, Rank r, unsigned w, unsigned x, std::uint64_t dist) {
  return x + 1 < w ? r - 1 : static_cast<Rank>((n + dist - 1) / dist - 1);
}

Slot scratch(std::uint64_t index) { return {Buffer::scratch, static_cast<std::uint32_t>(index)}; }

/// "subphase 1, step 2" or "subphase 1, steps 1-3".
std::string steps_label(unsigned x, Rank first, Rank last) {
  return "subphase " + std::to_string(x) + ", step" +
         (first == last ? " " + std::to_string(first)
                        : "s " + std::to_string(first) + "-" + std::to_string(last));
}

/// The label of a round: its steps, and whether it ends its subphase.
std::string round_label(unsigned x, Rank first, Rank last, Rank steps) {
  return steps_label(x, first, last) +
         (last == steps ? ", end of subphase " + std::to_string(x) : "");
}

}  // namespace

unsigned radix_digits(Rank n, Rank r) {
  unsigned w = 0;
  for (std::uint64_t reach = 1; reach < n; reach *= r) ++w;
  return w;
}

std::uint64_t blocks_with_digit(Rank n, Rank r, std::uint64_t dist, Rank z) {
  const std::uint64_t period = dist * r, full = n / period, rest = n % period;
  const std::uint64_t start = z * dist;
  return full * dist + (rest > start ? std::min(dist, rest - start) : 0);
}

std::span<const ParameterSpec> BruckIndexOptions::parameters() { return kParameters; }

BruckIndexOptions BruckIndexOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "bruck-index");
  if (header.collective != Collective::alltoall)
    throw InputError(
        "bruck-index is the index operation (alltoall); for allgather use "
        "bruck-concat");
  BruckIndexOptions o;
  o.n = header.ranks();
  o.radix = static_cast<Rank>(read_uint(header.parameters, kRadix, o.n));
  o.ports = ports_of(header);
  return o;
}

void bruck_index(const BruckIndexOptions& o, const PhaseSink& out) {
  const Rank n = o.n, r = o.radix, k = o.ports;
  const unsigned w = radix_digits(n, r);
  Phase round;
  std::vector<Block> blocks;
  std::uint64_t dist = 1;
  for (unsigned x = 0; x < w; ++x, dist *= r) {
    const Rank steps = steps_in(n, r, w, x, dist);
    for (Rank first = 1; first <= steps; first += k) {
      const Rank last = std::min<Rank>(steps, first + k - 1);
      round.clear();
      round.set_label(round_label(x, first, last, steps));
      for (Rank i = 0; i < n; ++i)
        for (Rank z = first; z <= last; ++z) {
          // The block-ids j < n whose digit x is z: j = high * r^(x+1) + z * r^x + low.
          blocks.clear();
          for (std::uint64_t high = 0; high * dist * r + z * dist < n; ++high)
            for (std::uint64_t low = 0; low < dist; ++low) {
              const std::uint64_t j = high * dist * r + z * dist + low;
              if (j >= n) break;
              // Processor i holds block-id j of origin o = i - (j mod r^x): the lower digits of j
              // have already moved it that far.
              const auto origin = static_cast<Rank>(mod(std::int64_t(i) - std::int64_t(low), n));
              blocks.push_back({origin, static_cast<Rank>((origin + j) % n)});
            }
          round.add(i, static_cast<Rank>((i + z * dist) % n), blocks);
        }
      out(round);
    }
  }
}

Schedule bruck_index_program(const ScheduleHeader& header) {
  const BruckIndexOptions o = BruckIndexOptions::from(header);
  const Rank n = o.n, r = o.radix, k = o.ports;
  const unsigned w = radix_digits(n, r);
  const std::uint32_t packed_msg = n;  // scratch: tmp = [0, n), then packed_msg
  std::uint64_t packed_slots = 0;      // the largest round's packed blocks
  Schedule s{header, {}};

  Phase phase1("Phase 1: rotate the n blocks i steps up (lines 3-4)");
  for (Rank i = 0; i < n; ++i) {
    if (i > 0) phase1.add(BufferOp{i, i, {Buffer::input, 0}, scratch(n - i), i});
    phase1.add(BufferOp{i, i, {Buffer::input, i}, scratch(0), n - i});
  }
  s.phases.push_back(std::move(phase1));

  // pack (line 15) or unpack (line 17) the blocks of steps first..last of the subphase with
  // weight dist, step after step, each in block-id order: the runs of r^x consecutive block-ids
  // whose digit x is z.
  const auto pack = [&](Phase& phase, std::uint64_t dist, Rank first, Rank last, bool unpack) {
    for (Rank i = 0; i < n; ++i) {
      std::uint64_t q = packed_msg;
      for (Rank z = first; z <= last; ++z)
        for (std::uint64_t start = z * dist; start < n; start += dist * r) {
          const auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(dist, n - start));
          BufferOp op{i, i, scratch(start), scratch(q), length};
          if (unpack) std::swap(op.from, op.to);
          phase.add(op);
          q += length;
        }
    }
  };

  std::uint64_t dist = 1;
  for (unsigned x = 0; x < w; ++x, dist *= r) {
    const Rank steps = steps_in(n, r, w, x, dist);
    Phase first_pack("pack " + steps_label(x, 1, std::min<Rank>(steps, k)));
    pack(first_pack, dist, 1, std::min<Rank>(steps, k), false);
    s.phases.push_back(std::move(first_pack));
    for (Rank first = 1; first <= steps; first += k) {
      const Rank last = std::min<Rank>(steps, first + k - 1);
      // Lines 13-16: every step's packed_msg to i + z r^x, received in place from i - z r^x.
      Phase round(round_label(x, first, last, steps));
      for (Rank i = 0; i < n; ++i) {
        std::uint64_t q = packed_msg;
        for (Rank z = first; z <= last; ++z) {
          const auto count = static_cast<std::uint32_t>(blocks_with_digit(n, r, dist, z));
          round.add(
              BufferOp{i, static_cast<Rank>((i + z * dist) % n), scratch(q), scratch(q), count});
          q += count;
        }
        packed_slots = std::max(packed_slots, q - packed_msg);
      }
      s.phases.push_back(std::move(round));
      Phase after("unpack " + steps_label(x, first, last));
      pack(after, dist, first, last, true);
      if (last < steps) {  // the next round of the subphase packs other block-ids
        const Rank next_last = std::min<Rank>(steps, last + k);
        after.set_label(after.label() + "; pack " + steps_label(x, last + 1, next_last));
        pack(after, dist, last + 1, next_last, false);
      }
      s.phases.push_back(std::move(after));
    }
  }

  Phase phase3("Phase 3: rotate the n blocks i steps down, in reverse (lines 21-23)");
  for (Rank i = 0; i < n; ++i)
    for (Rank slot = 0; slot < n; ++slot)
      phase3.add(BufferOp{
          i, i, scratch(mod(std::int64_t(i) - std::int64_t(slot), n)), {Buffer::output, slot}, 1});
  s.phases.push_back(std::move(phase3));

  BufferLayout layout = natural_layout(Collective::alltoall, n, 1);
  layout.scratch = static_cast<std::uint32_t>(n + packed_slots);
  s.header.buffers = layout;
  return s;
}

Invariant rotation_invariant(Rank n, Rank r, std::vector<std::size_t> subphase_end) {
  return {"Section 3.2: after subphase x every block [o, d] sits at o + ((d - o) mod r^(x+1))",
          [n, r, subphase_end = std::move(subphase_end)](const Boundary& at,
                                                         const DataView& data) -> Finding {
            const auto it = std::find(subphase_end.begin(), subphase_end.end(), at.phase);
            if (it == subphase_end.end()) return Finding::not_applicable();
            const auto x = static_cast<unsigned>(it - subphase_end.begin());
            std::uint64_t weight = 1;  // r^x
            for (unsigned i = 0; i < x; ++i) weight *= r;
            // Only the blocks whose digit x is not 0 moved in this subphase (holdings only grow).
            for (Rank origin = 0; origin < n; ++origin)
              for (Rank j = 1; j < n; ++j) {
                if ((j / weight) % r == 0) continue;
                const auto there = static_cast<Rank>((origin + j % (weight * r)) % n);
                const Block b{origin, static_cast<Rank>((origin + j) % n)};
                if (!data.holds(there, b))
                  return Finding::broken("block " + to_string(b) + " (block-id " +
                                         std::to_string(j) + ") is not at processor " +
                                         std::to_string(there) + " after subphase " +
                                         std::to_string(x));
              }
            return Finding::holds();
          }};
}

Claims bruck_index_claims(const BruckIndexOptions& o, Form form) {
  const Rank n = o.n, r = o.radix, k = o.ports;
  const unsigned w = radix_digits(n, r);
  const bool program = form == Form::program;
  // The rounds and C2 the table must have, from the digit counts (not from the generator), and
  // the phase at which each subphase ends. The program adds Phase 1 and Phase 3, and per
  // subphase of m rounds a pack before the first round and an unpack after each (Appendix A,
  // lines 15-17; the unpack of one round and the pack of the next share a phase).
  std::size_t rounds = 0, phases = program ? 1 : 0;
  std::uint64_t c2 = 0;
  std::vector<std::size_t> subphase_end;  // the phase index of each subphase's last phase
  std::uint64_t dist = 1;
  for (unsigned x = 0; x < w; ++x, dist *= r) {
    const Rank steps = steps_in(n, r, w, x, dist);
    std::size_t m = 0;
    for (Rank first = 1; first <= steps; first += k) {
      std::uint64_t largest = 0;
      for (Rank z = first; z <= std::min<Rank>(steps, first + k - 1); ++z)
        largest = std::max(largest, blocks_with_digit(n, r, dist, z));
      c2 += largest;
      ++m;
    }
    rounds += m;
    phases += program ? 2 * m + 1 : m;
    subphase_end.push_back(phases - 1);
  }
  if (program) ++phases;
  const std::string source =
      program ? std::to_string(rounds) + " rounds (Section 3.4) and " +
                    std::to_string(phases - rounds) +
                    " local phases: Phases 1 and 3, per subphase a pack before its rounds and an "
                    "unpack after each (Appendix A)"
              : "sum over the w subphases of ceil(steps / k) rounds (Section 3.4)";
  Claims claims{.invariants = {rotation_invariant(n, r, std::move(subphase_end))},
                .phases = PhaseClaim::exactly(phases, source)};
  claims.c2 = PhaseClaim::exactly(
      c2, "per round the largest step: the block-ids with that digit (Section 3.2)");
  return claims;
}

}  // namespace phasecheck::schedules
