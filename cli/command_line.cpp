// The command line: every subcommand's options (CLI11) and the table from subcommand to the
// function in cli/commands.hpp that runs it. The only translation unit that includes CLI11.

#include "cli/command_line.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <utility>

#include "ci/comparison.hpp"
#include "cli/commands.hpp"
#include "cli/deploy.hpp"
#include "cli/draw.hpp"
#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/suggest.hpp"
#include "distributed/processes.hpp"
#include "fuzz.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::cli {

namespace {

/// CLI::IsMember with "did you mean": "--mode: unknown value 'forwardin'; did you mean
/// 'forwarding'? (known: direct, forwarding)".
CLI::Validator one_of(std::vector<std::string> names) {
  std::string description;
  for (const std::string& n : names) description += (description.empty() ? "{" : ",") + n;
  return CLI::Validator(
      [names](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        return unknown_name("value", value, names);
      },
      description + "}");
}

/// A byte count as every size option takes it: 4096, 4KiB, 1MiB, 1m (binary units, CLI11's
/// AsSizeValue); a sign or a fraction is refused (CLI11 alone reads "-1" as 2^64 - 1).
void bytes_option(CLI::Option* o) {
  o
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text.empty() || text[0] < '0' || text[0] > '9')
              return "'" + text + "' is not a size in bytes (4096, 4KiB, 1MiB)";
            std::uint64_t number = 0;  // the digits before a unit must fit, too
            if (std::from_chars(text.data(), text.data() + text.size(), number).ec != std::errc())
              return "'" + text + "' is too large";
            return {};
          },
          ""))
      ->transform(CLI::AsSizeValue(false).description(""))
      ->type_name("BYTES");
}

/// Old spellings of renamed options live in this group, which help does not show. (CLI11's
/// own hidden group, "", also drops the option's name from its error messages.)
constexpr const char* renamed_group = "Renamed options";

/// Help without the renamed options (docs/cli.md, "Renamed options").
class Formatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional,
                         std::vector<const CLI::Option*> opts) const override {
    if (group == renamed_group) return {};
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
};

/// The old spelling of an option, kept out of help for one release.
CLI::Option* old_spelling(CLI::Option* o) { return o->group(renamed_group); }

/// The long option names of a command ("--topology", ...), for "did you mean".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* o : app.get_options())
    if (o->get_group() != renamed_group)
      for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
  return names;
}

/// A message naming the closest command or option for a misspelled one, or "" when CLI11's own
/// message is the better one.
std::string suggestion(const CLI::App& app, const CLI::ParseError& e, int argc,
                       const char* const* argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(sub->get_name());
  const CLI::App* active = nullptr;
  for (const CLI::App* sub : app.get_subcommands()) active = sub;
  if (!active) {  // no command recognised: the first word that is not an option is the typo
    for (int i = 1; i < argc; ++i) {
      const std::string_view word = argv[i];
      if (word.starts_with("-")) {
        if (word.find('=') == std::string_view::npos && i + 1 < argc &&
            !std::string_view(argv[i + 1]).starts_with("-") && word.starts_with("--max-"))
          ++i;  // a global limit's value
        continue;
      }
      return unknown_name("command", word, commands);
    }
    return {};
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) return {};
  std::string out;
  const std::vector<std::string> names = option_names(*active);
  // Unknown words of a command reach the top level, which refuses them.
  for (const std::string& extra : app.remaining(true)) {
    if (!extra.starts_with("-")) continue;
    const std::string flag = extra.substr(0, extra.find('='));
    out += (out.empty() ? "" : "\n") +
           unknown_name("option", flag, names).insert(0, active->get_name() + ": ");
  }
  return out;
}

}  // namespace

struct CommandLine::Impl {
  std::unique_ptr<CLI::App> app;
  Limits limits;
  OutputSettings output;
  std::string alg_report = "text";  // algorithms --report
  GenerateArgs gen;
  VerifyArgs ver;
  CheckArgs chk;
  CostArgs cst;
  SyncArgs syn;
  RunArgs rn;
  SimulateArgs sim;
  DiffArgs dif;
  GateArgs gat;
  ImportArgs imp;
  ExportArgs ex;
  DeployArgs dep;
  LintArgs lnt;
  ProgramArgs prg;
  CongestionArgs con;
  TopologyArgs top;
  properties::FuzzOptions fz;
  std::string fuzz_report = "text";
  OptimalArgs opt;
  MutateArgs mut;
  BoundsArgs bnd;
  SurveyArgs srv;
  WhatIfArgs what;
  DrawArgs drw;
  /// Each subcommand with the function that runs it.
  std::vector<std::pair<CLI::App*, std::function<int(std::ostream&, std::ostream&)>>> commands_;
  /// Where a command with --report writes it: an error before the report still produces one, in
  /// the requested format (reports::render_error), so a CI system shows the failure.
  struct ReportTarget {
    const std::string* format;
    const std::string* output;  ///< nullptr: the command writes its report to standard output
    std::function<std::string()> source;
    std::vector<std::string> inputs() const {
      const std::string s = source();
      return s.empty() || s == "-" ? std::vector<std::string>{} : std::vector<std::string>{s};
    }
  };
  std::map<const CLI::App*, ReportTarget> reports_;
  /// Old spellings kept for one release, with their new names: using one prints a note.
  std::vector<std::pair<const CLI::Option*, std::string>> renamed_;
  /// The message on standard error, and the requested report saying so.
  void report_error(const std::string& message, std::ostream& out, std::ostream& err) const;

