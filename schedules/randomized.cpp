// Randomized Alltoall for low-diameter networks (the Slim Fly paper, Section 2): Function 1,
// Algorithm 1 (randomized scatter) and Algorithm 2 (randomized Sendrecv with the request queue).

#include "schedules/randomized.hpp"

#include <algorithm>
#include <charconv>
#include <random>
#include <string>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kSeed{"seed", UInt{0, UINT64_MAX}, InWords{"p"},
                              "Function 1's seed of the shuffle; p by default, as the paper's "
                              "get_shuffled_ranks(size, size)"};
constexpr ParameterSpec kRanks{"ranks", Text{"PERMUTATION"}, InWords{"from seed"},
                               "the shuffled array itself, as 1,3,2,0 (the paper's Fig. 1); not "
                               "with seed"};
constexpr ParameterSpec kMaxQueue{
    "max_queue", UInt{0, 1u << 30}, Fixed{"2"},
    "requests a rank posts before it waits: ceil(max_queue / 2) iterations per Waitall"};
constexpr ParameterSpec kBytes{"bytes", UInt{1, std::uint64_t{1} << 40}, Fixed{"4096"},
                               "bytes per message"};
constexpr ParameterSpec kBlockSize{"block_size", UInt{1, std::uint64_t{1} << 40}, Fixed{"1024"},
                                   "bytes per segment: Algorithm 3's block"};

constexpr ParameterSpec kScatterParameters[] = {kCollective, kSeed, kRanks};
constexpr ParameterSpec kSendrecvParameters[] = {kCollective, kSeed, kRanks, kMaxQueue};
constexpr ParameterSpec kSegmentedParameters[] = {kAlltoallCollective, kSeed,  kRanks,
                                                  kMaxQueue,           kBytes, kBlockSize};

/// The permutation of ranks=1,3,2,0 on p ranks; InputError unless it is one.
std::vector<Rank> parse_permutation(std::string_view text, Rank p) {
  std::vector<Rank> ranks;
  while (!text.empty()) {
    const std::size_t comma = std::min(text.find(','), text.size());
    const std::string_view item = text.substr(0, comma);
    Rank v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size() || v >= p)
      throw InputError("parameter ranks: '" + std::string(item) + "' is not a rank below " +
                       std::to_string(p));
    ranks.push_back(v);
    text.remove_prefix(std::min(comma + 1, text.size()));
  }
  std::vector<Rank> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (ranks.size() != p || sorted.size() != p)
    throw InputError("parameter ranks: must be a permutation of 0.." + std::to_string(p - 1));
  return ranks;
}

/// The shuffle and the queue of `header`, whose parameters `name` has checked.
RandomizedOptions read_randomized(const ScheduleHeader& header, bool queue, std::string_view name) {
  const Rank p = header.ranks();
  RandomizedOptions o;
  o.collective = header.collective;
  if (const auto ranks = read_text(header.parameters, kRanks)) {
    if (header.parameters.has("seed"))
      throw InputError(std::string(name) + ": give seed or ranks, not both");
    o.ranks = parse_permutation(*ranks, p);
  } else {
    o.ranks = shuffled_ranks(p, read_uint(header.parameters, kSeed, p, p));
  }
  if (queue) o.max_queue = static_cast<std::uint32_t>(read_uint(header.parameters, kMaxQueue, p));
  return o;
}

}  // namespace

std::vector<Rank> shuffled_ranks(Rank size, std::uint64_t seed) {
  std::vector<Rank> ranks(size);
  for (Rank r = 0; r < size; ++r) ranks[r] = r;  // fill(rax, 0, size)
  std::mt19937_64 engine(seed);
  for (Rank i = size; i > 1; --i) {  // Fisher-Yates: swap position i - 1 with a uniform j < i
    const std::uint64_t bound = i, limit = UINT64_MAX - UINT64_MAX % bound;
    std::uint64_t draw;
    do draw = engine();
    while (draw >= limit);
    std::swap(ranks[i - 1], ranks[draw % bound]);
  }
  return ranks;
}

Rank receive_from(const std::vector<Rank>& ranks, const std::vector<Rank>& index_of, Rank r,
                  Rank i) {
  const auto p = static_cast<Rank>(ranks.size());
  return (index_of[r] + p - i % p) % p;
}

std::uint32_t iterations_per_batch(std::uint32_t max_queue) {
  return std::max<std::uint32_t>(1, (max_queue + 1) / 2);
}

