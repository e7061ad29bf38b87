// bvn: the traffic matrix split into at most K = max_phases weighted permutations (Birkhoff-von
// Neumann; preemptive open shop, Gonzalez and Sahni 1976), each a phase in which rank s sends
// rank sigma(s) the pieces assigned to it. Messages are cut into pieces of g elements (format 2)
// and the matrix is counted in pieces: a[s][d] = ceil(count[s][d] / g), the diagonal 0 (a rank
// holds its own block). Three plans, the cheapest within the bound is emitted (docs/algorithms.md,
// "Alltoallv: bvn and two-stage-v", proves the bounds):
// - peeled: a stuffed to equal line sums and peeled with approximate bottleneck matchings
//   (peeling.hpp) while the phases used plus the most messages left on one rank stay within K;
//   what is left is then sent whole along an edge colouring of its support (at most that many
//   matchings). At most K phases.
// - quantised (the guarantee): a' = ceil(a / u) with u = ceil(Delta / (K - D)) (Delta the largest
//   line sum of a, D its most nonzero cells on a line) has line sums <= K; peeled exactly, each
//   permutation of weight w carries up to w u pieces per pair. At most Delta' <= K phases, cost at
//   most Delta' u g bytes per element.
// - shifted: the p - 1 shift permutations s -> s + t, each carrying whole messages (pairwise
//   exchange's decomposition, a BvN cover too), when p - 1 <= K: on a matrix with one hot
//   receiver every phase sends it one message and the plan meets the load bound, where peeling
//   within K phases leaves remainders that cost bytes.
// Each rank sends and receives at most one transfer per phase (one port), so phases >= D.

#include <algorithm>

#include "core/error.hpp"
#include "schedules/alltoallv/direct_v.hpp"
#include "schedules/alltoallv/peeling.hpp"
#include "schedules/alltoallv/rows.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules::alltoallv {
namespace {

constexpr std::string_view kName = "bvn";
constexpr ParameterSpec kMaxPhases{
    "max_phases", UInt{1, std::uint64_t{1} << 32}, InWords{"3p"},
    "K: at most this many phases (weighted permutations); at least the most messages of a rank"};
constexpr ParameterSpec kParameters[] = {kAlltoallvCollective, kMaxPhases};

/// The heaviest rank's traffic is cut into about this many pieces per peer: each of its messages
/// loses at most one piece to rounding, so the piece matrix's load is within 1/32 of the bytes'.
constexpr std::uint64_t kPiecesPerPeer = 32;
/// The most pieces of all messages together (the schedule lists each once).
constexpr std::uint64_t kMostPieces = std::uint64_t{1} << 25;

/// g = max(1, ceil(largest count / kMaxParts), floor(L / (32 p)), ceil(total / 2^25)), L the
/// largest line sum in elements and the self blocks left out.
std::uint64_t piece_size(const ScheduleHeader& header) {
  const Traffic& traffic = traffic_of(header, kName);
  const Rank p = traffic.ranks;
  SquareMatrix m{p, traffic.counts};
  // The self block is cut too (header.parts counts every message), but neither sent nor loaded.
  std::uint64_t largest = 0, total = 0;
  for (std::uint64_t c : m.cells) largest = std::max(largest, c);
  for (Rank r = 0; r < p; ++r) m.at(r, r) = 0;
  for (std::uint64_t c : m.cells) total += c;
  return std::max({std::uint64_t{1}, (largest + kMaxParts - 1) / kMaxParts,
                   largest_line_sum(m) / (kPiecesPerPeer * p),
                   (total + kMostPieces - 1) / kMostPieces});
}

/// a[s][d]: the pieces of message s -> d, the diagonal 0.
SquareMatrix piece_matrix(const Traffic& traffic, Pieces pieces) {
  const Rank p = traffic.ranks;
  SquareMatrix a{p, std::vector<std::uint64_t>(std::size_t{p} * p, 0)};
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d)
      if (s != d) a.at(s, d) = pieces.of(traffic.count(s, d));
  return a;
}

/// What the header's instance allows and guarantees.
struct Budget {
  std::uint64_t max_phases = 0;  ///< K
  std::uint64_t degree = 0;      ///< D: the most messages one rank sends or receives
  std::uint64_t unit = 1;        ///< u: pieces per unit of the quantised plan
  std::uint64_t units = 0;       ///< Delta': the largest line sum of ceil(a / u)
};

SquareMatrix quantised(const SquareMatrix& a, std::uint64_t unit) {
  SquareMatrix q = a;
  for (std::uint64_t& c : q.cells) c = (c + unit - 1) / unit;
  return q;
}

