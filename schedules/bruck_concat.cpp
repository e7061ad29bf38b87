// The concatenation algorithm of Bruck et al., Section 4: the first d - 1 rounds on the circulant
// graph G(n, S) (Section 4.1, Theorem 4.1) and the last round by table partitioning (Section 4.2,
// Proposition 4.2), growing the trees with positive offsets as in Section 4.1 (Appendix B uses
// negative ones, a mirror image); the phase table of its rounds and the buffer program of
// Appendix B, mirrored, with its temporary array and final rotation.

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "schedules/bruck.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kParameters[] = {kAllgatherCollective, kPorts};

struct Shape {
  unsigned d = 0;        ///< rounds: ceil(log_{k+1} n)
  std::uint64_t n1 = 1;  ///< (k+1)^(d-1): nodes spanned before the last round
  std::uint64_t a = 0;   ///< columns per area in the last round: ceil(n2 / k)
};

Shape shape(Rank n, Rank k) {
  Shape s;
  if (n <= 1) return s;
  for (std::uint64_t reach = 1; reach < n; reach *= k + 1) ++s.d;
  for (unsigned i = 0; i + 1 < s.d; ++i) s.n1 *= k + 1;
  s.a = (n - s.n1 + k - 1) / k;
  return s;
}

}  // namespace

std::span<const ParameterSpec> BruckConcatOptions::parameters() { return kParameters; }

BruckConcatOptions BruckConcatOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "bruck-concat");
  if (header.collective != Collective::allgather)
    throw InputError(
        "bruck-concat is the concatenation operation (allgather: --set "
        "collective=allgather); for alltoall use bruck-index");
  return {header.ranks(), ports_of(header)};
}

void bruck_concat(const BruckConcatOptions& o, const PhaseSink& out) {
  const Rank n = o.n, k = std::min<Rank>(o.ports, n > 1 ? n - 1 : 1);
  const Shape s = shape(n, k);
  Phase round;
  std::vector<Block> items;
  const auto item = [n](std::uint64_t x, std::uint64_t back) {
    return Block{static_cast<Rank>((x + n - back % n) % n), kEveryRank};
  };
  std::uint64_t span = 1;  // (k+1)^i: the items every node has before round i
  for (unsigned i = 0; i + 1 < s.d; ++i, span *= k + 1) {
    round.clear();
    round.set_label("round " + std::to_string(i) + ", offsets S_" + std::to_string(i));
    for (Rank x = 0; x < n; ++x) {
      items.clear();
      for (std::uint64_t j = 0; j < span; ++j) items.push_back(item(x, j));
      for (Rank m = 1; m <= k; ++m)  // offsets m (k+1)^i
        round.add(x, static_cast<Rank>((x + m * span) % n), items);
    }
    out(round);
  }
  if (s.d == 0) return;
  // The last round: area A_m covers columns [m a, min((m+1) a, n2)) of the n2 nodes still to be
  // spanned in T_0, each column c sent by node c - L from offset n1 + L, L = m a its leftmost.
  round.clear();
  round.set_label("round " + std::to_string(s.d - 1) + ", last (table partitioning)");
  const std::uint64_t n2 = n - s.n1;
  for (Rank x = 0; x < n; ++x)
    for (std::uint64_t left = 0; left < n2; left += s.a) {
      const std::uint64_t width = std::min(s.a, n2 - left);
      items.clear();
      for (std::uint64_t t = 0; t < width; ++t) items.push_back(item(x, t));
      round.add(x, static_cast<Rank>((x + s.n1 + left) % n), items);
    }
  out(round);
}

