// Traffic models: uniform, random and mixture-of-experts matrices (experiments/traffic_models.hpp,
// docs/traffic.md), and the table of `phasecheck traffic MODEL`.

#include "experiments/traffic_models.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/suggest.hpp"
#include "core/topology.hpp"
#include "io/traffic.hpp"

namespace phasecheck::experiments {
namespace {

/// The seed's random numbers, mapped by this file's arithmetic alone (std::uniform_int_distribution
/// and friends are implementation-defined: another standard library, another matrix).
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : engine_(seed) {}
  /// Uniform in [0, n), n >= 1: the draws below 2^64 mod n are rejected, the rest taken mod n.
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;
    for (;;)
      if (const std::uint64_t x = engine_(); x >= threshold) return x % n;
  }
  /// True with probability p in [0, 1]: 53 random bits, as an integer, below p x 2^53 (both
  /// sides exact in a double).
  bool chance(double p) { return static_cast<double>(engine_() >> 11) < std::ldexp(p, 53); }

 private:
  std::mt19937_64 engine_;
};

[[noreturn]] void refuse(std::string_view model, const std::string& what) {
  throw InputError(std::string(model) + ": " + what);
}

/// A count option within [low, high], or refused naming it.
std::uint64_t within(std::string_view model, std::string_view option, std::uint64_t value,
                     std::uint64_t low, std::uint64_t high) {
  if (value < low || value > high)
    refuse(model, std::string(option) + " " + std::to_string(value) + " is not in " +
                      std::to_string(low) + ".." + std::to_string(high));
  return value;
}

double fraction_within(std::string_view model, std::string_view option, double value, double high) {
  if (!std::isfinite(value) || value < 0 || value > high) {
    std::ostringstream what;
    what << option << ' ' << value << " is not in 0.." << high;
    refuse(model, what.str());
  }
  return value;
}

/// The matrix, or refused naming the cell where a rank passes the traffic limits.
Traffic checked(std::string_view model, Traffic traffic) {
  if (const auto problem = traffic_problem(traffic)) refuse(model, *problem);
  return traffic;
}

/// The experts' weights in popularity order, 1 / i^S for the i-th most popular, as integers:
/// 2^40 / i^S rounded down, at least 1. Every draw after this is integer arithmetic. The total is
/// below 2^62 (E <= 2^22).
std::vector<std::uint64_t> zipf_weights(std::uint64_t experts, double s) {
  std::vector<std::uint64_t> weights(experts);
  for (std::uint64_t i = 0; i < experts; ++i)
    weights[i] = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::floor(std::ldexp(inverse_power(i + 1, s), 40))));
  return weights;
}

/// One token's K distinct experts (as popularity ranks), by successive weighted draws, each
/// excluding those already picked. A draw is a point u of the line [0, total - picked weight);
/// walking the picked experts' intervals in order, each one at or before u moves u past it, so
/// that u lands in the full line [0, total) outside every picked interval: exact, no rejection.
class TopK {
 public:
  explicit TopK(std::vector<std::uint64_t> weights) : weights_(std::move(weights)) {
    starts_.resize(weights_.size());
    for (std::size_t i = 0; i < weights_.size(); ++i) {
      starts_[i] = total_;
      total_ += weights_[i];
    }
  }

  /// Fills `picked` (ascending popularity ranks) with k distinct experts.
  void pick(std::uint64_t k, Draws& draws, std::vector<std::uint64_t>& picked) const {
    picked.clear();
    std::uint64_t picked_weight = 0;
    for (std::uint64_t n = 0; n < k; ++n) {
      std::uint64_t u = draws.below(total_ - picked_weight);
      for (const std::uint64_t p : picked) {
        if (starts_[p] > u) break;
        u += weights_[p];
      }
      const std::uint64_t i = interval_of(u);
      picked.insert(std::upper_bound(picked.begin(), picked.end(), i), i);
      picked_weight += weights_[i];
    }
  }

 private:
  /// The expert whose interval holds u (the last start <= u; starts_[0] = 0): a binary search
  /// without branches on the data, which a skewed draw would mispredict at every step.
  std::uint64_t interval_of(std::uint64_t u) const {
    const std::uint64_t* base = starts_.data();
    for (std::size_t n = starts_.size(); n > 1;) {
      const std::size_t half = n / 2;
      base = base[half] <= u ? base + half : base;
      n -= half;
    }
    return static_cast<std::uint64_t>(base - starts_.data());
  }

  std::vector<std::uint64_t> weights_, starts_;
  std::uint64_t total_ = 0;
};

