// `phasecheck whatif QUESTION ...`: the options of each research question, the question asked of
// experiments/ (experiments/questions.hpp, experiments/optimality_tables.hpp, and Faraj & Yuan's
// Section 6 experiment simulated by SimGrid, experiments/faraj_yuan_experiment.hpp), and its
// table rendered by report/ (report/table.hpp; report/optimal_report.hpp and
// report/run_report.hpp for their text).

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/run_options.hpp"
#include "cli/traffic_option.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/network_options.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "experiments/alltoallv_question.hpp"
#include "experiments/faraj_yuan_experiment.hpp"
#include "experiments/optimality_tables.hpp"
#include "experiments/questions.hpp"
#include "io/json.hpp"
#include "report/optimal_report.hpp"
#include "report/run_report.hpp"
#include "report/skew_plot.hpp"
#include "report/svg_plot.hpp"
#include "report/table.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string question;  ///< hierarchical-factor, cluster, bruck-index, congestion, optimality,
                         ///< experiment, alltoallv
  reports::ReportFormat report = reports::ReportFormat::text;
  std::vector<std::string> sizes;  ///< node-size vectors, "8,8,4,1"
  std::string sizes_file;          ///< one vector per line, '#' comments
  /// cluster: this many random clusters of 2..max_ranks ranks, drawn from `seed`; 0: none.
  unsigned random = 0;
  std::uint64_t seed = 1;
  // bruck-index: the machine and the linear model (one --ranks; alltoallv: a list).
  std::vector<unsigned> ranks;
  unsigned ports = 1;
  double ts = 0, tw = 0;   ///< seconds per message, seconds per byte
  double block_alias = 0;  ///< the old --block (one release, with a note); 0: not given
  // congestion: a routed machine, the algorithms to compare, the seeds of randomized ones.
  std::string topology;
  std::string algorithms;  ///< empty: the question's default
  std::string seeds = "1..20";
  /// --bytes: message sizes in bytes. bruck-index: the block (one value, default 1); congestion:
  /// the size for the paper's algorithm selection (one value; none: not shown); experiment: the
  /// sizes simulated (default 8 KiB to 256 KiB).
  std::vector<std::uint64_t> bytes;
  // optimality: a family of machines (cluster, tree, kport) up to a size, solver timeout per call.
  std::string family = "cluster";
  unsigned max_ranks = 6;     ///< cluster and kport
  unsigned max_machines = 6;  ///< tree
  double timeout = 60;        ///< optimality: per solver call; experiment: per simulation
  // experiment: a paper's measurements, simulated by SimGrid on its machines.
  std::string paper = "faraj-yuan";
  std::vector<std::string> topologies;  ///< tree files; empty: the paper's (examples/)
  std::vector<unsigned> message_kb;     ///< the old --message-kb (one release, with a note)
  std::string bandwidth = "100Mbps", latency = "10us";
  std::string out_dir;  ///< where the throughput plots go; empty: none
  // alltoallv: one traffic matrix, or a family of MoE matrices; the plot of cost vs skew.
  TrafficOption traffic;
  bool moe = false;
  std::vector<double> zipf;  ///< empty: 0, 0.5, 1, 1.5
  std::optional<std::uint64_t> experts_per_rank, top_k, tokens, hidden;
  bool dedup = false;
  std::string svg;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("question", options.question,
                 "hierarchical-factor, cluster, bruck-index, congestion, optimality, "
                 "experiment or alltoallv")
      ->required();
  app.add_option("--report", options.report, "Report format (csv: the table)");
  app.add_option("--sizes", options.sizes, "Node sizes of a cluster, e.g. 8,8,4,1 (repeatable)");
  app.add_option("--sizes-file", options.sizes_file, "File with one size vector per line");
  app.add_option("--random", options.random,
                 "cluster: this many random clusters of 2..--max-ranks ranks (at most 1024)")
      ->check(natural());
  app.add_option("--seed", options.seed, "cluster: the seed of --random (default 1)");
  app.add_option("--ranks", options.ranks,
                 "bruck-index: processors n; alltoallv --moe: rank counts, comma-separated")
      ->delimiter(',')
      ->check(natural());
  app.add_option("--ports", options.ports,
                 "bruck-index: ports k; alltoallv: ports of the default machine (default 1)")
      ->check(natural());
  app.add_option("--ts", options.ts, "bruck-index, alltoallv: start-up time per message, seconds");
  app.add_option("--tw", options.tw, "bruck-index, alltoallv: transfer time per byte, seconds");
  old_spelling(app.add_option("--block", options.block_alias), "--bytes");
  app.add_option("--topology", options.topology,
                 "congestion: the machine (a routed topology); alltoallv: the machine (default: "
                 "fully connected, p ranks, --ports ports)");
  app.add_option("--algorithms", options.algorithms,
                 "congestion (default shift,randomized-sendrecv), alltoallv (default: every "
                 "alltoallv algorithm): algorithms, comma-separated");
  app.add_option("--seeds", options.seeds, "congestion: seeds, 1..20 or 3,5,8");
  app.add_option("--family", options.family,
                 "optimality: cluster (every node-size vector), tree (every tree shape) or "
                 "kport (every n and k, forwarding frontier)")
      ->check(one_of({"cluster", "tree", "kport"}));
  app.add_option("--max-ranks", options.max_ranks,
                 "optimality: clusters (<= 12) or k-port machines (<= 8) up to this many ranks; "
                 "cluster: every cluster (<= 20) or --random ones (<= 1024) up to this many")
      ->check(natural());
  app.add_option("--max-machines", options.max_machines,
                 "optimality: trees up to this many machines (<= 10)")
      ->check(natural());
  app.add_option("--timeout", options.timeout, "optimality: seconds per solver call");
  app.add_option("--paper", options.paper, "experiment: the paper to reproduce (faraj-yuan)");
  app.add_option("--topologies", options.topologies,
                 "experiment: tree topology files (default: the paper's three machines)")
      ->delimiter(',');
  old_spelling(app.add_option("--message-kb", options.message_kb)->delimiter(',')->check(natural()),
               "--bytes (in bytes: 8KiB for 8)");
  app.add_option("--bandwidth", options.bandwidth, "experiment: link bandwidth (default 100Mbps)");
  app.add_option("--latency", options.latency, "experiment: link latency (default 10us)");
  app.add_option("--out-dir", options.out_dir,
                 "experiment: write a throughput plot (SVG) per machine here");
  bytes_option(app.add_option("--bytes", options.bytes,
                              "Message sizes in bytes (4096, 4KiB, 1MiB; comma-separated): "
                              "bruck-index the block (default 1), congestion the size for "
                              "the paper's selection, experiment the sizes simulated "
                              "(default 8KiB,...,256KiB)")
                   ->delimiter(','));
  options.traffic.add(app);
  app.add_flag("--moe", options.moe,
               "alltoallv: a family of MoE dispatch matrices (docs/traffic.md), one per --ranks "
               "and --zipf");
  app.add_option("--zipf", options.zipf,
                 "alltoallv --moe: Zipf skews of expert popularity (default 0,0.5,1,1.5)")
      ->delimiter(',');
  app.add_option("--experts-per-rank", options.experts_per_rank,
                 "alltoallv --moe: experts on each rank (default 4)")
      ->check(natural());
  app.add_option("--top-k", options.top_k, "alltoallv --moe: experts per token (default 2)")
      ->check(natural());
  app.add_option("--tokens", options.tokens, "alltoallv --moe: tokens per rank (default 1024)")
      ->check(natural());
  bytes_option(app.add_option("--hidden", options.hidden,
                              "alltoallv --moe: bytes of one token (default 7168)"));
  app.add_flag("--dedup", options.dedup,
               "alltoallv --moe: a token goes once to each rank holding its experts");
  app.add_option("--svg", options.svg,
                 "alltoallv --moe: write the plot of cost / load bound against skew (SVG) here");
}