Budget budget_of(const ScheduleHeader& header, const SquareMatrix& a) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  Budget b;
  b.max_phases =
      read_uint(header.parameters, kMaxPhases, header.ranks(), 3 * std::uint64_t{header.ranks()});
  b.degree = largest_line_degree(a);
  if (b.max_phases < b.degree)
    throw InputError(std::string(kName) + ": max_phases = " + std::to_string(b.max_phases) +
                     " is below " + std::to_string(b.degree) +
                     ", the most messages one rank sends or receives (one per phase)");
  const std::uint64_t delta = largest_line_sum(a);
  if (b.max_phases > b.degree) {
    const std::uint64_t spare = b.max_phases - b.degree;
    b.unit = std::max<std::uint64_t>(1, (delta + spare - 1) / spare);
  } else {
    for (std::uint64_t c : a.cells) b.unit = std::max(b.unit, c);
  }
  b.units = largest_line_sum(quantised(a, b.unit));
  return b;
}

/// The guaranteed cost in bytes: Delta' units of u pieces of at most g elements.
std::uint64_t guaranteed_bytes(const ScheduleHeader& header, const Budget& b) {
  const Traffic& traffic = *header.traffic;
  // A file's whole messages (piece_elements 0) are pieces of the largest message's size.
  std::uint64_t g = header.piece_elements;
  if (g == 0)
    for (std::uint64_t c : traffic.counts) g = std::max(g, c);
  return b.units * b.unit * g * traffic.element_bytes;
}

struct Move {
  Rank s = 0, d = 0;
  std::uint64_t pieces = 0;
};
using Plan = std::vector<std::vector<Move>>;

/// Rows and columns of `real` with something left, kept as cells reach zero.
class Degrees {
 public:
  explicit Degrees(const SquareMatrix& real) : row_(real.size, 0), column_(real.size, 0) {
    for (Rank s = 0; s < real.size; ++s)
      for (Rank d = 0; d < real.size; ++d)
        if (real.at(s, d) > 0) {
          ++row_[s];
          ++column_[d];
        }
  }
  void emptied(Rank s, Rank d) {
    --row_[s];
    --column_[d];
  }
  std::uint64_t largest() const {
    std::uint64_t most = 0;
    for (std::uint64_t r : row_) most = std::max(most, r);
    for (std::uint64_t c : column_) most = std::max(most, c);
    return most;
  }

 private:
  std::vector<std::uint64_t> row_, column_;
};

/// Takes up to `room(weight)` pieces of each pair of `w` from `real`: one phase, or none.
template <class Room>
void take(const WeightedPermutation& w, SquareMatrix& real, Degrees* degrees, Room room,
          Plan& plan) {
  std::vector<Move> moves;
  for (Rank s = 0; s < real.size; ++s) {
    const Rank d = w.receiver[s];
    std::uint64_t& left = real.at(s, d);
    if (s == d || left == 0) continue;
    const std::uint64_t x = std::min(left, room(w.weight));
    left -= x;
    if (left == 0 && degrees) degrees->emptied(s, d);
    moves.push_back({s, d, x});
  }
  if (!moves.empty()) plan.push_back(std::move(moves));
}

/// The peeled plan: bottleneck permutations while the budget allows, then what is left whole
/// along an edge colouring of its support. Invariant: phases + (most messages left on a line) <=
/// K, so the colouring fits.
Plan peeled_plan(const SquareMatrix& a, std::uint64_t max_phases) {
  SquareMatrix real = a;
  Degrees degrees(real);
  Peeler peeler(stuffed(a));
  Plan plan;
  for (std::uint64_t left = degrees.largest(); left > 0 && plan.size() + 1 + left <= max_phases;
       left = degrees.largest()) {
    const auto w = peeler.next();
    if (!w) break;
    take(
        *w, real, &degrees, [](std::uint64_t weight) { return weight; }, plan);
  }
  SquareMatrix support = real;
  for (std::uint64_t& c : support.cells) c = c > 0 ? 1 : 0;
  Peeler colouring(stuffed(support));
  while (const auto w = colouring.next())
    take(
        *w, real, nullptr, [](std::uint64_t) { return ~std::uint64_t{0}; }, plan);
  return plan;
}

/// The quantised plan: ceil(a / u) peeled to zero, a permutation of weight w carrying up to w u
/// pieces per pair.
Plan quantised_plan(const SquareMatrix& a, const Budget& b) {
  SquareMatrix real = a;
  Peeler peeler(stuffed(quantised(a, b.unit)));
  Plan plan;
  while (const auto w = peeler.next())
    take(
        *w, real, nullptr, [&](std::uint64_t weight) { return weight * b.unit; }, plan);
  return plan;
}

/// The shifted plan: phase t (t = 1 .. p - 1) moves every piece of s -> s + t; empty phases
/// left out.
Plan shifted_plan(const SquareMatrix& a) {
  Plan plan;
  for (Rank t = 1; t < a.size; ++t) {
    std::vector<Move> moves;
    for (Rank s = 0; s < a.size; ++s) {
      const Rank d = (s + t) % a.size;
      if (a.at(s, d) > 0) moves.push_back({s, d, a.at(s, d)});
    }
    if (!moves.empty()) plan.push_back(std::move(moves));
  }
  return plan;
}