void check_moe(const MoeOptions& o) {
  constexpr std::string_view moe = "moe";
  within(moe, "--ranks", o.ranks, 1, kMaxRanks);
  within(moe, "--experts", o.experts, 1, kMaxExperts);
  if (o.experts % o.ranks != 0)
    refuse(moe, "--experts " + std::to_string(o.experts) + " is not a multiple of --ranks " +
                    std::to_string(o.ranks) + " (each rank holds E / P experts)");
  within(moe, "--top-k", o.top_k, 1, o.experts);
  within(moe, "--hidden", o.hidden, 1, kMaxElementBytes);
  fraction_within(moe, "--zipf", o.zipf, kMaxZipf);
  // A cell holds at most T x K picks, and a rank sends T x K x hidden bytes.
  const auto per_rank = checked_mul(o.tokens, o.top_k);
  if (!per_rank || *per_rank > kMaxTrafficCount)
    refuse(moe, "--tokens x --top-k is more than an MPI count holds (" +
                    std::to_string(kMaxTrafficCount) + ")");
  const auto row_bytes = checked_mul(per_rank, o.hidden);
  if (!row_bytes || *row_bytes > kMaxTrafficRankBytes)
    refuse(moe, "each rank would send --tokens x --top-k x --hidden bytes, more than " +
                    format_bytes(kMaxTrafficRankBytes));
  const auto picks = checked_mul(per_rank, o.ranks);
  const auto ordering = checked_mul(picks, o.top_k);
  if (!picks || *picks > kMaxPicks || !ordering || *ordering > kMaxPicks * 16)
    refuse(moe, "--ranks x --tokens x --top-k is more than " + std::to_string(kMaxPicks) +
                    " picks, or x --top-k more than " + std::to_string(kMaxPicks * 16) +
                    " steps: too much work");
  check_memory(checked_mul(o.experts, 3 * sizeof(std::uint64_t)),
               "the popularity of " + std::to_string(o.experts) + " experts");
}

}  // namespace

double inverse_power(std::uint64_t i, double s) {
  if (s == 0 || i <= 1) return 1;
  // ln i = k ln 2 + ln m with m in [1, 2) (halving is exact); ln m = 2 atanh(z), z = (m - 1) /
  // (m + 1) <= 1/3, whose series has converged to far below an ulp after 40 terms.
  constexpr double kLn2 = 0.693147180559945309417232121458;
  int k = 0;
  double m = static_cast<double>(i);
  while (m >= 2) {
    m /= 2;
    ++k;
  }
  const double z = (m - 1) / (m + 1), z2 = z * z;
  double atanh = 0, term = z;
  for (int n = 1; n < 80; n += 2) {
    atanh += term / n;
    term *= z2;
  }
  const double y = -s * (k * kLn2 + 2 * atanh);  // ln(i^-s) <= 0
  // e^y = 2^n e^r, n = floor(y / ln 2), r in [0, ln 2): a Taylor series of 30 terms.
  const double n = std::floor(y / kLn2);
  const double r = y - n * kLn2;
  double sum = 1, t = 1;
  for (int j = 1; j < 30; ++j) {
    t *= r / j;
    sum += t;
  }
  return std::ldexp(sum, static_cast<int>(n));
}

Traffic random_traffic(const RandomTrafficOptions& o) {
  constexpr std::string_view model = "random";
  within(model, "--ranks", o.ranks, 1, kMaxRanks);
  within(model, "--max-count", o.max_count, 1, kMaxTrafficCount);
  fraction_within(model, "--zero-fraction", o.zero_fraction, 1);
  within(model, "--element-bytes", o.element_bytes, 1, kMaxElementBytes);
  Traffic traffic = zero_traffic(o.ranks, o.element_bytes);
  Draws draws(o.seed);
  for (std::uint64_t& cell : traffic.counts)
    cell = draws.chance(o.zero_fraction) ? 0 : 1 + draws.below(o.max_count);
  return checked(model, std::move(traffic));
}

Traffic moe_traffic(const MoeOptions& o) {
  check_moe(o);
  Traffic traffic = zero_traffic(o.ranks, o.hidden);
  Draws draws(o.seed);
  // Which expert is the i-th most popular: a permutation drawn first (Fisher-Yates), so that the
  // hot experts are spread over the ranks as a random placement spreads them.
  std::vector<std::uint64_t> expert(o.experts);
  for (std::uint64_t e = 0; e < o.experts; ++e) expert[e] = e;
  for (std::uint64_t i = o.experts; i > 1; --i) std::swap(expert[i - 1], expert[draws.below(i)]);
  const TopK top_k(zipf_weights(o.experts, o.zipf));
  const std::uint64_t per_rank = o.experts / o.ranks;
  std::vector<std::uint64_t> picked, owners;
  for (Rank r = 0; r < o.ranks; ++r) {
    std::uint64_t* row = traffic.counts.data() + std::size_t{r} * o.ranks;
    for (std::uint64_t t = 0; t < o.tokens; ++t) {
      top_k.pick(o.top_k, draws, picked);
      owners.clear();
      for (const std::uint64_t i : picked) owners.push_back(expert[i] / per_rank);
      if (o.dedup) {
        std::sort(owners.begin(), owners.end());
        owners.erase(std::unique(owners.begin(), owners.end()), owners.end());
      }
      for (const std::uint64_t d : owners) ++row[d];
    }
  }
  if (o.combine)  // in place: the matrix is square, and a second one would double the memory
    for (std::size_t s = 0; s < o.ranks; ++s)
      for (std::size_t d = s + 1; d < o.ranks; ++d)
        std::swap(traffic.counts[s * o.ranks + d], traffic.counts[d * o.ranks + s]);
  return checked("moe", std::move(traffic));
}

