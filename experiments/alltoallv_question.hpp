#pragma once
/// `whatif alltoallv`: how far above the load bound do the alltoallv algorithms land on a
/// traffic matrix, and on a family of mixture-of-experts matrices from uniform expert popularity
/// to a steep Zipf skew (issue 37, "Research")? Every row is an algorithm generated on the matrix
/// and verified (experiments/instance.hpp): its phases, cost_bytes and the machine's load bound
/// (verify/traffic_bounds.hpp), their ratio, and with the linear model the times
/// t_s C1 + t_w cost_bytes against t_w load_bound. A row whose schedule fails a check it promises
/// shows the failure and no figure; an algorithm that does not take the machine, or whose
/// schedule is not contention-free there and does not claim to be, is a row saying so.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/table.hpp"
#include "core/topology.hpp"
#include "core/traffic.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::experiments {

/// The most ranks of a matrix: `check pairwise-v` on 4,096 ranks is the largest case.
inline constexpr Rank kMaxAlltoallvRanks = 4096;
/// The most matrices of a family (--ranks values x --zipf values).
inline constexpr std::uint64_t kMaxAlltoallvMatrices = 256;
/// The most messages the rows verify in all (rows x p^2): about 35 s for the direct patterns
/// (16 rows up to 1,024 ranks, 17.6 M messages, took 2.4 s here); bvn's planning comes on top,
/// about 45 s per 1,024-rank matrix (docs/algorithms.md, the what-if table).
inline constexpr std::uint64_t kMaxAlltoallvMessages = 250'000'000;

/// A matrix read from a file (`--traffic`).
struct GivenTraffic {
  std::string source;  ///< the file's name in the report
  SharedTraffic traffic;
};

/// Mixture-of-experts dispatch matrices (experiments/traffic_models.hpp, moe_traffic), one per
/// rank count and skew: experts_per_rank x p experts, the rest the same for every matrix.
struct MoeFamily {
  std::vector<Rank> ranks;   ///< each in [2, kMaxAlltoallvRanks], distinct
  std::vector<double> zipf;  ///< each in [0, kMaxZipf], distinct
  std::uint64_t experts_per_rank = 4;
  std::uint64_t top_k = 2;
  std::uint64_t tokens = 1024;  ///< per rank
  std::uint64_t hidden = 7168;  ///< bytes per token
  std::uint64_t seed = 1;
  bool dedup = false;
};

struct AlltoallvQuestion {
  std::variant<GivenTraffic, MoeFamily> traffic;
  /// The machine, for every matrix (its p must be theirs); none: fully-connected(p, ports) for
  /// each matrix's p.
  std::optional<Topology> machine;
  std::string machine_source;  ///< the machine's file in the report
  Rank ports = 1;              ///< the default machine's ports
  /// The algorithms compared (alltoallv rows; a test may hand in a broken one).
  std::vector<schedules::Algorithm> algorithms;
  double ts = 0, tw = 0;  ///< seconds per message and per byte; both 0: no time columns
};

/// One line of the plot: an algorithm on the matrices of one rank count, cost / bound per skew
/// (NaN where the row has no figure).
struct SkewCurve {
  std::string algorithm;
  Rank ranks = 0;
  std::vector<double> ratio;  ///< one per AlltoallvAnswer::skews
};

struct AlltoallvAnswer {
  TableReport report;             ///< verdict: overall() of the rows (refusals not evaluated)
  std::vector<double> skews;      ///< the family's --zipf values, as given; empty for a file
  std::vector<SkewCurve> curves;  ///< per rank count, per algorithm; empty for a file
};

/// Throws InputError, before any work, for a question out of range: no algorithm, one that is
/// not an alltoallv row, a rank count or skew out of range or given twice, top_k above the
/// experts of a rank count, too many (token, expert) picks for one matrix, a matrix beyond the
/// memory limit, a machine whose p is not the matrices', more than kMaxAlltoallvMatrices
/// matrices or kMaxAlltoallvMessages messages, ts or tw negative.
void check_alltoallv_question(const AlltoallvQuestion& question);

/// The table (rows: per rank count, skew and algorithm in the order given; or per algorithm for
/// a file). Checks the question first (check_alltoallv_question). Each matrix is built, checked
/// by every algorithm and dropped before the next.
AlltoallvAnswer alltoallv_costs(const AlltoallvQuestion& question, std::ostream* progress);

}  // namespace phasecheck::experiments