/// "8,8,4,1" -> {8, 8, 4, 1}; `where` names the source in errors.
std::vector<Rank> parse_sizes(std::string_view text, const std::string& where) {
  std::vector<Rank> sizes;
  for (const std::uint64_t value : parse_count_list(text, where)) {
    if (value < 1 || value > kMaxRanks)
      throw InputError(where + ": element " + std::to_string(sizes.size() + 1) + " '" +
                       std::to_string(value) + "' is not a node size (1 to " +
                       std::to_string(kMaxRanks) + ")");
    sizes.push_back(static_cast<Rank>(value));
  }
  return sizes;
}

/// The clusters of --sizes and --sizes-file, in that order.
std::vector<experiments::NamedCluster> given_clusters(const Options& options) {
  std::vector<experiments::NamedCluster> instances;
  for (const std::string& sizes : options.sizes)
    instances.push_back({sizes, parse_sizes(sizes, "--sizes " + sizes)});
  if (!options.sizes_file.empty()) {
    InputFile file(options.sizes_file);
    std::istream& in = file.stream();
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
      if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      line.erase(line.find_last_not_of(" \t\r") + 1);
      instances.push_back(
          {line, parse_sizes(line, options.sizes_file + ":" + std::to_string(number))});
    }
  }
  return instances;
}

