#pragma once
/// `phasecheck survey`: every registered algorithm generated on each machine and verified, with
/// its counts against the model's lower bounds and whether it kept its claims (delivery,
/// invariants, phase count, and contention on a model it claims to be contention-free on).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasecheck::experiments {

struct SurveyRow {
  std::string machine;  ///< machine_name() of the topology file
  std::string model;    ///< describe() of its model
  std::string algorithm;
  /// Why the algorithm does not take this machine (its InputError); the figures below are then
  /// all zero.
  std::optional<std::string> not_applicable;
  std::string failed;  ///< the checks that failed or could not decide, comma-separated
  std::uint64_t phases = 0, c1 = 0, bound_c1 = 0, c2 = 0, bound_c2 = 0;
  /// verify::gap: value - bound, only for a schedule the bounds apply to (everything delivered,
  /// no contention), with a known bound that it meets.
  std::optional<std::uint64_t> gap_c1, gap_c2;
  bool kept = true;  ///< no claim broken
  bool contention_free_claimed = false;
  friend bool operator==(const SurveyRow&, const SurveyRow&) = default;
};

struct Survey {
  std::vector<std::string> topologies;  ///< the files, as given
  std::vector<SurveyRow> rows;          ///< per file, per registered algorithm in table order
  bool broken = false;                  ///< some algorithm broke one of its claims
  friend bool operator==(const Survey&, const Survey&) = default;
};

/// The largest machine surveyed: every registered algorithm is generated and verified on it,
/// at least p^2 transfers each (2,048 ranks take about a minute on this machine).
inline constexpr std::uint32_t kMaxSurveyRanks = 2048;

/// Reads every topology file ("-": standard input) first, then surveys the registry on each.
/// Throws InputError for a file that is not a topology or a machine of more than kMaxSurveyRanks
/// ranks, before any algorithm runs; an algorithm that refuses a machine is a row.
Survey survey(const std::vector<std::string>& topology_files);

}  // namespace phasecheck::experiments