Schedule bruck_concat_program(const ScheduleHeader& header) {
  const BruckConcatOptions o = BruckConcatOptions::from(header);
  const Rank n = o.n, k = std::min<Rank>(o.ports, n > 1 ? n - 1 : 1);
  const Shape s = shape(n, k);
  const auto temp = [](std::uint64_t j) {
    return Slot{Buffer::scratch, static_cast<std::uint32_t>(j)};
  };
  Schedule program{header, {}};

  // temp[j] holds B[x - j]: the items x sends first, B[x] .. B[x - span + 1], are temp[0 .. span),
  // and what x receives on offset m span, B[x - m span] .., lands right after them.
  Phase start("copy B[x] into temp[0] (line 3)");
  for (Rank x = 0; x < n; ++x) start.add(BufferOp{x, x, {Buffer::input, 0}, temp(0), 1});
  program.phases.push_back(std::move(start));

  std::uint64_t span = 1;  // (k+1)^i
  for (unsigned i = 0; i + 1 < s.d; ++i, span *= k + 1) {
    Phase round("round " + std::to_string(i) + ", offsets S_" + std::to_string(i));
    for (Rank x = 0; x < n; ++x)
      for (Rank m = 1; m <= k; ++m)
        round.add(BufferOp{x, static_cast<Rank>((x + m * span) % n), temp(0), temp(m * span),
                           static_cast<std::uint32_t>(span)});
    program.phases.push_back(std::move(round));
  }
  if (s.d > 0) {
    Phase last("round " + std::to_string(s.d - 1) + ", last (table partitioning)");
    const std::uint64_t n2 = n - s.n1;
    for (Rank x = 0; x < n; ++x)
      for (std::uint64_t left = 0; left < n2; left += s.a)
        last.add(BufferOp{x, static_cast<Rank>((x + s.n1 + left) % n), temp(0), temp(s.n1 + left),
                          static_cast<std::uint32_t>(std::min(s.a, n2 - left))});
    program.phases.push_back(std::move(last));
  }

  Phase rotate("rotate temp into place: output[s] = temp[(x - s) mod n] (lines 17-18, mirrored)");
  for (Rank x = 0; x < n; ++x)
    for (Rank slot = 0; slot < n; ++slot)
      rotate.add(BufferOp{x, x, temp((x + n - slot) % n), {Buffer::output, slot}, 1});
  program.phases.push_back(std::move(rotate));

  BufferLayout layout = natural_layout(Collective::allgather, n, 1);
  layout.scratch = n;
  program.header.buffers = layout;
  return program;
}

Claims bruck_concat_claims(const BruckConcatOptions& o, Form form) {
  const Rank n = o.n, k = std::min<Rank>(o.ports, n > 1 ? n - 1 : 1);
  const Shape s = shape(n, k);
  // The program's first phase copies B[x] into temp: its round i is phase i + 1.
  const std::size_t first_round = form == Form::program ? 1 : 0;
  Invariant spanned{
      "Theorem 4.1: after round i < d - 1 every node x holds B[x - j] for j < (k+1)^(i+1)",
      [n, k, s, first_round](const Boundary& at, const DataView& data) -> Finding {
        if (at.phase < first_round) return Finding::not_applicable();
        const std::size_t round = at.phase - first_round;
        if (round + 1 >= s.d) return Finding::not_applicable();  // the last round has its own check
        std::uint64_t span = 1;
        for (std::size_t i = 0; i <= round; ++i) span *= k + 1;
        for (Rank x = 0; x < n; ++x)
          for (std::uint64_t j = 1; j < span; ++j) {
            const auto origin = static_cast<Rank>((x + n - j % n) % n);
            if (!data.holds(x, {origin, kEveryRank}))
              return Finding::broken("node " + std::to_string(x) + " does not hold B[" +
                                     std::to_string(origin) + "] after round " +
                                     std::to_string(round));
          }
        return Finding::holds();
      }};
  Claims claims{
      .invariants = {std::move(spanned)},
      .phases = form == Form::program
                    ? PhaseClaim::exactly(s.d + 2,
                                          "d = ceil(log_{k+1} n) rounds (Theorem 4.3), the copy "
                                          "into temp before them and the rotation after "
                                          "(Appendix B)")
                    : PhaseClaim::exactly(s.d, "d = ceil(log_{k+1} n) rounds (Theorem 4.3)")};
  if (n > 1)
    claims.c2 = PhaseClaim::exactly((n - 1 + k - 1) / k,
                                    "(n1 - 1)/k + ceil(n2/k) = ceil((n - 1)/k) (Theorem 4.3)");
  return claims;
}

}  // namespace phasecheck::schedules