int whatif_hierarchical(const Options& options, reports::ReportFormat format, std::ostream& out) {
  const std::vector<experiments::NamedCluster> instances = given_clusters(options);
  if (instances.empty())
    throw InputError("whatif hierarchical-factor: give --sizes or --sizes-file");
  const TableReport report = experiments::hierarchical_factor_steps(instances, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// hierarchical-factor against cluster-coloring: the given clusters, --random N of them up to
/// --max-ranks, or every cluster of 2..--max-ranks ranks.
int whatif_cluster(const Options& options, reports::ReportFormat format, std::ostream& out) {
  std::vector<experiments::NamedCluster> instances = given_clusters(options);
  if (options.random > 0) {
    if (!instances.empty())
      throw InputError("whatif cluster: give --sizes/--sizes-file or --random, not both");
    instances = experiments::random_clusters(options.random, options.max_ranks, options.seed);
  } else if (instances.empty()) {
    instances = experiments::every_cluster(options.max_ranks);
  }
  const TableReport report = experiments::cluster_comparison(
      instances, experiments::kSolvedClusterRanks, options.timeout, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::fail ? 1 : 0;
}

/// Bruck et al., Section 3.5: which radix is best for this machine?
int whatif_bruck_index(const Options& options, reports::ReportFormat format, std::ostream& out) {
  if (options.bytes.size() > 1)
    throw InputError("whatif bruck-index: one --bytes (the block size)");
  if (options.ranks.size() > 1) throw InputError("whatif bruck-index: one --ranks");
  experiments::BruckRadixQuestion question;
  question.ranks = options.ranks.empty() ? 0 : options.ranks[0];
  question.ports = options.ports;
  question.ts = options.ts;
  question.tw = options.tw;
  question.bytes = !options.bytes.empty()    ? double(options.bytes[0])
                   : options.block_alias > 0 ? options.block_alias
                                             : 1;
  question.bytes_default = options.bytes.empty() && options.block_alias == 0;
  const TableReport report = experiments::bruck_radix(question, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// "1..20" or "3,5,8" -> seeds.
std::vector<std::uint64_t> parse_seeds(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  const auto parse = [&](std::string_view word) {
    std::uint64_t seed = 0;
    const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), seed);
    if (word.empty() || error != std::errc() || end != word.data() + word.size())
      throw InputError("--seeds " + text + ": '" + std::string(word) + "' is not a seed");
    return seed;
  };
  if (const auto dots = text.find(".."); dots != std::string::npos) {
    const std::uint64_t first = parse(std::string_view(text).substr(0, dots)),
                        last = parse(std::string_view(text).substr(dots + 2));
    if (last < first || last - first >= 10000)
      throw InputError("--seeds " + text + ": 1 to 10000 seeds");
    for (std::uint64_t i = 0; i <= last - first; ++i)
      seeds.push_back(first + i);  // last may be 2^64 - 1
    return seeds;
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    seeds.push_back(parse(rest.substr(0, comma)));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
  }
  if (seeds.empty()) throw InputError("--seeds: give at least one seed");
  return seeds;
}

/// The algorithms of a comma-separated list, each checked before the first run (InputError with
/// "did you mean" for an unknown name).
std::vector<const schedules::Algorithm*> named_algorithms(std::string_view names) {
  std::vector<const schedules::Algorithm*> algorithms;
  while (!names.empty()) {
    const std::size_t comma = std::min(names.find(','), names.size());
    algorithms.push_back(&schedules::require_algorithm(names.substr(0, comma)));
    names.remove_prefix(std::min(comma + 1, names.size()));
  }
  return algorithms;
}

/// The Slim Fly paper's question: does randomizing the order lower the per-phase link load on
/// this network?
int whatif_congestion(const Options& options, reports::ReportFormat format, std::ostream& out) {
  if (options.topology.empty()) throw InputError("whatif congestion: give --topology");
  experiments::CongestionQuestion question;
  question.model = io::read_topology_file(options.topology);
  question.source = input_name(options.topology);
  question.seeds = parse_seeds(options.seeds);
  question.seeds_text = options.seeds;
  if (options.bytes.size() > 1) throw InputError("whatif congestion: one --bytes");
  if (!options.bytes.empty()) question.bytes = options.bytes[0];
  for (const schedules::Algorithm* a : named_algorithms(
           options.algorithms.empty() ? "shift,randomized-sendrecv" : options.algorithms))
    question.algorithms.emplace_back(a->name);
  const TableReport report = experiments::randomized_congestion(question, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// One row per machine of the family, with the algorithm's count, the lower bound and the
/// optimum Z3 proves.
int whatif_optimality(const Options& options, reports::ReportFormat format, std::ostream& out) {
  check_timeout(options.timeout);
  std::optional<TableReport> report;
  if (options.family == "kport") {
    experiments::KportOptimality tables =
        experiments::kport_optimality(options.max_ranks, options.timeout, terminal_stderr());
    if (format == reports::ReportFormat::text) {
      out << reports::kport_optimality_text(tables);
      return tables.report.verdict == verify::Verdict::pass ? 0 : 1;
    }
    report = std::move(tables.report);
  } else if (options.family == "tree") {
    report = experiments::tree_optimality(options.max_machines, options.timeout, terminal_stderr());
  } else {  // cluster: one_of admits cluster, tree or kport
    report = experiments::cluster_optimality(options.max_ranks, options.timeout, terminal_stderr());
  }
  out << reports::render(*report, format);
  return report->verdict == verify::Verdict::pass ? 0 : 1;
}

/// Faraj & Yuan, Figs. 6-8 simulated by SimGrid: completion times of our schedules and of
/// SimGrid's alltoall implementations per message size, and throughput plots (SVG) with the peak
/// bound.
int whatif_experiment(const Options& options, reports::ReportFormat format, std::ostream& out) {
  if (options.paper != "faraj-yuan")
    throw InputError("whatif experiment: --paper must be faraj-yuan (the one reproduced so far)");
  experiments::FarajYuanQuestion question;
  question.bandwidth = options.bandwidth;
  question.latency = options.latency;
  question.bytes_per_second = bandwidth_of(options.bandwidth);
  check_latency(options.latency);
  check_timeout(options.timeout);
  question.timeout = options.timeout;
  std::vector<std::string> files = options.topologies;
  if (files.empty())
    for (const char* name : {"faraj-yuan-24", "faraj-yuan-32-star", "faraj-yuan-32-chain"})
      files.push_back(std::string(PHASECHECK_EXAMPLES_DIR) + "/" + name + "/topology.json");
  question.sizes = options.bytes;
  for (const unsigned kb : options.message_kb) question.sizes.push_back(std::uint64_t{kb} * 1024);
  if (question.sizes.empty())
    for (const std::uint64_t kb : {8, 16, 32, 64, 128, 256}) question.sizes.push_back(kb * 1024);
  for (const std::uint64_t size : question.sizes)
    if (size < 1 || size > 64 * 1024 * 1024)
      throw InputError("whatif experiment: --bytes must be in [1, 64MiB], not " +
                       std::to_string(size));
  // Every machine is read and checked before the first (long) simulation, and so is every plot's
  // name: the machine's, "-throughput.svg".
  question.machines = experiments::read_experiment_machines(
      files, *std::max_element(question.sizes.begin(), question.sizes.end()));
  const auto plot = [&](const experiments::ExperimentMachine& machine) {
    return options.out_dir + "/" + machine.name + "-throughput.svg";
  };
  if (!options.out_dir.empty())
    for (const auto& machine : question.machines) check_output(plot(machine), files);
  // Text: one table per machine, sizes across, each as soon as it is done. JSON and CSV: one row
  // per machine, contender and size; milliseconds null where the run failed, with the reason in
  // "status".
  const bool text = format == reports::ReportFormat::text;
  if (text) out << reports::faraj_yuan_heading(question);
  const TableReport report = experiments::faraj_yuan_experiment(
      question, terminal_stderr(), [&](const experiments::FarajYuanMachine& done) {
        if (text) out << reports::faraj_yuan_machine_text(done);
        if (options.out_dir.empty()) return;
        const std::string svg = plot(done.machine);
        const Tree& tree = std::get<Tree>(done.machine.model);
        write_output(
            svg,
            [&](std::ostream& os) {
              os << reports::throughput_svg(
                  done.machine.name + ": " + describe(done.machine.model) + ", " +
                      options.bandwidth,
                  question.sizes, done.series,
                  tree.peak_throughput_factor() * question.bytes_per_second / 1e6);
            },
            files);
        if (text) out << "  plot: " << svg << "\n";
      });
  if (!text) out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// Issue 37's research question: the alltoallv algorithms' cost against the load bound on a
/// traffic matrix, or on MoE matrices from uniform to skewed expert popularity, with a plot.
int whatif_alltoallv(const Options& options, reports::ReportFormat format, std::ostream& out) {
  const bool file = !options.traffic.path.empty();
  if (file == options.moe)
    throw InputError("whatif alltoallv: give --traffic FILE or --moe, one of them");
  experiments::AlltoallvQuestion question;
  std::vector<std::string> inputs;
  if (!options.topology.empty()) {
    question.machine = io::read_topology_file(options.topology);
    question.machine_source = input_name(options.topology);
    inputs.push_back(options.topology);
  }
  if (file) {
    if (!options.ranks.empty() || !options.zipf.empty() || options.experts_per_rank ||
        options.top_k || options.tokens || options.hidden || options.dedup)
      throw InputError(
          "whatif alltoallv: --ranks, --zipf, --experts-per-rank, --top-k, "
          "--tokens, --hidden and --dedup describe a --moe family, not --traffic");
    if (!options.svg.empty())
      throw InputError("whatif alltoallv: --svg plots cost against the skew of a --moe family");
    question.traffic =
        experiments::GivenTraffic{input_name(options.traffic.path), options.traffic.read()};
    inputs.push_back(options.traffic.path);
  } else {
    if (options.traffic.element_bytes)
      throw InputError("whatif alltoallv: --element-bytes needs --traffic (--moe: --hidden)");
    experiments::MoeFamily family;
    family.ranks.assign(options.ranks.begin(), options.ranks.end());
    if (family.ranks.empty() && question.machine) family.ranks = {ranks(*question.machine)};
    if (family.ranks.empty())
      throw InputError("whatif alltoallv --moe: give --ranks (e.g. 8,64) or --topology");
    family.zipf = options.zipf.empty() ? std::vector<double>{0, 0.5, 1, 1.5} : options.zipf;
    family.experts_per_rank = options.experts_per_rank.value_or(family.experts_per_rank);
    family.top_k = options.top_k.value_or(family.top_k);
    family.tokens = options.tokens.value_or(family.tokens);
    family.hidden = options.hidden.value_or(family.hidden);
    family.seed = options.seed;
    family.dedup = options.dedup;
    question.traffic = std::move(family);
  }
  question.ports = options.ports;
  question.ts = options.ts;
  question.tw = options.tw;
  if (options.algorithms.empty()) {
    for (const schedules::Algorithm& a : schedules::algorithms())
      if (schedules::is_alltoallv(a)) question.algorithms.push_back(a);
  } else {
    for (const schedules::Algorithm* a : named_algorithms(options.algorithms))
      question.algorithms.push_back(*a);
  }
  // Every refusal before the first matrix is built.
  experiments::check_alltoallv_question(question);
  if (!options.svg.empty()) check_output(options.svg, inputs);
  const experiments::AlltoallvAnswer answer =
      experiments::alltoallv_costs(question, terminal_stderr());
  out << reports::render(answer.report, format);
  if (!options.svg.empty()) {
    write_output(
        options.svg,
        [&](std::ostream& os) {
          os << reports::cost_ratio_svg("alltoallv on MoE dispatch: cost / load bound, " +
                                            answer.report.facts["machine"].get<std::string>(),
                                        answer);
        },
        inputs);
    if (format == reports::ReportFormat::text) out << "plot: " << options.svg << "\n";
  }
  return answer.report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// A research table for a family of instances; exit 1 if any instance fails a check.
int run(const Options& options, const Streams& streams) {
  const reports::ReportFormat format = options.report;
  std::ostream& out = streams.out;
  if (options.question == "optimality") return whatif_optimality(options, format, out);
  if (options.question == "experiment") return whatif_experiment(options, format, out);
  if (options.question == "congestion") return whatif_congestion(options, format, out);
  if (options.question == "hierarchical-factor") return whatif_hierarchical(options, format, out);
  if (options.question == "cluster") return whatif_cluster(options, format, out);
  if (options.question == "bruck-index") return whatif_bruck_index(options, format, out);
  if (options.question == "alltoallv") return whatif_alltoallv(options, format, out);
  throw InputError(unknown_name("what-if question", options.question,
                                {"hierarchical-factor", "cluster", "bruck-index", "congestion",
                                 "optimality", "experiment", "alltoallv"}));
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.question}; }

constexpr CommandDefinition<Options> definition{
    .name = "whatif",
    .summary = "Research tables for a family of instances",
    .formats = reports::table_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command whatif_command;
const Command whatif_command = definition;

}  // namespace phasecheck::cli
