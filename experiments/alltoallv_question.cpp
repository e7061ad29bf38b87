#include "experiments/alltoallv_question.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/overloaded.hpp"
#include "core/progress.hpp"
#include "experiments/instance.hpp"
#include "experiments/traffic_models.hpp"

namespace phasecheck::experiments {
namespace {

/// One matrix of the question: its rank count, its skew (a family's), and how to build it.
struct Matrix {
  Rank ranks = 0;
  std::optional<double> zipf;
  std::function<SharedTraffic()> build;
};

std::vector<Matrix> matrices_of(const AlltoallvQuestion& q) {
  return std::visit(
      Overloaded{[](const GivenTraffic& given) {
                   return std::vector<Matrix>{
                       {given.traffic->ranks, std::nullopt, [&given] { return given.traffic; }}};
                 },
                 [](const MoeFamily& family) {
                   std::vector<Matrix> matrices;
                   for (const Rank p : family.ranks)
                     for (const double s : family.zipf)
                       matrices.push_back({p, s, [&family, p, s] {
                                             MoeOptions options;
                                             options.ranks = p;
                                             options.experts = family.experts_per_rank * p;
                                             options.top_k = family.top_k;
                                             options.tokens = family.tokens;
                                             options.hidden = family.hidden;
                                             options.zipf = s;
                                             options.seed = family.seed;
                                             options.dedup = family.dedup;
                                             return SharedTraffic(moe_traffic(options));
                                           }});
                   return matrices;
                 }},
      q.traffic);
}

Topology machine_for(const AlltoallvQuestion& q, Rank p) {
  return q.machine ? *q.machine : Topology(FullyConnected(p, q.ports));
}

template <typename T>
void require_distinct(const std::vector<T>& values, std::string_view option) {
  for (std::size_t i = 0; i < values.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (values[i] == values[j]) {
        std::ostringstream value;
        value << values[i];
        throw InputError("whatif alltoallv: " + std::string(option) + " " + value.str() +
                         " is given twice");
      }
}

void check_family(const MoeFamily& family) {
  if (family.ranks.empty() || family.zipf.empty())
    throw InputError("whatif alltoallv: the MoE family needs at least one --ranks and one --zipf");
  require_distinct(family.ranks, "--ranks");
  require_distinct(family.zipf, "--zipf");
  for (const double s : family.zipf)
    if (!(s >= 0 && s <= kMaxZipf))
      throw InputError("whatif alltoallv: --zipf " + figure(s) + " is not in [0, " +
                       figure(kMaxZipf) + "]");
  if (family.experts_per_rank < 1 || family.experts_per_rank > kMaxExperts)
    throw InputError("whatif alltoallv: --experts-per-rank must be in [1, " +
                     std::to_string(kMaxExperts) + "]");
  for (const Rank p : family.ranks) {
    const std::string where = "whatif alltoallv (--ranks " + std::to_string(p) + "): ";
    if (p < 2 || p > kMaxAlltoallvRanks)
      throw InputError(where + "a matrix has 2 to " + std::to_string(kMaxAlltoallvRanks) +
                       " ranks");
    const std::optional<std::uint64_t> experts = checked_mul(family.experts_per_rank, p);
    if (!experts || *experts > kMaxExperts)
      throw InputError(where + "more than " + std::to_string(kMaxExperts) + " experts");
    if (family.top_k < 1 || family.top_k > *experts)
      throw InputError(where + "--top-k " + std::to_string(family.top_k) + " is not in [1, " +
                       std::to_string(*experts) + "] (the experts)");
    const std::optional<std::uint64_t> picks =
        checked_mul(checked_mul(std::uint64_t{p}, family.tokens), family.top_k);
    if (!picks || *picks > kMaxPicks)
      throw InputError(where + "ranks x tokens x top-k is more than the " +
                       std::to_string(kMaxPicks) + " (token, expert) picks one matrix may take");
    check_memory(traffic_memory_bytes(p),
                 "whatif alltoallv: a " + std::to_string(p) + "-rank matrix");
  }
}

/// A row's figures; none where the row has no verified schedule.
struct Row {
  Rank ranks = 0;
  std::optional<double> zipf;
  std::string algorithm;
  Verdict verdict = Verdict::not_evaluated;
  std::string status;
  std::optional<std::uint64_t> phases, cost, bound;
  double time = 0;  ///< t_s C1 + t_w cost_bytes (verified rows)
};

Row check_row(const AlltoallvQuestion& q, const schedules::Algorithm& algorithm,
              const Topology& model, const Matrix& matrix, const SharedTraffic& traffic) {
  Row row{.ranks = matrix.ranks, .zipf = matrix.zipf, .algorithm = std::string(algorithm.name)};
  const Instance instance = check_instance(algorithm, model, Parameters{}, false, traffic);
  if (instance.not_applicable) {
    row.status = "n/a: " + *instance.not_applicable;
    return row;
  }
  const verify::Report& report = *instance.report;
  const std::string broken = report.broken_claims(instance.contention_free_claimed);
  if (!broken.empty()) {
    row.verdict = Verdict::fail;
    row.status = "FAIL: " + broken;
    return row;
  }
  if (!report.passed(CheckId::contention)) {
    // Its phases post more messages per rank than the machine has ports, and the algorithm does
    // not claim otherwise: its cost_bytes would price a phase the machine cannot run at once.
    row.status = "n/a: not contention-free on " + report.topology +
                 ", nor claimed there (its phases need more ports)";
    return row;
  }
  if (report.verdict() != Verdict::pass || !report.bytes) {
    row.verdict = Verdict::fail;
    row.status = "FAIL: " + tally(report.checks);
    return row;
  }
  row.verdict = Verdict::pass;
  row.status = "verified";
  row.phases = report.counts.c1;
  row.cost = report.bytes->cost;
  row.bound = report.bytes->load_bound;
  row.time = q.ts * double(report.counts.c1) + q.tw * double(report.bytes->cost);
  return row;
}

std::optional<double> ratio_of(const Row& row) {
  if (!row.cost || !row.bound || *row.bound == 0) return std::nullopt;
  return double(*row.cost) / double(*row.bound);
}

/// The value, or an empty cell.
template <typename T>
Cell cell_of(const std::optional<T>& v) {
  Cell cell;
  if (v) cell = *v;
  return cell;
}

std::string traffic_heading(const AlltoallvQuestion& q) {
  return std::visit(Overloaded{[](const GivenTraffic& given) {
                                 std::ostringstream o;
                                 o << "the matrix " << given.source
                                   << " (p = " << given.traffic->ranks << ", "
                                   << given.traffic->element_bytes << " bytes per element)";
                                 return o.str();
                               },
                               [](const MoeFamily& f) {
                                 std::ostringstream o;
                                 o << "MoE dispatch matrices (" << f.experts_per_rank
                                   << " experts per rank, top-" << f.top_k << ", " << f.tokens
                                   << " tokens per rank of " << f.hidden << " bytes, seed "
                                   << f.seed << (f.dedup ? ", dedup" : "") << ")";
                                 return o.str();
                               }},
                    q.traffic);
}

nlohmann::ordered_json traffic_facts(const AlltoallvQuestion& q) {
  return std::visit(Overloaded{[](const GivenTraffic& given) {
                                 return nlohmann::ordered_json{{"file", given.source}};
                               },
                               [](const MoeFamily& f) {
                                 return nlohmann::ordered_json{
                                     {"model", "moe"},     {"ranks", f.ranks},
                                     {"zipf", f.zipf},     {"experts_per_rank", f.experts_per_rank},
                                     {"top_k", f.top_k},   {"tokens", f.tokens},
                                     {"hidden", f.hidden}, {"seed", f.seed},
                                     {"dedup", f.dedup}};
                               }},
                    q.traffic);
}

}  // namespace

void check_alltoallv_question(const AlltoallvQuestion& q) {
  if (q.algorithms.empty()) throw InputError("whatif alltoallv: no algorithm to compare");
  for (const schedules::Algorithm& a : q.algorithms)
    if (!schedules::is_alltoallv(a))
      throw InputError("whatif alltoallv: " + std::string(a.name) +
                       " is not an alltoallv algorithm (alltoallv: every algorithm whose "
                       "collective is alltoallv, `phasecheck algorithms`)");
  if (!(q.ts >= 0) || !(q.tw >= 0) || !std::isfinite(q.ts) || !std::isfinite(q.tw))
    throw InputError("whatif alltoallv: --ts and --tw must be finite and not negative");
  if (const auto* family = std::get_if<MoeFamily>(&q.traffic)) check_family(*family);
  if (const auto* given = std::get_if<GivenTraffic>(&q.traffic)) {
    if (!given->traffic) throw InputError("whatif alltoallv: no traffic matrix");
    check_ranks(given->traffic->ranks, kMaxAlltoallvRanks, given->source + ": whatif alltoallv",
                "`phasecheck check ALG --traffic FILE` checks one algorithm on any size");
  }
  const std::vector<Matrix> matrices = matrices_of(q);
  if (matrices.size() > kMaxAlltoallvMatrices)
    throw InputError("whatif alltoallv: " + std::to_string(matrices.size()) +
                     " matrices (--ranks values x --zipf values), more than the " +
                     std::to_string(kMaxAlltoallvMatrices) + " a table takes");
  std::uint64_t messages = 0;
  for (const Matrix& m : matrices) {
    if (q.machine && ranks(*q.machine) != m.ranks)
      throw InputError(q.machine_source + ": whatif alltoallv: the machine has " +
                       std::to_string(ranks(*q.machine)) + " ranks, the matrix " +
                       std::to_string(m.ranks));
    if (!q.machine) machine_for(q, m.ranks);  // the default machine takes these ports
    messages += std::uint64_t{m.ranks} * m.ranks * q.algorithms.size();
  }
  if (messages > kMaxAlltoallvMessages)
    throw InputError("whatif alltoallv: the rows would verify " + std::to_string(messages) +
                     " messages, more than the " + std::to_string(kMaxAlltoallvMessages) +
                     " a table may cost: fewer ranks, skews or algorithms");
}

AlltoallvAnswer alltoallv_costs(const AlltoallvQuestion& q, std::ostream* progress_out) {
  check_alltoallv_question(q);
  const bool timed = q.ts > 0 || q.tw > 0;
  std::vector<Column> columns = {{"ranks", "p"},
                                 {"zipf", "zipf"},
                                 {"algorithm", "algorithm"},
                                 {"phases", "C1"},
                                 {"cost_bytes", "cost bytes"},
                                 {"load_bound_bytes", "load bound"},
                                 {"ratio", "cost/bound"},
                                 {"gap_percent", "gap %"}};
  if (timed)
    for (Column c : {Column{"time_s", "T (s)"}, Column{"bound_time_s", "bound T (s)"},
                     Column{"fastest", "fastest"}})
      columns.push_back(std::move(c));
  columns.push_back({"status", "status"});
  Table table(std::move(columns));

  std::vector<double> skews;
  std::vector<SkewCurve> curves;
  const auto* family = std::get_if<MoeFamily>(&q.traffic);
  if (family) {
    skews = family->zipf;
    for (const Rank p : family->ranks)
      for (const schedules::Algorithm& a : q.algorithms)
        curves.push_back(
            {std::string(a.name), p,
             std::vector<double>(family->zipf.size(), std::numeric_limits<double>::quiet_NaN())});
  }
  const std::vector<Matrix> matrices = matrices_of(q);
  ProgressMeter progress(progress_out, "whatif alltoallv", "rows",
                         matrices.size() * q.algorithms.size());
  std::vector<Verdict> verdicts;
  nlohmann::ordered_json fastest = nlohmann::ordered_json::array();
  std::ostringstream fastest_notes;
  for (std::size_t m = 0; m < matrices.size(); ++m) {
    const Matrix& matrix = matrices[m];
    const SharedTraffic traffic = matrix.build();
    const Topology model = machine_for(q, matrix.ranks);
    std::vector<Row> rows;
    for (const schedules::Algorithm& a : q.algorithms) {
      rows.push_back(check_row(q, a, model, matrix, traffic));
      verdicts.push_back(rows.back().verdict);
      progress.advance();
    }
    const Row* best = nullptr;
    for (const Row& row : rows)
      if (row.verdict == Verdict::pass && (!best || row.time < best->time)) best = &row;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& row = rows[i];
      const std::optional<double> ratio = ratio_of(row);
      const bool verified = row.verdict == Verdict::pass;
      std::vector<Cell> cells = {std::uint64_t{row.ranks},
                                 cell_of(row.zipf),
                                 row.algorithm,
                                 cell_of(row.phases),
                                 cell_of(row.cost),
                                 cell_of(row.bound),
                                 cell_of(ratio),
                                 cell_of(ratio ? std::optional((*ratio - 1) * 100) : std::nullopt)};
      if (timed) {
        cells.push_back(cell_of(verified ? std::optional(row.time) : std::nullopt));
        cells.push_back(
            cell_of(row.bound ? std::optional(q.tw * double(*row.bound)) : std::nullopt));
        cells.push_back(cell_of(&row == best ? std::optional<std::string>("yes") : std::nullopt));
      }
      cells.push_back(row.status);
      table.add(std::move(cells));
      if (family && ratio)
        curves[(m / family->zipf.size()) * q.algorithms.size() + i].ratio[m % family->zipf.size()] =
            *ratio;
    }
    if (timed && best) {
      fastest.push_back({{"ranks", matrix.ranks},
                         {"zipf", matrix.zipf ? nlohmann::ordered_json(*matrix.zipf) : nullptr},
                         {"algorithm", best->algorithm}});
      fastest_notes << "  p = " << matrix.ranks;
      if (matrix.zipf) fastest_notes << ", zipf " << figure(*matrix.zipf);
      fastest_notes << ": " << best->algorithm << " (T = " << figure(best->time) << " s)\n";
    }
  }
  progress.finish();

