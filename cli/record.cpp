// `phasecheck record mpi|function [LIB.so:SYMBOL]`: an alltoall or allgather implementation run on
// real MPI processes over a space of cases, every run recorded and judged (record/sweep.hpp),
// rendered by report/record_report.hpp.

#include <charconv>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/limits.hpp"
#include "core/progress.hpp"
#include "record/open_mpi.hpp"
#include "record/sweep.hpp"
#include "report/record_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string source;    ///< mpi or function
  std::string function;  ///< LIB.so:SYMBOL
  std::string collective = "alltoall";
  std::string algorithm;  ///< a list of Open MPI algorithms, "all", or empty (unforced)
  std::string ranks = "2..8";
  std::string counts = "0,1,7";
  std::string types = "contiguous,strided,resized,different";
  std::string inplace = "no";
  double timeout = 60;
  std::string mpi_prefix;
  std::string output;  ///< -o DIR
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("source", options.source,
                 "mpi: the MPI library's own MPI_Alltoall/MPI_Allgather; function: your routine")
      ->required()
      ->check(one_of({"mpi", "function"}));
  app.add_option("function", options.function,
                 "function: LIB.so:SYMBOL, a routine with MPI_Alltoall's or MPI_Allgather's "
                 "signature");
  app.add_option("--collective", options.collective, "alltoall or allgather (default alltoall)")
      ->check(one_of({"alltoall", "allgather"}));
  app.add_option("--algorithm", options.algorithm,
                 "mpi: Open MPI algorithms by number or name, comma-separated, or all (default: "
                 "the library's own choice)");
  app.add_option("--ranks", options.ranks, "Rank counts: 2..16, 4, or 2,3,5 (default 2..8)");
  app.add_option("--counts", options.counts, "Elements per block, comma-separated (default 0,1,7)");
  app.add_option("--types", options.types,
                 "contiguous, strided, resized, different, comma-separated (default: all four)");
  app.add_option("--in-place", options.inplace, "no, yes or both (default no)")
      ->check(one_of({"no", "yes", "both"}));
  app.add_option("--timeout", options.timeout, "Seconds one case may take (default 60)");
  app.add_option("--mpi-prefix", options.mpi_prefix,
                 "Another Open MPI 4.1 installation to record (its bin/mpirun and lib/)");
  app.add_option("-o,--output", options.output,
                 "Keep each case's recorded schedule and the failing cases' replay commands here");
  app.add_option("--report", options.report, "text, json or junit");
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::uint64_t number(const std::string& text, const char* option, std::uint64_t max) {
  std::uint64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || v > max)
    throw InputError(std::string(option) + ": \"" + text_escape(text) +
                     "\" is not a number from 0 to " + std::to_string(max));
  return v;
}

std::vector<Rank> rank_list(const std::string& text) {
  constexpr std::uint64_t kMax = record::kMaxRunRanks;
  std::vector<Rank> out;
  for (const std::string& item : split(text)) {
    const std::size_t dots = item.find("..");
    const std::uint64_t lo = number(item.substr(0, dots), "--ranks", kMax);
    const std::uint64_t hi =
        dots == std::string::npos ? lo : number(item.substr(dots + 2), "--ranks", kMax);
    if (lo == 0 || hi < lo)
      throw InputError("--ranks: \"" + text_escape(item) + "\" is not a range of rank counts from 1");
    for (std::uint64_t p = lo; p <= hi; ++p) out.push_back(static_cast<Rank>(p));
  }
  return out;
}

std::string replay_command(const Options& o, const std::string& algorithm, Rank p,
                           std::uint32_t count, record::Types types, bool inplace) {
  std::string c = "phasecheck record " + o.source;
  if (o.source == "function") c += " " + shell_word(o.function);
  c += " --collective " + o.collective;
  if (o.source == "mpi" && !algorithm.empty()) c += " --algorithm " + algorithm;
  c += " --ranks " + std::to_string(p) + " --counts " + std::to_string(count) + " --types " +
       std::string(record::to_string(types)) + " --in-place " + (inplace ? "yes" : "no");
  if (!o.mpi_prefix.empty()) c += " --mpi-prefix " + shell_word(o.mpi_prefix);
  return c;
}

int run(const Options& options, const Streams& streams) {
  check_timeout(options.timeout);
  record::SweepSpec spec;
  spec.collective = parse_collective(options.collective);
  if (options.source == "function") {
    if (options.function.empty()) throw InputError("record function needs LIB.so:SYMBOL");
    if (!options.algorithm.empty())
      throw InputError("--algorithm chooses among Open MPI's algorithms: it goes with record mpi");
    spec.level = record::Level::pmpi;
    spec.function = options.function;
  } else {
    if (!options.function.empty())
      throw InputError("record mpi takes no LIB.so:SYMBOL (that is record function)");
    if (options.algorithm == "all") {
      for (const record::OmpiAlgorithm& a : record::ompi_algorithms(spec.collective))
        spec.algorithms.emplace_back(a.name);
    } else if (!options.algorithm.empty()) {
      spec.algorithms = split(options.algorithm);
      for (const std::string& a : spec.algorithms) record::find_ompi_algorithm(spec.collective, a);
    }
  }
  spec.ranks = rank_list(options.ranks);
  for (const std::string& c : split(options.counts))
    spec.counts.push_back(
        static_cast<std::uint32_t>(number(c, "--counts", record::kMaxRecordedCount)));
  for (const std::string& t : split(options.types)) spec.types.push_back(record::parse_types(t));
  if (options.inplace != "yes") spec.inplace.push_back(false);
  if (options.inplace != "no") spec.inplace.push_back(true);
  spec.timeout = options.timeout;
  spec.mpi_prefix = options.mpi_prefix;
  spec.keep = options.output;
  spec.replay = [&](const std::string& algorithm, Rank p, std::uint32_t count, record::Types t,
                    bool inplace) { return replay_command(options, algorithm, p, count, t, inplace); };
  spec.progress = terminal_stderr();
  const record::Sweep sweep = record::sweep(spec);
  streams.out << reports::render_record(sweep, options.report);
  return sweep.verdict() == Verdict::fail || sweep.verdict() == Verdict::unknown ? 1 : 0;
}

ErrorReport error_report(const Options& options) {
  return {options.report, "", options.source == "function" ? options.function : "record mpi"};
}

constexpr CommandDefinition<Options> definition{
    .name = "record",
    .summary =
        "Run an MPI library's own alltoall/allgather (mpi) or your routine (function) on real "
        "processes over ranks x counts x types x in place, record every message, and judge "
        "each run: placement, exactly-once, the phase table, deadlock with no buffering, "
        "buffer lifetime",
    .formats = reports::record_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command record_command;
const Command record_command = definition;

}  // namespace phasecheck::cli