  Impl() {
    // CLI11 2.1 reads unsigned options with strtoull: "-1" becomes 2^64 - 1, "0x10" is 16 and an
    // overflow becomes the maximum, silently. Every unsigned option is checked as text first.
    const CLI::Validator natural(
        [](std::string& text) -> std::string {
          std::uint64_t value = 0;
          const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
          if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
            return "'" + text + "' is not a non-negative integer";
          if (error != std::errc() || end != text.data() + text.size())
            return "'" + text + "' is too large";
          return {};
        },
        "N");
    app = std::make_unique<CLI::App>(
        "phasecheck: generate and formally check all-to-all communication schedules.\n"
        "Exit codes: 0 pass (every check that applies passed; one that does not apply is shown "
        "as n/a), 1 a check failed or could not decide, or nothing was checked, 2 bad input or "
        "usage, 3 internal error.\n"
        "Any file argument may be - for standard input (one per command), and any -o - for "
        "standard output.");
    app->formatter(std::make_shared<Formatter>());
    app->require_subcommand(1);
    app->set_version_flag("--version", "phasecheck 0.1.0");
    // Limits of every command (core/limits.hpp, docs/limits.md), given before or after it.
    app->fallthrough();
    app->add_option("--max-input-size", limits.max_input_bytes,
                    "Largest input file read, in bytes (suffixes k, m, g; default 1g)")
        ->transform(CLI::AsSizeValue(false))
        ->envname("PHASECHECK_MAX_INPUT_SIZE");
    app->add_option("--max-memory", limits.max_memory_bytes,
                    "Most memory the state sized by an input may take, in bytes (suffixes k, m, "
                    "g; default a quarter of physical memory)")
        ->transform(CLI::AsSizeValue(false))
        ->envname("PHASECHECK_MAX_MEMORY");
    app->add_flag("--follow-output-links", output.follow_links,
                  "Write through a symbolic link in the current directory that leads out of it "
                  "(refused by default: docs/limits.md, Outputs)")
        ->envname("PHASECHECK_FOLLOW_OUTPUT_LINKS");

    auto* algorithms = app->add_subcommand("algorithms", "List the registered algorithms");
    algorithms
        ->add_option("--report", alg_report, "text (default), json (every parameter typed) or csv")
        ->check(one_of({"text", "json", "csv"}));

    auto* generate = app->add_subcommand("generate", "Generate a schedule as JSON");
    generate->add_option("algorithm", gen.algorithm, "Algorithm name (see `algorithms`)")
        ->required();
    generate->add_option("--topology", gen.topology, "Topology JSON file")->required();
    generate->add_option("--set", gen.set, "Algorithm parameter key=value (repeatable)");
    generate->add_option("-o,--output", gen.output, "Output file (default: standard output)");
    generate
        ->add_option("--format", gen.format,
                     "json (default) or binary: the compact stream (docs/formats.md), phase tables")
        ->check(one_of({"json", "binary"}));
    generate->add_flag("--buffers", gen.buffers,
                       "Write the buffer program (format 3: where every chunk lands)");

    auto* verify =
        app->add_subcommand("verify", "Check a schedule: delivery, contention, invariants, bounds");
    verify->add_option("schedule", ver.schedule, "Schedule JSON file (- for standard input)")
        ->required();
    verify->add_option("--topology", ver.topology,
                       "Judge on this model instead of the schedule's own (a what-if)");
    verify->add_option("--report", ver.report, "Report format")
        ->check(one_of({"text", "json", "junit"}));
    verify->add_option("-o,--output", ver.output, "Write the report to this file");
    verify
        ->add_option("--threads", ver.threads,
                     "Checking threads (default: the machine's cores; 1 checks as it reads)")
        ->check(natural);
    verify->add_option("--svg", ver.svg,
                       "Draw the first failure's offending phase, its conflicting transfers and "
                       "the shared link, node or port, as SVG (docs/draw.md); nothing is written "
                       "when no failure lies in a phase");

    auto* draw = app->add_subcommand(
        "draw",
        "Draw a schedule as SVG: the phase table as a grid (ranks x phases, coloured by partner "
        "distance; binned above 256), or with --links the link-load heat map of a routed machine "
        "with its bottleneck link (docs/draw.md)");
    draw->add_option("schedule", drw.schedule, "Schedule file (- for standard input)")->required();
    draw->add_option("-o,--output", drw.output, "The SVG file (- for standard output)")->required();
    draw->add_flag("--links", drw.links,
                   "The link-load heat map (directed links x phases) instead of the phase grid");

    auto* check = app->add_subcommand(
        "check",
        "Generate and verify a registered algorithm in one pass, the schedule never in memory: "
        "the report `generate | verify` gives");
    check->add_option("algorithm", chk.algorithm, "Algorithm name (see `algorithms`)")->required();
    check->add_option("--topology", chk.topology, "Topology JSON file (- for standard input)")
        ->required();
    check->add_option("--set", chk.set, "Algorithm parameter key=value (repeatable)");
    check->add_option("--report", chk.report, "Report format")
        ->check(one_of({"text", "json", "junit"}));
    check->add_option("-o,--output", chk.output, "Write the report to this file");
    check
        ->add_option("--threads", chk.threads,
                     "Checking threads (default: the machine's cores; 1 checks as it generates)")
        ->check(natural);

    auto* cost = app->add_subcommand(
        "cost",
        "Time of a schedule under the linear model t_s + t_w m x per phase, next to the "
        "algorithm's closed forms (Grama et al. Eq. 4.7-4.10) and the model's bound");
    cost->add_option("schedule", cst.schedule, "Schedule JSON file (- for standard input)")
        ->required();
    cost->add_option("--ts", cst.ts, "Start-up time per message, seconds (e.g. 10e-6)")->required();
    cost->add_option("--tw", cst.tw, "Transfer time per byte, seconds (e.g. 1e-9)")->required();
    bytes_option(cost->add_option(
        "--bytes", cst.bytes, "Message (block) size in bytes, m of the model: 4096, 4KiB, 1MiB"));
    renamed_.push_back(
        {old_spelling(cost->add_option("--m", cst.m_alias, "Old name of --bytes")), "--bytes"});
    cost->add_option("--topology", cst.topology,
                     "Judge on this model instead of the schedule's own");
    cost->add_option("--report", cst.report, "Report format")->check(one_of({"text", "json"}));
    cost->add_option("-o,--output", cst.output, "Write the report to this file");

    auto* sync = app->add_subcommand(
        "sync",
        "Pair-wise synchronization of a schedule (Faraj & Yuan, Section 5), reduced and checked");
    sync->add_option("schedule", syn.schedule, "Schedule JSON file")->required();
    sync->add_option("--topology", syn.topology,
                     "Judge on this model instead of the schedule's own");
    sync->add_flag("--list", syn.list, "Print every synchronization message");
    sync->add_option("--report", syn.report, "Report format")->check(one_of({"text", "json"}));

    auto* run = app->add_subcommand(
        "run",
        "Execute a schedule's per-rank programs with MPI on this machine (Open MPI, mpirun) and "
        "check every byte; time it against the library's own collective");
    run->add_option("schedule", rn.schedule, "Schedule JSON file")->required();
    run->add_option("--np", rn.np, "Number of MPI processes (default: the schedule's ranks)")
        ->check(natural);
    bytes_option(
        run->add_option("--bytes", rn.bytes, "Bytes per message: 4096, 4KiB, 1MiB (default 1KiB)"));
    run->add_option("--sync", rn.sync, "Phase separation (default barrier)")
        ->check(one_of({"none", "barrier", "pairwise"}));
    run->add_option("--repeats", rn.repeats, "Calls to time; the median is reported (default 5)")
        ->check(natural);
    run->add_option("--timeout", rn.timeout, "Seconds before mpirun is stopped (default 300)");
    run->add_option("--report", rn.report, "Report format")->check(one_of({"text", "json"}));

    auto* simulate = app->add_subcommand(
        "simulate",
        "Execute a schedule's per-rank programs under SimGrid (smpirun) on a simulated network "
        "built from a tree topology; simulated time and aggregate throughput vs the peak bound");
    simulate->add_option("schedule", sim.schedule, "Schedule JSON file")->required();
    simulate->add_option("--topology", sim.topology, "Tree topology JSON file (the network)")
        ->required();
    simulate->add_option("--bandwidth", sim.bandwidth, "Link bandwidth (default 100Mbps)");
    simulate->add_option("--latency", sim.latency, "Link latency (default 10us)");
    bytes_option(simulate->add_option("--bytes", sim.bytes,
                                      "Bytes per message: 4096, 4KiB, 1MiB (default 64KiB)"));
    simulate->add_option("--sync", sim.sync, "Phase separation (default barrier)")
        ->check(one_of({"none", "barrier", "pairwise"}));
    simulate->add_option("--library", sim.library,
                         "SimGrid's alltoall to compare with (basic_linear, pair, ring, bruck, "
                         "ompi, mpich, ...; default: SimGrid's default)");
    simulate->add_option("--repeats", sim.repeats, "Calls to time (default 3)")->check(natural);
    simulate->add_option("--timeout", sim.timeout,
                         "Seconds before smpirun is stopped (default 600)");
    simulate->add_option("--trace", sim.trace,
                         "Write SimGrid's Paje trace, internal messages of collectives included, "
                         "to this file (see `import simgrid-trace`)");
    simulate->add_option("--report", sim.report, "Report format")->check(one_of({"text", "json"}));

    auto* diff = app->add_subcommand(
        "diff",
        "What a change did to a schedule: checks, phases, C1, C2 and the gap, before and after");
    diff->add_option("before", dif.before, "The accepted schedule (JSON)")->required();
    diff->add_option("after", dif.after, "The changed schedule (JSON)")->required();
    diff->add_option("--topology", dif.topology, "Judge both on this model instead of their own");
    // The report formats and the regressions --allow may lift (ci/comparison.hpp, docs/ci.md).
    const std::vector<std::string> diff_formats = {"text", "json", "markdown", "junit"};
    const std::vector<std::string> allowable = ci::allowable_regressions();
    diff->add_option("--report", dif.report,
                     "text, json, markdown (a pull-request comment) or junit")
        ->check(one_of(diff_formats));
    diff->add_option("--allow", dif.allow,
                     "Regressions that do not fail: more-phases, larger-c1, larger-c2, larger-gap")
        ->delimiter(',')
        ->check(one_of(allowable));

    auto* gate = app->add_subcommand(
        "gate", "Regenerate every case of a manifest and diff it against its accepted baseline");
    gate->add_option("manifest", gat.manifest, "Gate manifest (docs/ci.md)")->required();
    gate->add_option("--report", gat.report, "text, json, markdown or junit")
        ->check(one_of(diff_formats));
    gate->add_option("--allow", gat.allow, "Regressions that do not fail (see diff)")
        ->delimiter(',')
        ->check(one_of(allowable));
    gate->add_option("--timeout", gat.timeout,
                     "Seconds for one run of a case's external generator (default 300)");
    gate->add_flag("--update", gat.update,
                   "Rewrite the baselines with what the cases give now (after an improvement)");
    gate->add_option("--allow-outside", gat.allow_outside,
                     "A directory outside the manifest's own that its paths may lead into "
                     "(repeatable)")
        ->type_name("DIR");
    gate->add_flag("--no-generators", gat.no_generators,
                   "Refuse the manifest's generator cases before any case runs (pull requests)");

    auto* import = app->add_subcommand(
        "import",
        "Turn a SimGrid Paje trace of a collective into a phase table (pattern level: who sends "
        "to whom, in which step of each rank), or an MSCCL XML program into a format-3 buffer "
        "program");
    import->add_option("format", imp.format, "simgrid-trace or msccl")
        ->required()
        ->check(one_of({"simgrid-trace", "msccl"}));
    import
        ->add_option("file", imp.file,
                     "Paje trace (smpirun --cfg=tracing:yes ...), or MSCCL XML (- for standard "
                     "input)")
        ->required();
    import->add_option("--topology", imp.topology,
                       "The machine to judge the table on (default: fully-connected, 1 port)");
    import->add_option("--state", imp.state, "The collective's state (default PMPI_Alltoall)");
    import->add_option("--call", imp.call, "Which call of it, from 0 (default 0)")->check(natural);
    import->add_option("--collective", imp.collective, "alltoall or allgather")
        ->check(one_of({"alltoall", "allgather"}));
    import->add_option("-o,--output", imp.output,
                       "Write the table here (default: standard output)");
    import->add_option("--report", imp.report, "What was imported, with -o: text or json")
        ->check(one_of({"text", "json"}));

    auto* exp = app->add_subcommand(
        "export",
        "Write a verified schedule (any version, or MSCCL XML) as MSCCL XML for msccl-tools, RCCL "
        "and NCCL's MSCCL runtime; refuses one that fails verification");
    exp->add_option("format", ex.format, "msccl")->required()->check(one_of({"msccl"}));
    exp->add_option("schedule", ex.schedule, "Schedule file (- for standard input)")->required();
    exp->add_option("-o,--output", ex.output, "Write the XML here (default: standard output)");
    exp->add_option("--report", ex.report, "What was exported or why not, with -o: text or json")
        ->check(one_of({"text", "json"}));
    exp->add_option("--name", ex.name, "The algo's name (default: the schedule's algorithm)");
    exp->add_option("--proto", ex.protocol, "Simple (default), LL or LL128")
        ->check(one_of({"Simple", "LL", "LL128"}));
    exp->add_option("--channels", ex.channels,
                    "Spread each pair's ops over this many channels (default 1)")
        ->check(natural);
    bytes_option(
        exp->add_option("--min-bytes", ex.min_bytes, "Smallest call size it serves (default 0)"));
    bytes_option(exp->add_option("--max-bytes", ex.max_bytes,
                                 "Largest call size it serves (default 0: any)"));

    auto* deploy = app->add_subcommand(
        "deploy",
        "Verify schedules and build a PMPI interposer of MPI_Alltoall and MPI_Allgather that "
        "unmodified MPI programs run with LD_PRELOAD, or with --emit-c their C routines");
    deploy->add_option("schedules", dep.schedules, "Schedule files (- for standard input)")
        ->required();
    deploy
        ->add_option(
            "-o,--output", dep.output,
            "The shared library (LIB.so); with --emit-c the C file (- for standard output)")
        ->required();
    deploy->add_flag("--emit-c", dep.emit_c,
                     "Write one C99 function per schedule (phasecheck_<name>_alltoall) instead");
    deploy
        ->add_option("--sync", dep.sync,
                     "Phase separation (default auto: pairwise on a routed model, none on a fully "
                     "connected one, barrier otherwise)")
        ->check(one_of({"auto", "none", "barrier", "pairwise"}));
    deploy->add_option("--mpicc", dep.mpicc, "The MPI C compiler (default mpicc)");
    deploy->add_option("--timeout", dep.timeout, "Seconds before mpicc is stopped (default 300)");
    deploy->add_option("--report", dep.report, "What was verified and written: text or json")
        ->check(one_of({"text", "json"}));

    auto* lint = app->add_subcommand(
        "lint",
        "What a runtime silently ignores in MSCCL XML files: missing or inverted size ranges, "
        "nchunksperloop, channels, unused threadblocks, RCCL's limits; across the files, sizes "
        "two files both claim (error) or none claims (warning)");
    lint->add_option("format", lnt.format, "msccl")->required()->check(one_of({"msccl"}));
    lint->add_option("files", lnt.files, "MSCCL XML files (- for standard input)")->required();
    lint->add_option("--report", lnt.report, "text (default), json or junit")
        ->check(one_of({"text", "json", "junit"}));
    lint->add_option("-o,--output", lnt.output, "Write the report here (default: standard output)");

    auto* program = app->add_subcommand(
        "program",
        "Per-rank programs of a schedule (sends, receives, synchronizations), replayed "
        "together to prove they realize it without deadlock or contention");
    program->add_option("schedule", prg.schedule, "Schedule JSON file")->required();
    program->add_option("--rank", prg.ranks, "Print this rank's program (repeatable)")
        ->check(natural);
    program->add_option("--sync", prg.sync, "Phase separation")
        ->check(one_of({"none", "barrier", "pairwise"}));
    program->add_option("--report", prg.report, "Report format")->check(one_of({"text", "json"}));
    program->add_option("-o,--output", prg.output,
                        "Write every rank's program as JSON to this file");

    auto* congestion = app->add_subcommand(
        "congestion", "Link loads per phase on a routed machine (graph, tree, ...) and their sum");
    congestion->add_option("schedule", con.schedule, "Schedule JSON file")->required();
    congestion->add_option("--topology", con.topology, "Measure on this model instead");
    congestion->add_flag("--phases", con.phases, "Print every phase");
    congestion->add_option("--report", con.report, "text (default), json, or csv (with --phases)")
        ->check(one_of({"text", "json", "csv"}));

    auto* topology = app->add_subcommand(
        "topology",
        "Write a built machine as a topology file: a model (tree, fat-tree, cluster, "
        "fully-connected, hypercube, mesh, ring), a low-diameter network (slimfly, dragonfly) or "
        "a GPU machine (xgmi, nvswitch, dgx1, gpu-cluster); docs/models.md");
    std::string kinds_help;
    for (const NetworkKind& k : network_kinds())
      kinds_help += "\n  " + std::string(k.name) + ": " + std::string(k.summary);
    topology->add_option("kind", top.kind, "The machine:" + kinds_help)
        ->required()
        ->check(one_of(topology_kinds()));
    NetworkOptions& net = top.options;
    topology->add_option("--fanout", net.fanout,
                         "tree: nodes below each switch, level by level from the root, e.g. 8,4");
    topology->add_option("--k", net.k, "fat-tree: the switches' port count k (even)")
        ->check(natural);
    topology->add_option("--sizes", net.sizes, "cluster: the nodes' sizes, e.g. 8,8,4,1");
    topology->add_option("--ranks", net.ranks, "fully-connected, ring: the ranks")->check(natural);
    topology->add_option("--ports", net.ports, "fully-connected: ports per rank")->check(natural);
    topology->add_option("--dimension", net.dimension, "hypercube: the dimension d (2^d ranks)")
        ->check(natural);
    topology->add_option("--rows", net.rows, "mesh: rows")->check(natural);
    topology->add_option("--cols", net.cols, "mesh: columns")->check(natural);
    topology->add_flag("--wraparound", net.wraparound, "mesh: a torus");
    topology->add_option("--q", net.q, "slimfly: the prime q (2q^2 routers, default 5)")
        ->check(natural);
    topology
        ->add_option("--concentration", net.concentration,
                     "slimfly: hosts per router (default ceil(degree/2))")
        ->check(natural);
    topology->add_option("--a", net.a, "dragonfly: routers per group (default 4)")->check(natural);
    topology->add_option("--h", net.h, "dragonfly: global links per router (default 2)")
        ->check(natural);
    topology->add_option("--p", net.p, "dragonfly: hosts per router (default 2)")->check(natural);
    topology
        ->add_option("--gpus", net.gpus,
                     "xgmi, nvswitch: the gpus (default 8); gpu-cluster: gpus per node")
        ->check(natural);
    topology->add_option("--nodes", net.nodes, "gpu-cluster: nodes (default 2)")->check(natural);
    topology
        ->add_option("--nics", net.nics,
                     "gpu-cluster: each node's links to the network switch (default 1)")
        ->check(natural);
    topology->add_option("-o,--output", top.output, "Output file (default: standard output)");

    auto* fuzz = app->add_subcommand(
        "fuzz",
        "Property-based fuzzing of registered algorithms (or an external generator) on "
        "random machines; a failure is shrunk and written out for replay");
    fuzz->add_option("algorithms", fz.algorithms, "Registered algorithms (default: all)");
    fuzz->add_option("--cases", fz.cases, "Cases per algorithm (per batch with --seconds)")
        ->check(natural);
    fuzz->add_option("--seconds", fz.seconds, "Keep running batches for this long");
    fuzz->add_option("--seed", fz.seed, "First seed (same seed, same cases)")->check(natural);
    fuzz->add_option("--max-size", fz.max_size,
                     "How large generated machines get (rapidcheck size)");
    fuzz->add_option("--out", fz.out, "Directory for a failure's files");
    fuzz->add_option("--report", fuzz_report, "Report format")->check(one_of({"text", "json"}));
    fuzz->add_option("--generator", fz.generator,
                     "External generator: a command reading a topology on stdin, printing a "
                     "schedule (exit 2: machine not supported)");
    fuzz->add_option("--generator-timeout", fz.generator_timeout,
                     "With --generator: seconds for one run of it (default 60)");
    fuzz->add_flag("--contention-free", fz.contention_free,
                   "With --generator: also require contention-freedom");

    auto* optimal = app->add_subcommand(
        "optimal",
        "Minimal phases of a direct schedule on a machine, proven with Z3 (SAT witness "
        "verified, UNSAT below it), or unknown on a timeout");
    optimal->add_option("--topology", opt.topology, "Topology JSON file (at most 12 ranks)")
        ->required();
    optimal->add_option("--collective", opt.collective, "alltoall or allgather")
        ->check(one_of({"alltoall", "allgather"}));
    optimal->add_option("--timeout", opt.timeout, "Seconds per solver call (default 60)");
    optimal->add_option("--report", opt.report, "Report format")->check(one_of({"text", "json"}));
    optimal
        ->add_option("--mode", opt.mode,
                     "direct (each message straight to its destination) or forwarding (k-port, "
                     "blocks relayed: the (C1, C2) Pareto frontier)")
        ->check(one_of({"direct", "forwarding"}));
    optimal
        ->add_option("--symmetry", opt.symmetry,
                     "clique (default), first or none: which messages to fix to phases")
        ->check(one_of({"clique", "first", "none"}));
    optimal
        ->add_option("--encoding", opt.encoding,
                     "cardinality (default) or pairwise at-most-one constraints")
        ->check(one_of({"cardinality", "pairwise"}));
    optimal
        ->add_option("--max-transfer", opt.max_transfer,
                     "forwarding: at most this many blocks per transfer (default no limit)")
        ->check(natural);
    optimal->add_option("--smt2", opt.smt2, "Write the instance as SMT-LIB2 to this file");
    optimal->add_option("-o,--output", opt.output, "Write the optimal schedule to this file");

    auto* mutate = app->add_subcommand(
        "mutate",
        "Plant single faults in a schedule and check that the checkers catch every "
        "invalid mutant (confirmed by a naive re-simulation)");
    mutate->add_option("schedule", mut.schedule, "Schedule JSON file")->required();
    mutate->add_option("--topology", mut.topology, "Judge on this model instead");
    mutate->add_option("--per-class", mut.per_class, "Mutants per fault class")->check(natural);
    mutate->add_option("--seed", mut.seed, "Seed for choosing the faults")->check(natural);
    mutate->add_option("--report", mut.report, "Report format")->check(one_of({"text", "json"}));

    auto* bounds = app->add_subcommand("bounds", "Print the lower bounds of a machine model");
    bounds->add_option("--topology", bnd.topology, "Topology JSON file")->required();
    bounds->add_option("--collective", bnd.collective, "alltoall or allgather")
        ->check(one_of({"alltoall", "allgather"}));
    bounds->add_option("--bandwidth", bnd.bandwidth,
                       "Link bandwidth B in bytes/s: a tree's peak aggregate throughput bound");
    bounds->add_option("--report", bnd.report, "text (default), json or csv")
        ->check(one_of({"text", "json", "csv"}));

    auto* survey = app->add_subcommand(
        "survey", "Generate and verify every algorithm on each topology; print a table");
    survey->add_option("topologies", srv.topologies, "Topology JSON files")->required();
    survey->add_option("--report", srv.report, "text (default), json or csv")
        ->check(one_of({"text", "json", "csv"}));

    auto* whatif = app->add_subcommand("whatif", "Research tables for a family of instances");
    whatif
        ->add_option("question", what.question,
                     "hierarchical-factor, cluster, bruck-index, congestion, optimality or "
                     "experiment")
        ->required();
    whatif->add_option("--report", what.report, "Report format (csv: the table)")
        ->check(one_of({"text", "json", "csv"}));
    whatif->add_option("--sizes", what.sizes, "Node sizes of a cluster, e.g. 8,8,4,1 (repeatable)");
    whatif->add_option("--sizes-file", what.sizes_file, "File with one size vector per line");
    whatif
        ->add_option("--random", what.random,
                     "cluster: this many random clusters of 2..--max-ranks ranks (at most 1024)")
        ->check(natural);
    whatif->add_option("--seed", what.seed, "cluster: the seed of --random (default 1)");
    whatif->add_option("--ranks", what.ranks, "bruck-index: processors n")->check(natural);
    whatif->add_option("--ports", what.ports, "bruck-index: ports k")->check(natural);
    whatif->add_option("--ts", what.ts, "bruck-index: start-up time per message, seconds");
    whatif->add_option("--tw", what.tw, "bruck-index: transfer time per byte, seconds");
    renamed_.push_back(
        {old_spelling(whatif->add_option("--block", what.block_alias, "Old name of --bytes")),
         "--bytes"});
    whatif->add_option("--topology", what.topology, "congestion: the machine (a routed topology)");
    whatif->add_option("--algorithms", what.algorithms, "congestion: algorithms, comma-separated");
    whatif->add_option("--seeds", what.seeds, "congestion: seeds, 1..20 or 3,5,8");
    whatif
        ->add_option("--family", what.family,
                     "optimality: cluster (every node-size vector), tree (every tree shape) or "
                     "kport (every n and k, forwarding frontier)")
        ->check(one_of({"cluster", "tree", "kport"}));
    whatif
        ->add_option("--max-ranks", what.max_ranks,
                     "optimality: clusters (<= 12) or k-port machines (<= 8) up to this many ranks; "
                     "cluster: every cluster (<= 20) or --random ones (<= 1024) up to this many")
        ->check(natural);
    whatif
        ->add_option("--max-machines", what.max_machines,
                     "optimality: trees up to this many machines (<= 10)")
        ->check(natural);
    whatif->add_option("--timeout", what.timeout, "optimality: seconds per solver call");
    whatif->add_option("--paper", what.paper, "experiment: the paper to reproduce (faraj-yuan)");
    whatif
        ->add_option("--topologies", what.topologies,
                     "experiment: tree topology files (default: the paper's three machines)")
        ->delimiter(',');
    renamed_.push_back(
        {old_spelling(whatif->add_option("--message-kb", what.message_kb, "Old --bytes in KiB")
                          ->delimiter(',')
                          ->check(natural)),
         "--bytes (in bytes: 8KiB for 8)"});
    whatif->add_option("--bandwidth", what.bandwidth,
                       "experiment: link bandwidth (default 100Mbps)");
    whatif->add_option("--latency", what.latency, "experiment: link latency (default 10us)");
    whatif->add_option("--out-dir", what.out_dir,
                       "experiment: write a throughput plot (SVG) per machine here");
    bytes_option(whatif
                     ->add_option("--bytes", what.bytes,
                                  "Message sizes in bytes (4096, 4KiB, 1MiB; comma-separated): "
                                  "bruck-index the block (default 1), congestion the size for "
                                  "the paper's selection, experiment the sizes simulated "
                                  "(default 8KiB,...,256KiB)")
                     ->delimiter(','));

    reports_[verify] = {&ver.report, &ver.output, [this] { return ver.schedule; }};
    reports_[check] = {&chk.report, &chk.output, [this] { return chk.topology; }};
    reports_[cost] = {&cst.report, &cst.output, [this] { return cst.schedule; }};
    reports_[diff] = {&dif.report, nullptr, [this] { return dif.after; }};
    reports_[bounds] = {&bnd.report, nullptr, [this] { return bnd.topology; }};
    reports_[survey] = {&srv.report, nullptr, [this] {
                          return srv.topologies.size() == 1 ? srv.topologies[0] : std::string();
                        }};
    reports_[congestion] = {&con.report, nullptr, [this] { return con.schedule; }};
    reports_[gate] = {&gat.report, nullptr, [this] { return gat.manifest; }};
    reports_[lint] = {&lnt.report, &lnt.output, [this] {
                        return lnt.files.size() == 1 ? lnt.files[0] : std::string("lint");
                      }};
    // Their -o is the data (schedule, programs), not the report: the report is standard output.
    reports_[sync] = {&syn.report, nullptr, [this] { return syn.schedule; }};
    reports_[program] = {&prg.report, nullptr, [this] { return prg.schedule; }};
    reports_[mutate] = {&mut.report, nullptr, [this] { return mut.schedule; }};
    reports_[optimal] = {&opt.report, nullptr, [this] { return opt.topology; }};
    reports_[run] = {&rn.report, nullptr, [this] { return rn.schedule; }};
    reports_[simulate] = {&sim.report, nullptr, [this] { return sim.schedule; }};
    reports_[fuzz] = {&fuzz_report, nullptr, [] { return std::string("fuzz"); }};
    reports_[whatif] = {&what.report, nullptr, [this] { return what.question; }};
    reports_[import] = {&imp.report, nullptr, [this] { return imp.file; }};
    reports_[exp] = {&ex.report, nullptr, [this] { return ex.schedule; }};
    reports_[deploy] = {
        &dep.report, nullptr,
        [this] { return dep.schedules.empty() ? std::string("deploy") : dep.schedules.front(); }};
    reports_[algorithms] = {&alg_report, nullptr, [] { return std::string("algorithms"); }};

    commands_.push_back({algorithms, [this](std::ostream& out, std::ostream&) {
                           return cli::list_algorithms(alg_report, out);
                         }});
    commands_.push_back(
        {generate, [this](std::ostream& out, std::ostream&) { return cli::generate(gen, out); }});
    commands_.push_back({verify, [this](std::ostream& out, std::ostream& err) {
                           return cli::verify(ver, out, err);
                         }});
    commands_.push_back(
        {draw, [this](std::ostream& out, std::ostream&) { return cli::draw(drw, out); }});
    commands_.push_back(
        {check, [this](std::ostream& out, std::ostream&) { return cli::check(chk, out); }});
    commands_.push_back({fuzz, [this](std::ostream& out, std::ostream& err) {
                           fz.progress = isatty(fileno(stderr));
                           return cli::fuzz(fz, fuzz_report, out, err);
                         }});
    commands_.push_back({optimal, [this](std::ostream& out, std::ostream& err) {
                           // -o -: the schedule is standard output, so the report goes to standard
                           // error.
                           return cli::optimal(opt, opt.output == "-" ? err : out);
                         }});
    commands_.push_back(
        {mutate, [this](std::ostream& out, std::ostream&) { return cli::mutate(mut, out); }});
    commands_.push_back({congestion, [this](std::ostream& out, std::ostream&) {
                           return cli::congestion(con, out);
                         }});
    commands_.push_back(
        {topology, [this](std::ostream& out, std::ostream&) { return cli::topology(top, out); }});
    commands_.push_back({program, [this](std::ostream& out, std::ostream& err) {
                           return cli::program(prg, prg.output == "-" ? err : out);
                         }});
    commands_.push_back(
        {run, [this](std::ostream& out, std::ostream&) { return cli::run(rn, out); }});
    commands_.push_back({import, [this](std::ostream& out, std::ostream&) {
                           return imp.format == "msccl" ? cli::import_msccl(imp, out)
                                                        : cli::import_trace(imp, out);
                         }});
    commands_.push_back(
        {exp, [this](std::ostream& out, std::ostream&) { return cli::export_msccl(ex, out); }});
    commands_.push_back(
        {deploy, [this](std::ostream& out, std::ostream&) { return cli::deploy(dep, out); }});
    commands_.push_back(
        {lint, [this](std::ostream& out, std::ostream&) { return cli::lint_msccl(lnt, out); }});
    commands_.push_back(
        {diff, [this](std::ostream& out, std::ostream&) { return cli::diff(dif, out); }});
    commands_.push_back(
        {gate, [this](std::ostream& out, std::ostream&) { return cli::gate(gat, out); }});
    commands_.push_back(
        {simulate, [this](std::ostream& out, std::ostream&) { return cli::simulate(sim, out); }});
    commands_.push_back(
        {sync, [this](std::ostream& out, std::ostream&) { return cli::sync(syn, out); }});
    commands_.push_back(
        {cost, [this](std::ostream& out, std::ostream&) { return cli::cost(cst, out); }});
    commands_.push_back(
        {bounds, [this](std::ostream& out, std::ostream&) { return cli::bounds(bnd, out); }});
    commands_.push_back(
        {survey, [this](std::ostream& out, std::ostream&) { return cli::survey(srv, out); }});
    commands_.push_back(
        {whatif, [this](std::ostream& out, std::ostream&) { return cli::whatif(what, out); }});
  }
};