  const std::string machine = q.machine ? describe(*q.machine) + " (" + q.machine_source + ")"
                                        : "fully-connected(p, k=" + std::to_string(q.ports) +
                                              "), the default machine: p ranks, " +
                                              std::to_string(q.ports) +
                                              (q.ports == 1 ? " port each" : " ports each");
  std::ostringstream heading, notes;
  heading << "alltoallv cost against the load bound on " << traffic_heading(q) << "\non "
          << machine;
  if (timed) heading << "; t_s = " << figure(q.ts) << " s, t_w = " << figure(q.tw) << " s per byte";
  notes << "\nC1 = phases with communication; cost bytes = the sum over phases of the largest "
           "transfer's bytes;\nload bound = the least cost bytes any valid schedule has on the "
           "machine (the most bytes a rank sends or receives, own block excluded, over its "
           "ports; docs/bounds.md);\ncost/bound and gap % = cost bytes against it; status "
           "verified = every check passed (delivery, contention, claims, bounds); FAIL = a "
           "check the algorithm promises failed (no figures); n/a = the algorithm does not take "
           "the machine, or its phases are not contention-free there and it does not claim so.\n";
  if (timed)
    notes << "T = t_s C1 + t_w cost bytes; bound T = t_w load bound; fastest = the least T of "
             "the verified rows of a matrix:\n"
          << fastest_notes.str();
  nlohmann::ordered_json facts;
  facts["machine"] =
      q.machine ? describe(*q.machine) : "fully-connected(p, k=" + std::to_string(q.ports) + ")";
  facts["traffic"] = traffic_facts(q);
  if (timed) {
    facts["ts"] = q.ts;
    facts["tw"] = q.tw;
    facts["fastest"] = std::move(fastest);
  }
  return {{"whatif alltoallv", overall(verdicts), heading.str(), std::move(facts), std::move(table),
           notes.str()},
          std::move(skews),
          std::move(curves)};
}

}  // namespace phasecheck::experiments