std::span<const ParameterSpec> RandomizedOptions::parameters(bool queue) {
  if (queue) return kSendrecvParameters;
  return kScatterParameters;
}

RandomizedOptions RandomizedOptions::from(const ScheduleHeader& header, bool queue) {
  const char* name = queue ? "randomized-sendrecv" : "randomized-scatter";
  check_parameters(header.parameters, parameters(queue), header.ranks(), name);
  return read_randomized(header, queue, name);
}

void randomized_sendrecv(const RandomizedOptions& o, const PhaseSink& out) {
  const auto p = static_cast<Rank>(o.ranks.size());
  std::vector<Rank> index_of(p);
  for (Rank x = 0; x < p; ++x) index_of[o.ranks[x]] = x;
  const std::uint32_t batch = iterations_per_batch(o.max_queue);
  Phase phase;
  for (Rank first = 0; first < p; first += batch) {
    const Rank last = std::min<Rank>(p, first + batch) - 1;
    phase.clear();
    phase.set_label("iterations " + std::to_string(first) + "-" + std::to_string(last) +
                    ", then Waitall");
    for (Rank i = first; i <= last; ++i)
      for (Rank r = 0; r < p; ++r) {
        const Rank to = send_to(o.ranks, r, i);
        phase.add(r, to, direct_block(o.collective, r, to));
      }
    out(phase);
  }
}

Claims randomized_sendrecv_claims(const RandomizedOptions& o) {
  const auto p = static_cast<Rank>(o.ranks.size());
  const std::uint32_t batch = iterations_per_batch(o.max_queue);
  std::vector<Rank> index_of(p);
  for (Rank x = 0; x < p; ++x) index_of[o.ranks[x]] = x;
  Invariant received{
      "Algorithm 2: after each Waitall, every rank has received from the row that holds it at "
      "each iteration of the batch",
      [ranks = o.ranks, index_of, batch](const Boundary& at, const DataView& data) -> Finding {
        const auto n = static_cast<Rank>(ranks.size());
        const std::uint64_t first = at.phase * std::uint64_t{batch};
        if (first >= n) return Finding::not_applicable();  // beyond the last Waitall
        for (std::uint64_t i = first; i < std::min<std::uint64_t>(n, first + batch); ++i)
          for (Rank r = 0; r < n; ++r) {
            const Rank from = receive_from(ranks, index_of, r, static_cast<Rank>(i));
            if (!data.delivered(from, r))
              return Finding::broken("rank " + std::to_string(r) + " has not received from rank " +
                                     std::to_string(from) + " (iteration " + std::to_string(i) +
                                     ")");
          }
        return Finding::holds();
      }};
  Claims c{.invariants = {std::move(received)},
           .phases = PhaseClaim::exactly((p + batch - 1) / batch,
                                         "p iterations, ceil(max_queue / 2) per Waitall")};
  c.max_requests = {o.max_queue, "max_queue = " + std::to_string(o.max_queue)};
  return c;
}

void randomized_scatter(const RandomizedOptions& o, const PhaseSink& out) {
  const auto p = static_cast<Rank>(o.ranks.size());
  Phase phase("Irecv all, Isend all, Waitall");
  // Every rank posts its sends in the shuffled order ranks[0], ranks[1], ...
  for (Rank i = 0; i < p; ++i)
    for (Rank r = 0; r < p; ++r)
      phase.add(r, o.ranks[i], direct_block(o.collective, r, o.ranks[i]));
  out(phase);
}

Claims randomized_scatter_claims(const RandomizedOptions& o) {
  Claims c{.phases = PhaseClaim::exactly(1, "one Waitall")};
  c.max_requests = {2 * static_cast<std::uint32_t>(o.ranks.size()), "reqs[2 x size]"};
  return c;
}

std::span<const ParameterSpec> SegmentedOptions::parameters() { return kSegmentedParameters; }

SegmentedOptions SegmentedOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kSegmentedParameters, header.ranks(), "randomized-segmented");
  if (header.collective != Collective::alltoall)
    throw InputError("randomized-segmented is an alltoall");
  // The shuffle and the queue as in Algorithm 2 (bytes and block_size are ours to read).
  SegmentedOptions o{read_randomized(header, true, "randomized-segmented"),
                     read_uint(header.parameters, kBytes, header.ranks()),
                     read_uint(header.parameters, kBlockSize, header.ranks())};
  if (header.parts != parts_of(header))
    throw InputError("randomized-segmented: the header has " + std::to_string(header.parts) +
                     " parts but bytes / block_size gives " + std::to_string(parts_of(header)));
  return o;
}