CommandLine::CommandLine() : impl_(std::make_unique<Impl>()) {}
CommandLine::~CommandLine() = default;

std::optional<int> CommandLine::parse(int argc, const char* const* argv, std::ostream& out,
                                      std::ostream& err) {
  try {
    impl_->app->parse(argc, argv);
    set_limits(impl_->limits);
    set_output_settings(impl_->output);
    for (const auto& [option, now] : impl_->renamed_)
      if (option->count() > 0)
        err << "phasecheck: note: " << option->get_name() << " is now " << now
            << "; the old name goes away in the next release\n";
  } catch (const CLI::ParseError& e) {
    if (const std::string better = suggestion(*impl_->app, e, argc, argv); !better.empty()) {
      err << "phasecheck: error: " << better << "\nRun with --help for more information.\n";
      return 2;
    }
    const int code = impl_->app->exit(e, out, err);
    return code == 0 ? 0 : 2;
  }
  return std::nullopt;
}

void CommandLine::Impl::report_error(const std::string& message, std::ostream& out,
                                     std::ostream& err) const {
  // A message quotes its input (names, labels, another program's standard error): its own line
  // breaks stay, every control and bidirectional control is shown, not obeyed (core/escape.hpp).
  err << "phasecheck: error: " << text_escape(message, Newlines::keep) << "\n";
  for (const auto& [command, target] : reports_) {
    if (!*command || *target.format == "text" || *target.format == "csv") continue;
    const std::string source = input_name(target.source());
    const std::string text =
        reports::render_error(*target.format, command->get_name(), source, message);
    if (!target.output || target.output->empty() || *target.output == "-") {
      out << text;
      return;
    }
    try {
      write_output(*target.output, [&](std::ostream& os) { os << text; }, target.inputs());
    } catch (const std::exception& e) {  // the output itself is the problem: standard output
      err << "phasecheck: error: " << text_escape(e.what(), Newlines::keep) << "\n";
      out << text;
    }
    return;
  }
}

namespace {

/// An error ends this process with `code`; under mpirun it ends the others too, which may be
/// waiting for this one's findings (distributed/processes.hpp).
int stop(int code, std::ostream& out, std::ostream& err) {
  out.flush();
  err.flush();
  distributed::abort_if_spread(code);
  return code;
}

}  // namespace

int CommandLine::run(std::ostream& out, std::ostream& err) {
  try {
    for (const auto& [command, function] : impl_->commands_)
      if (*command) return function(out, err);
  } catch (const InputError& e) {
    impl_->report_error(e.what(), out, err);
    return stop(2, out, err);
  } catch (const std::bad_alloc&) {
    impl_->report_error("not enough memory for this input", out, err);
    return stop(2, out, err);
  } catch (const std::exception& e) {
    err << "phasecheck: internal error: " << text_escape(e.what(), Newlines::keep) << "\n";
    return stop(3, out, err);
  }
  return 2;
}

}  // namespace phasecheck::cli