namespace {

/// The options given, by their command-line names, in the order of TrafficModelOptions.
std::vector<std::string_view> given(const TrafficModelOptions& o) {
  std::vector<std::string_view> names;
  const auto add = [&](std::string_view name, bool set) {
    if (set) names.push_back(name);
  };
  add("--ranks", o.ranks.has_value());
  add("--count", o.count.has_value());
  add("--max-count", o.max_count.has_value());
  add("--seed", o.seed.has_value());
  add("--element-bytes", o.element_bytes.has_value());
  add("--zero-fraction", o.zero_fraction.has_value());
  add("--experts", o.experts.has_value());
  add("--top-k", o.top_k.has_value());
  add("--tokens", o.tokens.has_value());
  add("--hidden", o.hidden.has_value());
  add("--zipf", o.zipf.has_value());
  add("--dedup", o.dedup);
  add("--combine", o.combine);
  add("--input", o.input.has_value());
  return names;
}

/// --ranks, checked before it narrows to a Rank.
Rank ranks_of(std::string_view model, const TrafficModelOptions& o) {
  return static_cast<Rank>(within(model, "--ranks", *o.ranks, 1, kMaxRanks));
}

const std::vector<TrafficModel> kModels = {
    {"uniform",
     "every cell --count elements, the self block too (MPI_Alltoall as an alltoallv)",
     {"--ranks"},
     {"--count", "--element-bytes"},
     [](const TrafficModelOptions& o) {
       constexpr std::string_view model = "uniform";
       const Rank ranks = ranks_of(model, o);
       const std::uint64_t count =
           within(model, "--count", o.count.value_or(1), 0, kMaxTrafficCount);
       const std::uint64_t bytes =
           within(model, "--element-bytes", o.element_bytes.value_or(1), 1, kMaxElementBytes);
       return checked(model, uniform_traffic(ranks, count, bytes));
     }},
    {"random",
     "every cell 0 with probability --zero-fraction, else uniform in 1..--max-count",
     {"--ranks"},
     {"--max-count", "--zero-fraction", "--seed", "--element-bytes"},
     [](const TrafficModelOptions& o) {
       return random_traffic({.ranks = ranks_of("random", o),
                              .max_count = o.max_count.value_or(100),
                              .zero_fraction = o.zero_fraction.value_or(0),
                              .seed = o.seed.value_or(1),
                              .element_bytes = o.element_bytes.value_or(1)});
     }},
    {"moe",
     "a mixture-of-experts dispatch: --tokens per rank to --top-k of --experts experts of Zipf "
     "popularity --zipf",
     {"--ranks", "--experts", "--top-k", "--tokens", "--hidden"},
     {"--zipf", "--seed", "--dedup", "--combine"},
     [](const TrafficModelOptions& o) {
       return moe_traffic({.ranks = ranks_of("moe", o),
                           .experts = *o.experts,
                           .top_k = *o.top_k,
                           .tokens = *o.tokens,
                           .hidden = *o.hidden,
                           .zipf = o.zipf.value_or(0),
                           .seed = o.seed.value_or(1),
                           .dedup = o.dedup,
                           .combine = o.combine});
     }},
    {"file",
     "a traffic file (JSON, or CSV with --element-bytes, default 1) read, checked and written "
     "again: CSV to JSON and back",
     {"--input"},
     {"--element-bytes"},
     [](const TrafficModelOptions& o) { return io::read_traffic_file(*o.input, o.element_bytes); }},
};

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (const std::string_view n : names) out += (out.empty() ? "" : " ") + std::string(n);
  return out;
}

}  // namespace

const std::vector<TrafficModel>& traffic_models() { return kModels; }

Traffic build_traffic_model(std::string_view model, const TrafficModelOptions& options) {
  const auto it = std::find_if(kModels.begin(), kModels.end(),
                               [&](const TrafficModel& m) { return m.name == model; });
  if (it == kModels.end()) {
    std::vector<std::string> known;
    for (const TrafficModel& m : kModels) known.emplace_back(m.name);
    throw InputError(unknown_name("traffic model", model, known));
  }
  const std::string name(it->name);
  const std::vector<std::string_view> have = given(options);
  for (const std::string_view option : have)
    if (std::find(it->required.begin(), it->required.end(), option) == it->required.end() &&
        std::find(it->optional.begin(), it->optional.end(), option) == it->optional.end())
      refuse(name, std::string(option) + " does not apply (" + name + " takes " +
                       join(it->required) + " " + join(it->optional) + ")");
  for (const std::string_view option : it->required)
    if (std::find(have.begin(), have.end(), option) == have.end())
      refuse(name, std::string(option) + " is required (" + name + " takes " + join(it->required) +
                       ", optionally " + join(it->optional) + ")");
  return it->build(options);
}

}  // namespace phasecheck::experiments