std::uint32_t SegmentedOptions::parts_of(const ScheduleHeader& header) {
  const std::uint64_t bytes = read_uint(header.parameters, kBytes, header.ranks()),
                      block = read_uint(header.parameters, kBlockSize, header.ranks());
  const std::uint64_t parts = (bytes + block - 1) / block;
  if (parts > kMaxParts)
    throw InputError("randomized-segmented: " + std::to_string(parts) + " segments per message; " +
                     "at most " + std::to_string(kMaxParts) + " (raise block_size)");
  return static_cast<std::uint32_t>(parts);
}

void randomized_segmented(const SegmentedOptions& o, const PhaseSink& out) {
  const auto p = static_cast<Rank>(o.base.ranks.size());
  const std::uint32_t batch = iterations_per_batch(o.base.max_queue);
  Phase phase;
  for (std::uint64_t b = 0; b < o.full_blocks(); ++b)
    for (Rank first = 0; first < p; first += batch) {
      const Rank last = std::min<Rank>(p, first + batch) - 1;
      phase.clear();
      phase.set_label("block " + std::to_string(b) + ", iterations " + std::to_string(first) + "-" +
                      std::to_string(last) + ", then Waitall");
      for (Rank i = first; i <= last; ++i)
        for (Rank r = 0; r < p; ++r) {
          const Rank to = send_to(o.base.ranks, r, i);
          phase.add(r, to, Block{r, to, static_cast<std::uint32_t>(b)});
        }
      out(phase);
    }
  if (!o.trailing()) return;
  // The trailing Scatter Alltoall: the remaining bytes of every message, all posted at once.
  phase.clear();
  phase.set_label("trailing scatter: the last " + std::to_string(o.bytes % o.block_size) +
                  " bytes of every message");
  const auto part = static_cast<std::uint32_t>(o.full_blocks());
  for (Rank i = 0; i < p; ++i)
    for (Rank r = 0; r < p; ++r) phase.add(r, o.base.ranks[i], Block{r, o.base.ranks[i], part});
  out(phase);
}

Claims randomized_segmented_claims(const SegmentedOptions& o) {
  const auto p = static_cast<Rank>(o.base.ranks.size());
  const std::uint32_t batch = iterations_per_batch(o.base.max_queue);
  const std::uint64_t per_block = (p + batch - 1) / batch;
  Invariant segment{
      "Algorithm 3: after a block's last Waitall, that segment of every message has arrived",
      [p, per_block, blocks = o.full_blocks()](const Boundary& at,
                                               const DataView& data) -> Finding {
        if ((at.phase + 1) % per_block != 0 || at.phase / per_block >= blocks)
          return Finding::not_applicable();
        const auto part = static_cast<std::uint32_t>(at.phase / per_block);
        for (Rank origin = 0; origin < p; ++origin)
          for (Rank dest = 0; dest < p; ++dest)
            if (origin != dest && !data.holds(dest, Block{origin, dest, part}))
              return Finding::broken("segment " + std::to_string(part) + " of the message " +
                                     std::to_string(origin) + " -> " + std::to_string(dest) +
                                     " has not arrived");
        return Finding::holds();
      }};
  Claims c{.invariants = {std::move(segment)},
           .phases = PhaseClaim::exactly(o.full_blocks() * per_block + (o.trailing() ? 1 : 0),
                                         "n_blocks ceil(p / batch), plus the trailing scatter")};
  const std::uint32_t q = o.base.max_queue;
  c.max_requests = o.trailing() ? Claims::RequestLimit{std::max<std::uint32_t>(q, 2 * p),
                                                       "max_queue = " + std::to_string(q) +
                                                           ", and 2p in the trailing scatter"}
                                : Claims::RequestLimit{q, "max_queue = " + std::to_string(q)};
  return c;
}

Selection select_randomized(std::uint64_t bytes, Rank processes) {
  if (bytes < 512) return {"shift", "below 512 bytes the paper does not randomize"};
  if (bytes <= 16384) {
    if (processes <= kFewProcesses)
      return {"randomized-scatter",
              "512 B to 16 KiB and few processes (<= " + std::to_string(kFewProcesses) +
                  ", our reading of \"few\")"};
    return {"randomized-sendrecv", "512 B to 16 KiB and many processes"};
  }
  return {"randomized-segmented", "above 16 KiB the paper segments each message (Algorithm 3)"};
}

}  // namespace phasecheck::schedules