/// Walks the plan's pieces in order: `visit(phase, move, first piece)`.
template <class Visit>
void walk(const Plan& plan, Rank p, Visit visit) {
  std::vector<std::uint64_t> next(std::size_t{p} * p, 0);
  for (std::size_t t = 0; t < plan.size(); ++t)
    for (const Move& m : plan[t]) {
      std::uint64_t& first = next[std::size_t{m.s} * p + m.d];
      visit(t, m, first);
      first += m.pieces;
    }
}

/// The plan's cost: the sum over phases of its largest transfer's bytes.
std::uint64_t plan_bytes(const Plan& plan, const Traffic& traffic, Pieces pieces) {
  std::vector<std::uint64_t> largest(plan.size(), 0);
  walk(plan, traffic.ranks, [&](std::size_t t, const Move& m, std::uint64_t first) {
    const std::uint64_t count = traffic.count(m.s, m.d);
    const std::uint64_t end = std::min(count, (first + m.pieces) * pieces.piece_elements);
    largest[t] =
        std::max(largest[t], (end - first * pieces.piece_elements) * traffic.element_bytes);
  });
  std::uint64_t total = 0;
  for (std::uint64_t l : largest) total += l;
  return total;
}

void emit(const Plan& plan, Rank p, const std::string& which, const PhaseSink& out) {
  std::vector<Phase> phases(plan.size());
  for (std::size_t t = 0; t < plan.size(); ++t)
    phases[t].set_label(which + " permutation " + std::to_string(t) + " of " +
                        std::to_string(plan.size()));
  std::vector<Block> blocks;
  walk(plan, p, [&](std::size_t t, const Move& m, std::uint64_t first) {
    blocks.clear();
    for (std::uint64_t k = first; k < first + m.pieces; ++k)
      blocks.push_back(Block{m.s, m.d, static_cast<std::uint32_t>(k)});
    phases[t].add(m.s, m.d, blocks);
  });
  for (const Phase& phase : phases) out(phase);
}

void generate(const ScheduleHeader& header, const PhaseSink& out) {
  const Traffic& traffic = traffic_of(header, kName);
  const SquareMatrix a = piece_matrix(traffic, header.pieces());
  const Budget b = budget_of(header, a);
  const std::uint64_t guaranteed = guaranteed_bytes(header, b);
  const Plan peeled = peeled_plan(a, b.max_phases);
  const std::uint64_t peeled_bytes = plan_bytes(peeled, traffic, header.pieces());
  if (traffic.ranks - 1 <= b.max_phases) {  // the shifts fit the phase budget
    const Plan shifted = shifted_plan(a);
    const std::uint64_t shifted_bytes = plan_bytes(shifted, traffic, header.pieces());
    if (shifted_bytes < peeled_bytes && shifted_bytes <= guaranteed)
      return emit(shifted, traffic.ranks, "shift", out);
  }
  if (peeled_bytes <= guaranteed) return emit(peeled, traffic.ranks, "peeled", out);
  emit(quantised_plan(a, b), traffic.ranks, "quantised", out);
}

Claims claims(const ScheduleHeader& header) {
  const Traffic& traffic = traffic_of(header, kName);
  const Budget b = budget_of(header, piece_matrix(traffic, header.pieces()));
  std::uint64_t one_port = 0;
  for (Rank r = 0; r < traffic.ranks; ++r)
    one_port = std::max({one_port, sent_bytes(traffic, r), received_bytes(traffic, r)});
  Claims c{.phases = PhaseClaim{b.degree, b.max_phases,
                                "at least D = " + std::to_string(b.degree) +
                                    " (a rank's messages, one per phase), at most max_phases"}};
  c.cost_bytes = PhaseClaim{
      one_port, guaranteed_bytes(header, b),
      "at least the most bytes one rank sends or receives (one port); at most Delta' u g b = " +
          std::to_string(b.units) + " x " + std::to_string(b.unit) + " x " +
          std::to_string(header.piece_elements) + " x " + std::to_string(traffic.element_bytes) +
          " (the quantised plan's bound)"};
  return c;
}

}  // namespace

Algorithm bvn() {
  return {
      kName,
      "the matrix split into at most max_phases weighted permutations, messages in pieces",
      "Birkhoff-von Neumann decomposition; Gonzalez and Sahni 1976 (preemptive open shop); "
      "Liu et al. 2015 (Solstice)",
      kParameters,
      generate,
      claims,
      [](const ScheduleHeader&, const Topology& model) { return fully_connected_with(model, 1); },
      {},
      {},
      false,
      {},
      {},
      piece_size};
}

}  // namespace phasecheck::schedules::alltoallv
