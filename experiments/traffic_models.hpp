#pragma once
/// Traffic matrices to study alltoallv schedules on (docs/traffic.md): uniform, random, and the
/// dispatch (or combine) of a mixture-of-experts layer whose tokens pick their top-k experts
/// from a Zipf popularity; or a traffic file read (io/traffic.hpp), to check it or convert it.
/// `phasecheck traffic MODEL --option value ...` builds them through the table at the end; every
/// decision about the options is made here.
///
/// Same options, same matrix, on every platform: the one source of randomness is
/// std::mt19937_64 (its output is fixed by the C++ standard), mapped to integers and to
/// [0, 1) by this file's own arithmetic (std:: distributions differ between libraries), never
/// seeded by time or addresses; the Zipf weights come from inverse_power, not std::pow.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/traffic.hpp"

namespace phasecheck::experiments {

/// The most experts a mixture-of-experts model has, and the most (token, expert) picks one
/// matrix is built from (ranks x tokens x top_k): a minute or two of work; ranks x tokens x
/// top_k x top_k at most 16 times that (a token's picks are kept in order).
inline constexpr std::uint64_t kMaxExperts = std::uint64_t{1} << 22;
inline constexpr std::uint64_t kMaxPicks = std::uint64_t{1} << 30;
/// The largest Zipf exponent: beyond it every expert but the hottest has the least weight.
inline constexpr double kMaxZipf = 16;

/// i^-s for i >= 1 and 0 <= s <= kMaxZipf, within a few ulps, by + - x / alone (series for the
/// logarithm and the exponential, fixed numbers of terms): the same double on every IEEE-754
/// platform, where std::pow may differ by an ulp between libraries, and even between glibc's
/// variants for processors with and without FMA. (traffic_models.cpp is compiled with
/// -ffp-contract=off, so that no compiler fuses a multiply and an add.)
double inverse_power(std::uint64_t i, double s);

struct RandomTrafficOptions {
  Rank ranks = 1;
  std::uint64_t max_count = 1;  ///< a non-zero cell is uniform in 1..max_count
  double zero_fraction = 0;     ///< the probability that a cell is 0
  std::uint64_t seed = 1;
  std::uint64_t element_bytes = 1;
  friend bool operator==(const RandomTrafficOptions&, const RandomTrafficOptions&) = default;
};

/// Every cell, the diagonal (a rank's own block) included, drawn independently: 0 with
/// probability zero_fraction, else uniform in 1..max_count; row by row. Throws InputError for
/// options out of range (ranks 0, max_count 0 or beyond kMaxTrafficCount, zero_fraction not in
/// [0, 1], element_bytes out of range) or a matrix beyond the memory limit, before any work.
Traffic random_traffic(const RandomTrafficOptions& options);

struct MoeOptions {
  Rank ranks = 1;
  std::uint64_t experts = 1;  ///< E, a multiple of ranks: expert e lives on rank e / (E / ranks)
  std::uint64_t top_k = 1;    ///< K distinct experts per token, 1 <= K <= E
  std::uint64_t tokens = 0;   ///< T tokens on each rank
  std::uint64_t hidden = 1;   ///< bytes of one token (the element size)
  double zipf = 0;            ///< S: the i-th most popular expert weighs 1 / i^S (0: uniform)
  std::uint64_t seed = 1;
  bool dedup = false;    ///< a token goes once to each rank holding any of its experts
  bool combine = false;  ///< the return trip: the transpose
  friend bool operator==(const MoeOptions&, const MoeOptions&) = default;
};

/// The dispatch of one mixture-of-experts layer (docs/traffic.md, "The MoE model"): the experts'
/// popularity order is a random permutation drawn from the seed; each rank's T tokens, rank by
/// rank, token by token, each pick K distinct experts by successive weighted draws, each draw
/// excluding the experts already picked; counts[r][owner(e)] += 1 per pick (with dedup: once per
/// token and destination rank); element_bytes = hidden; with combine, the transpose. Throws
/// InputError for options out of range (names the option) or a matrix beyond the memory limit,
/// before any work, and names the cell when a rank would receive more than the traffic limits.
/// O(E + ranks x tokens x K x (log E + K)).
Traffic moe_traffic(const MoeOptions& options);

/// The options of `phasecheck traffic MODEL`, as given: one not given is empty (false for a
/// flag), so that an option that does not belong to the model is refused, not ignored.
struct TrafficModelOptions {
  std::optional<std::uint64_t> ranks, count, max_count, seed, element_bytes;
  std::optional<double> zero_fraction;
  std::optional<std::uint64_t> experts, top_k, tokens, hidden;
  std::optional<double> zipf;
  bool dedup = false, combine = false;
  std::optional<std::string> input;  ///< file: a traffic file ("-": standard input)
  friend bool operator==(const TrafficModelOptions&, const TrafficModelOptions&) = default;
};

/// One model `phasecheck traffic` builds.
struct TrafficModel {
  std::string_view name;                   ///< "uniform", "random", "moe", "file"
  std::string_view summary;                ///< for the help
  std::vector<std::string_view> required;  ///< options that must be given ("--ranks")
  std::vector<std::string_view> optional;  ///< options that may be given (with a default)
  /// Builds the matrix from options already checked against the two lists above.
  Traffic (*build)(const TrafficModelOptions&);
};

/// Every model, in the order the help lists them.
const std::vector<TrafficModel>& traffic_models();

/// Builds the matrix of `model` from `options`. Throws InputError for an unknown model, a
/// required option missing ("moe: --experts is required"), an option that does not belong to
/// the model ("uniform: --seed does not apply (uniform takes --ranks --count --element-bytes)"),
/// or a value the model refuses.
Traffic build_traffic_model(std::string_view model, const TrafficModelOptions& options);

}  // namespace phasecheck::experiments
