#include "cli/commands.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/networks.hpp"
#include "core/overloaded.hpp"
#include "core/parameter_spec.hpp"
#include "io/json.hpp"
#include "io/programs_json.hpp"
#include "mutate.hpp"
#include "programs/program.hpp"
#include "programs/replay.hpp"
#include "programs/synchronization.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"
#include "schedules/faraj_yuan.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/congestion.hpp"
#include "verify/cost.hpp"
#include "verify/optimal.hpp"
#include "verify/synchronization_check.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {

Claims claims_for(const ScheduleHeader& header) {
  // An imported program (MSCCL XML) is judged on its own: an algorithm's claims and invariants
  // are about that algorithm's phase table, not a runtime program that happens to share its name.
  if (header.imported) return {};
  if (const auto* a = schedules::find_algorithm(header.algorithm)) return a->claims(header);
  return {};
}

namespace {

using verify::Verdict;

/// Faraj & Yuan, Section 3: the bottleneck link, its load |Mu| x |Mv|, the peak aggregate
/// throughput bound |M| (|M| - 1) B / (|Mu| |Mv|), and the root and phases of Section 4.
void tree_report(const Tree& tree, double bandwidth, std::ostream& out) {
  if (tree.ranks() < 2) return;
  const Tree::Cut worst = tree.bottleneck();
  const std::uint64_t load = std::uint64_t{worst.machines_a} * worst.machines_b;
  const double factor = tree.peak_throughput_factor();
  out << "\nbottleneck link " << tree.node_name(worst.a) << " - " << tree.node_name(worst.b)
      << ": |Mu| x |Mv| = " << worst.machines_a << " x " << worst.machines_b << " = " << load
      << " messages each way\n"
      << "peak aggregate throughput <= |M| (|M| - 1) B / (|Mu| |Mv|) = " << number(factor) << " B";
  if (bandwidth > 0)
    out << " = " << number(factor * bandwidth) << " bytes/s for B = " << number(bandwidth)
        << " bytes/s";
  out << "\n";
  const schedules::FarajYuanPlan plan = schedules::faraj_yuan_plan(tree);
  out << "faraj-yuan: root " << (plan.root ? tree.node_name(*plan.root) : std::string("(none)"))
      << ", subtrees of";
  for (std::size_t i = 0; i < plan.t.size();) {  // sizes run-length coded: "16, 8, 8 x 1"
    std::size_t same = i;
    while (same < plan.t.size() && plan.t[same].size() == plan.t[i].size()) ++same;
    out << (i ? ", " : " ");
    if (same - i > 1) out << same - i << " x ";
    out << plan.t[i].size();
    i = same;
  }
  out << " machines: " << plan.phases() << " phases = |M0| (|M| - |M0|), the bottleneck load\n";
}

/// tree_report's figures for `bounds --report json`.
nlohmann::ordered_json tree_json(const Tree& tree, double bandwidth) {
  nlohmann::ordered_json j;
  const Tree::Cut worst = tree.bottleneck();
  j["bottleneck"] = {{"link", {tree.node_name(worst.a), tree.node_name(worst.b)}},
                     {"machines", {worst.machines_a, worst.machines_b}},
                     {"load", tree.bottleneck_load()}};
  const double factor = tree.peak_throughput_factor();
  j["peak_throughput_factor"] = factor;
  j["peak_throughput"] = bandwidth > 0 ? nlohmann::ordered_json(factor * bandwidth) : nullptr;
  if (tree.ranks() >= 2) {
    const schedules::FarajYuanPlan plan = schedules::faraj_yuan_plan(tree);
    j["faraj_yuan"] = {
        {"root", plan.root ? nlohmann::ordered_json(tree.node_name(*plan.root)) : nullptr},
        {"subtrees", nlohmann::ordered_json::array()},
        {"phases", plan.phases()}};
    for (const auto& t : plan.t) j["faraj_yuan"]["subtrees"].push_back(t.size());
  }
  return j;
}

}  // namespace

namespace {

/// One declared parameter as `algorithms --report json` writes it (docs/formats.md).
nlohmann::ordered_json parameter_json(const ParameterSpec& spec) {
  nlohmann::ordered_json j;
  j["name"] = spec.name;
  const auto bound = [](const RangeBound& b) {
    return b.is_rank_count ? nlohmann::ordered_json("p") : nlohmann::ordered_json(b.number);
  };
  std::visit(Overloaded{[&](const UInt& u) {
                          j["type"] = "unsigned";
                          j["min"] = bound(u.min);
                          j["max"] = bound(u.max);
                        },
                        [&](const Boolean&) { j["type"] = "boolean"; },
                        [&](const Choice& c) {
                          j["type"] = "choice";
                          j["values"] = std::vector<std::string>(c.values.begin(), c.values.end());
                        },
                        [&](const Text& t) {
                          j["type"] = "text";
                          j["form"] = t.form;
                        }},
             spec.type);
  std::visit(Overloaded{[&](const Fixed& f) { j["default"] = f.value; },
                        [&](const InWords& w) { j["default_in_words"] = w.description; }},
             spec.fallback);
  j["help"] = spec.help;
  return j;
}

}  // namespace

int list_algorithms(const std::string& report, std::ostream& out) {
  const reports::TableFormat format = reports::parse_table_format(report, "algorithms");
  reports::Table table({{"algorithm", "algorithm"},
                        {"parameters", "parameters"},
                        {"summary", "summary"},
                        {"reference", "reference"}});
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& a : schedules::algorithms()) {
    table.add({std::string(a.name), schedules::parameter_summary(a), std::string(a.summary),
               std::string(a.reference)});
    nlohmann::ordered_json parameters = nlohmann::ordered_json::array();
    for (const ParameterSpec& spec : a.parameter_specs) parameters.push_back(parameter_json(spec));
    all.push_back({{"name", a.name},
                   {"summary", a.summary},
                   {"reference", a.reference},
                   {"parameters", std::move(parameters)}});
  }
  switch (format) {
    case reports::TableFormat::csv:
      out << table.csv();
      break;
    case reports::TableFormat::json:
      out << reports::json_text({{"command", "algorithms"}, {"algorithms", std::move(all)}});
      break;
    case reports::TableFormat::text:
      out << table.text();
      break;
  }
  return 0;
}

int generate(const GenerateArgs& args, std::ostream& out) {
  const auto& algorithm = schedules::require_algorithm(args.algorithm);
  if (!args.output.empty()) check_output(args.output, {args.topology});
  const ScheduleHeader header = schedules::make_header(
      algorithm, io::read_topology_file(args.topology), Parameters::parse(args.set));
  const auto emit = [&](std::ostream& os) {
    if (args.buffers) {
      const Schedule program = schedules::generate_program(algorithm, header);
      io::ScheduleWriter writer(os, program.header);
      for (const Phase& p : program.phases) writer.phase(p);
      writer.finish();
      return;
    }
    io::ScheduleWriter writer(os, header);
    algorithm.generate(header, writer.sink());
    writer.finish();
  };
  if (args.output.empty())
    emit(out);
  else
    write_output(args.output, emit, {args.topology});
  return 0;
}

namespace {

struct Verified {
  std::string source;  ///< the file, or "<stdin>"
  ScheduleHeader header;
  Claims claims;
  verify::Report report;
};

/// Streams the schedule `path` (or standard input for "-") through the verifier, on its own
/// topology or on the what-if model in `topology_path` when that is not empty.
Verified read_and_verify(const std::string& path, const std::string& topology_path) {
  require_stdin_once({path, topology_path});
  std::optional<Topology> what_if;
  if (!topology_path.empty()) what_if = io::read_topology_file(topology_path);
  Verified v;
  v.source = input_name(path);
  std::optional<verify::Verifier> verifier;
  const auto on_header = [&](const ScheduleHeader& h) {
    v.header = h;
    v.claims = claims_for(v.header);
    try {
      verifier.emplace(v.header, what_if ? *what_if : v.header.topology, v.claims);
    } catch (const InputError& e) {
      throw InputError(v.source + ": " + e.what());
    }
  };
  const auto on_phase = [&](const Phase& p) { verifier->consume(p); };
  io::read_schedule_file(path, on_header, on_phase, io::Tables::ops_only);
  v.report = verifier->finish();
  return v;
}

/// The text on `out`, or in the file `output` (which must not be one of `inputs`).
void emit(const std::string& text, const std::string& output, std::ostream& out,
          const std::vector<std::string>& inputs) {
  if (output.empty())
    out << text;
  else
    write_output(output, [&](std::ostream& os) { os << text; }, inputs);
}

}  // namespace

int verify(const VerifyArgs& args, std::ostream& out) {
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  if (!args.output.empty()) check_output(args.output, {args.schedule, args.topology});
  const Verified v = read_and_verify(args.schedule, args.topology);
  emit(reports::render(v.report, v.source, format), args.output, out, {args.schedule, args.topology});
  return v.report.verdict() == Verdict::pass ? 0 : 1;
}

namespace {

/// The phase table's own verification in sync's and program's JSON: {"verdict", "failed": null |
/// the checks that failed, each with its counterexample's explanation}.
nlohmann::ordered_json table_json(const verify::Report& report) {
  const std::string failed = report.broken_claims(true);
  return {{"verdict", to_string(report.verdict())},
          {"failed", failed.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(failed)}};
}

}  // namespace

int sync(const SyncArgs& args, std::ostream& out) {
  require_stdin_once({args.schedule, args.topology});
  // The dependence graph needs the whole table (at most kMaxSyncRanks ranks): read it once.
  const Schedule table = io::read_schedule_file(args.schedule, [](const ScheduleHeader& h) {
    check_ranks(h.ranks(), programs::kMaxSyncRanks, "sync", "");
  });
  const Topology model =
      args.topology.empty() ? table.header.topology : io::read_topology_file(args.topology);
  Verified v{input_name(args.schedule), table.header, claims_for(table.header), {}};
  try {
    v.report = verify::verify(table, model, v.claims);
  } catch (const InputError& e) {
    throw InputError(input_name(args.schedule) + ": " + e.what());
  }
  const programs::SyncPlan plan = programs::pairwise_synchronization(table, model);
  std::vector<std::pair<verify::TransferRef, verify::TransferRef>> syncs;
  for (const auto& [a, b] : plan.kept) {
    const programs::Message &x = plan.messages[a], &y = plan.messages[b];
    syncs.push_back({{x.phase, x.transfer}, {y.phase, y.transfer}});
  }
  const verify::CheckResult check = verify::check_synchronization(table, model, syncs);
  const Verdict table_verdict = v.report.verdict();
  const bool ok = table_verdict == Verdict::pass && check.verdict == Verdict::pass;
  if (args.report == "json") {
    nlohmann::ordered_json j;
    j["command"] = "sync";
    j["verdict"] = ok ? "pass" : "fail";
    j["schedule"] = v.source;
    j["algorithm"] = v.report.algorithm;
    j["collective"] = to_string(v.report.collective);
    j["topology"] = v.report.topology;
    j["messages"] = plan.messages.size();
    j["phases"] = v.report.counts.phases;
    j["contending_pairs"] = plan.contending_pairs;
    j["dependence_edges"] = plan.dependence_edges;
    j["synchronizations"] = plan.kept.size();
    j["ordered_by_program_order"] = plan.by_program_order;
    j["table"] = table_json(v.report);
    j["check"] = reports::check_json(check);
    if (args.list) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      const auto message = [](const programs::Message& m) {
        return nlohmann::ordered_json{{"src", m.src}, {"dst", m.dst}, {"phase", m.phase}};
      };
      for (const auto& [a, b] : plan.kept)
        list.push_back({{"after", message(plan.messages[a])}, {"before", message(plan.messages[b])}});
      j["list"] = std::move(list);
    }
    out << reports::json_text(j);
    return ok ? 0 : 1;
  }
  out << (ok ? "PASS" : "FAIL") << "  pair-wise synchronization of " << v.report.algorithm << " ("
      << v.report.collective << ") on " << v.report.topology << "  [" << v.source << "]\n"
      << "  " << plan.messages.size() << " messages in " << v.report.counts.phases << " phases\n"
      << "  " << plan.contending_pairs
      << " contending pairs (messages in different phases sharing a link): the naive "
         "synchronizations\n"
      << "  " << plan.dependence_edges
      << " dependence edges (each message to the next later users of "
      << "each of its links)\n"
      << "  " << plan.kept.size() << " synchronization messages after transitive reduction ("
      << plan.by_program_order << " more orderings come free with each rank's program order)\n"
      << "  " << reports::verdict_mark(table_verdict) << "  table            "
      << (table_verdict == Verdict::pass ? "verifies (delivery, contention, claims, bounds)"
                                         : "does not verify: run phasecheck verify")
      << "\n  " << reports::verdict_mark(check.verdict) << "  " << check.name << "  " << check.summary
      << "\n";
  if (check.counterexample) out << "\n" << *check.counterexample << "\n";
  if (args.list) {
    out << "\nsynchronization messages (after -> sender waits before):\n";
    for (const auto& [a, b] : plan.kept) {
      const programs::Message &x = plan.messages[a], &y = plan.messages[b];
      out << "  " << x.src << " -> " << y.src << "  after " << x.src << " -> " << x.dst
          << " (phase " << x.phase << "), before " << y.src << " -> " << y.dst << " (phase "
          << y.phase << ")\n";
    }
  }
  return ok ? 0 : 1;
}

int program(const ProgramArgs& args, std::ostream& out) {
  const programs::Separation separation = programs::parse_separation(args.sync);
  if (!args.output.empty()) check_output(args.output, {args.schedule});
  const Schedule table = io::read_schedule_file(args.schedule, [&](const ScheduleHeader& h) {
    if (separation == programs::Separation::pairwise)
      check_ranks(h.ranks(), programs::kMaxSyncRanks, "program --sync pairwise",
                  "--sync barrier works on any size");
  });
  const Topology& model = table.header.topology;
  const verify::Report report = verify::verify(table, model, claims_for(table.header));
  std::optional<programs::SyncPlan> plan;
  if (separation == programs::Separation::pairwise)
    plan = programs::pairwise_synchronization(table, model);
  const auto progs = programs::rank_programs(table, separation, plan ? &*plan : nullptr);
  for (Rank r : args.ranks)
    if (r >= table.header.ranks())
      throw InputError("--rank " + std::to_string(r) + ": the schedule has " +
                       std::to_string(table.header.ranks()) + " ranks");
  const verify::CheckResult check = programs::replay(table, model, progs);
  const bool ok = report.verdict() == Verdict::pass && check.verdict == Verdict::pass;
  if (!args.output.empty())
    write_output(args.output,
                 [&](std::ostream& os) {
                   os << io::programs_to_json(progs, table, input_name(args.schedule), separation);
                 },
                 {args.schedule});
  std::size_t ops = 0;
  for (const auto& prog : progs) ops += prog.ops.size();
  if (args.report == "json") {
    nlohmann::ordered_json j;
    j["command"] = "program";
    j["verdict"] = ok ? "pass" : "fail";
    j["schedule"] = input_name(args.schedule);
    j["algorithm"] = report.algorithm;
    j["collective"] = to_string(report.collective);
    j["topology"] = report.topology;
    j["sync"] = to_string(separation);
    j["programs"] = progs.size();
    j["operations"] = ops;
    j["synchronizations"] = plan ? nlohmann::ordered_json(plan->kept.size()) : nullptr;
    j["table"] = table_json(report);
    j["replay"] = reports::check_json(check);
    nlohmann::ordered_json listings = nlohmann::ordered_json::object();
    for (Rank r : args.ranks) listings[std::to_string(r)] = programs::listing(progs[r]);
    j["listings"] = std::move(listings);
    out << reports::json_text(j);
    return ok ? 0 : 1;
  }
  out << (ok ? "PASS" : "FAIL") << "  per-rank programs of " << report.algorithm << " ("
      << report.collective << ") on " << report.topology << ", " << to_string(separation)
      << " synchronization  [" << input_name(args.schedule) << "]\n"
      << "  " << progs.size() << " programs, " << ops << " operations";
  if (plan) out << ", " << plan->kept.size() << " synchronization messages";
  out << "\n  " << reports::verdict_mark(report.verdict()) << "  table   "
      << (report.verdict() == Verdict::pass ? "verifies" : "does not verify: run phasecheck verify")
      << "\n  " << reports::verdict_mark(check.verdict) << "  replay  " << check.summary << "\n";
  if (check.counterexample) out << "\n" << *check.counterexample << "\n";
  for (Rank r : args.ranks) out << "\n" << programs::listing(progs[r]);
  return ok ? 0 : 1;
}

int congestion(const CongestionArgs& args, std::ostream& out) {
  require_stdin_once({args.schedule, args.topology});
  const reports::TableFormat format = reports::parse_table_format(args.report, "congestion");
  if (format == reports::TableFormat::csv && !args.phases)
    throw InputError("congestion --report csv is the table of --phases: add --phases");
  std::optional<Topology> what_if;
  if (!args.topology.empty()) what_if = io::read_topology_file(args.topology);
  ScheduleHeader header;
  std::optional<verify::Verifier> verifier;
  std::optional<verify::CongestionMeter> meter;
  io::read_schedule_file(
      args.schedule,
      [&](const ScheduleHeader& h) {
        header = h;
        const Topology& model = what_if ? *what_if : header.topology;
        try {
          verifier.emplace(header, model, claims_for(header));
          meter.emplace(model, args.phases);
        } catch (const InputError& e) {
          throw InputError(input_name(args.schedule) + ": " + e.what());
        }
      },
      [&](const Phase& p) {
        verifier->consume(p);
        meter->consume(p);
      });
  const verify::Report report = verifier->finish();
  const Topology& model = what_if ? *what_if : header.topology;
  const bool delivered = report.passed("delivery");
  const std::string source = input_name(args.schedule);
  // Every block crosses its route's links, so the sum over phases of the busiest link's load (per
  // unit of capacity) is at least the busiest link's total, hence at least any bound on C2: the
  // model's, for this kind of schedule (docs/bounds.md).
  const std::uint64_t bound = report.bound_c2;
  std::string argument;
  for (const verify::Bound& b : report.bounds)
    if (b.metric == verify::Metric::c2 && b.value == bound) {
      argument = b.argument;
      break;
    }
  reports::Table table({{"phase", "phase"},
                   {"max_load", "max load"},
                   {"mean_load", "mean load"},
                   {"busiest_link", "busiest link"}});
  for (std::size_t i = 0; i < meter->loads().size(); ++i) {
    const verify::PhaseLoad& l = meter->loads()[i];
    table.add({std::uint64_t{i}, l.max, l.mean,
               l.max ? reports::Cell{link_name(model, l.busiest)} : reports::Cell{}});
  }
  switch (format) {
    case reports::TableFormat::csv:
      out << table.csv();
      break;
    case reports::TableFormat::json: {
      nlohmann::ordered_json j;
      j["schedule"] = source;
      j["algorithm"] = report.algorithm;
      j["collective"] = to_string(report.collective);
      j["topology"] = report.topology;
      j["delivered"] = delivered;
      j["phases"] = meter->phase_count();
      j["sum_of_max"] = {
          {"value", meter->sum_of_max()}, {"lower_bound", bound}, {"argument", argument}};
      j["mean_of_max"] = meter->mean_of_max();
      j["peak"] = meter->peak();
      j["per_phase"] = args.phases ? table.json() : nlohmann::ordered_json(nullptr);
      out << reports::json_text(j);
      break;
    }
    case reports::TableFormat::text:
      out << (delivered ? "" : "INVALID  ") << "congestion of " << report.algorithm << " ("
          << report.collective << ") on " << report.topology << "  [" << source << "]\n"
          << "  " << meter->phase_count()
          << " phases; sum over phases of the busiest link's load: " << meter->sum_of_max()
          << " blocks (lower bound " << bound << "); mean per phase "
          << number(meter->mean_of_max()) << ", peak " << meter->peak() << "\n";
      if (!argument.empty()) out << "  lower bound " << bound << ": " << argument << "\n";
      out << "  delivery: "
          << (delivered ? "every block exactly once" : "FAILS (phasecheck verify)") << "\n";
      if (args.phases) out << "\n" << table.text("  ");
      break;
  }
  return delivered ? 0 : 1;
}

int mutate(const MutateArgs& args, std::ostream& out) {
  require_stdin_once({args.schedule, args.topology});
  if (args.per_class < 1 || args.per_class > properties::kMaxMutantsPerClass)
    throw InputError("--per-class must be in [1, " +
                     std::to_string(properties::kMaxMutantsPerClass) + "]");
  const Schedule table = io::read_schedule_file(args.schedule, [](const ScheduleHeader& h) {
    check_ranks(h.ranks(), properties::kMaxMutateRanks, "mutate",
                "each mutant is re-simulated naively; `verify` checks any size");
  });
  const Topology model =
      args.topology.empty() ? table.header.topology : io::read_topology_file(args.topology);
  if (ranks(model) != table.header.ranks())
    throw InputError("the schedule has " + std::to_string(table.header.ranks()) + " ranks but " +
                     describe(model) + " has " + std::to_string(ranks(model)));
  const properties::MutationReport report =
      properties::mutate(table, model, args.per_class, args.seed);
  std::uint64_t invalid = 0, caught = 0;
  for (const auto& c : report.classes) {
    invalid += c.invalid;
    caught += c.caught;
  }
  if (args.report == "json") {
    nlohmann::ordered_json j;
    j["command"] = "mutate";
    j["verdict"] = report.perfect() ? "pass" : "fail";
    j["schedule"] = input_name(args.schedule);
    j["algorithm"] = table.header.algorithm;
    j["topology"] = describe(model);
    j["seed"] = args.seed;
    j["per_class"] = args.per_class;
    j["program"] = report.program;
    j["contention_counts"] = report.contention_counts;
    nlohmann::ordered_json classes = nlohmann::ordered_json::array();
    for (const auto& c : report.classes)
      classes.push_back({{"fault", c.name},
                         {"mutants", c.mutants},
                         {"invalid", c.invalid},
                         {"caught", c.caught},
                         {"missed", c.missed},
                         {"over_strict", c.over_strict},
                         {"claims_only", c.claims_only},
                         {"example", c.example.empty() ? nlohmann::ordered_json(nullptr)
                                                       : nlohmann::ordered_json(c.example)}});
    j["classes"] = std::move(classes);
    j["invalid"] = invalid;
    j["caught"] = caught;
    out << reports::json_text(j);
    return report.perfect() ? 0 : 1;
  }
  out << "mutation analysis of " << table.header.algorithm << " on " << describe(model) << "  ["
      << input_name(args.schedule) << "]\n"
      << "  a mutant is invalid when a naive re-simulation finds "
      << (report.program ? "an op fault, an output slot without its chunk, " : "")
      << "a block not delivered exactly once"
      << (report.contention_counts ? " or contention (the original is contention-free)" : "")
      << "\n\n";
  Table t({"  fault", "mutants", "invalid", "caught", "missed", "over-strict",
           "valid, rejected by claims"});
  for (const auto& c : report.classes)
    t.add({"  " + c.name, std::to_string(c.mutants), std::to_string(c.invalid),
           std::to_string(c.caught), std::to_string(c.missed), std::to_string(c.over_strict),
           std::to_string(c.claims_only)});
  t.print(out);
  for (const auto& c : report.classes)
    if (!c.example.empty()) out << "\n  " << c.name << ": " << c.example << "\n";
  out << "\n"
      << (report.perfect() ? "PASS" : "FAIL") << "  caught " << caught << " of " << invalid
      << " invalid mutants"
      << (invalid ? " (" + number(100.0 * double(caught) / double(invalid)) + "%)" : "")
      << "; every accepted mutant re-simulated valid: " << (report.perfect() ? "yes" : "NO")
      << "\n";
  return report.perfect() ? 0 : 1;
}

int topology(const TopologyArgs& args, std::ostream& out) {
  emit(io::topology_to_pretty_json(build_network(args.kind, args.options)), args.output, out, {});
  return 0;
}

int cost(const CostArgs& args, std::ostream& out) {
  if (args.bytes == 0 && args.m_alias == 0)
    throw InputError("cost: --bytes is required (the message size in bytes: 4096, 4KiB, 1MiB)");
  const verify::LinearCost model{args.ts, args.tw, args.bytes ? double(args.bytes) : args.m_alias};
  model.validate();
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  if (format == reports::ReportFormat::junit) throw InputError("cost reports are text or json");
  if (!args.output.empty()) check_output(args.output, {args.schedule, args.topology});
  const Verified v = read_and_verify(args.schedule, args.topology);
  const verify::CostReport c = verify::cost(v.report, v.claims, model);
  emit(reports::render_cost(c, v.report, v.source, format), args.output, out,
       {args.schedule, args.topology});
  return v.report.verdict() == Verdict::pass && c.consistent() ? 0 : 1;
}

int bounds(const BoundsArgs& args, std::ostream& out) {
  if (args.bandwidth < 0 || !std::isfinite(args.bandwidth))
    throw InputError("--bandwidth must be a positive number of bytes per second");
  const reports::TableFormat format = reports::parse_table_format(args.report, "bounds");
  const Topology model = io::read_topology_file(args.topology);
  const Collective collective = parse_collective(args.collective);
  const auto all = verify::lower_bounds(model, collective);
  reports::Table table({{"metric", "metric"},
                   {"value", "bound"},
                   {"applies_to", "applies to"},
                   {"argument", "argument"}});
  for (const auto& b : all)
    table.add({std::string(to_string(b.metric)), b.value,
               std::string(b.direct_only ? "direct" : "any"), b.argument});
  const auto direct = verify::best_bounds(all, true).first;
  const auto [f1, f2] = verify::best_bounds(all, false);
  const auto* tree = std::get_if<Tree>(&model);
  switch (format) {
    case reports::TableFormat::csv:
      out << table.csv();
      return 0;
    case reports::TableFormat::json: {
      nlohmann::ordered_json j;
      j["topology"] = describe(model);
      j["kind"] = kind(model);
      j["ranks"] = ranks(model);
      j["collective"] = to_string(collective);
      j["bounds"] = table.json();
      j["direct_phases"] = direct;
      j["forwarding"] = {{"C1", f1}, {"C2", f2}};
      j["tree"] = tree ? tree_json(*tree, args.bandwidth) : nlohmann::ordered_json(nullptr);
      out << reports::json_text(j);
      return 0;
    }
    case reports::TableFormat::text:
      break;
  }
  out << "lower bounds for " << collective << " on " << describe(model) << " (" << ranks(model)
      << " ranks)\n"
      << table.text("  ") << "direct schedules need at least " << direct
      << " phases with communication; with "
      << "forwarding C1 >= " << f1 << " and C2 >= " << f2 << "\n";
  if (tree) tree_report(*tree, args.bandwidth, out);
  return 0;
}

int survey(const SurveyArgs& args, std::ostream& out) {
  const reports::TableFormat format = reports::parse_table_format(args.report, "survey");
  reports::Table table({{"example", "example"},
                   {"model", "model"},
                   {"algorithm", "algorithm"},
                   {"verdict", "verdict"},
                   {"failed", "failed"},
                   {"phases", "phases"},
                   {"C1", "C1"},
                   {"bound_C1", "bound"},
                   {"gap_C1", "gap"},
                   {"C2", "C2"},
                   {"bound_C2", "bound"},
                   {"gap_C2", "gap"},
                   {"claims", "claims"}});
  bool broken = false;
  for (const std::string& path : args.topologies) {
    const Topology model = io::read_topology_file(path);
    const std::string name = machine_name(path);
    for (const auto& algorithm : schedules::algorithms()) {
      ScheduleHeader header;
      std::optional<verify::Report> report;
      try {
        header = schedules::make_header(algorithm, model, {});
        verify::Verifier v(header, header.topology, claims_for(header));
        algorithm.generate(header, v.sink());
        report = v.finish();
      } catch (const InputError& e) {  // the algorithm does not take this machine: why
        table.add({name,
                   describe(model),
                   std::string(algorithm.name),
                   std::string("n/a"),
                   {},
                   {},
                   {},
                   {},
                   {},
                   {},
                   {},
                   {},
                   std::string(e.what())});
        continue;
      }
      const bool claimed = algorithm.contention_free_on(header, model);
      std::string failed;
      for (const auto& c : report->checks)
        if (c.verdict == Verdict::fail || c.verdict == Verdict::unknown)
          failed += (failed.empty() ? "" : ",") + c.name;
      const bool ok = report->broken_claims(claimed).empty();
      broken |= !ok;
      // Gaps only for schedules the bounds apply to: everything delivered, no contention.
      const bool valid = report->passed("delivery") && report->passed("contention");
      const auto gap = [valid](std::uint64_t value, std::uint64_t bound) -> reports::Cell {
        if (valid && value >= bound) return value - bound;
        return {};
      };
      const verify::Counts& n = report->counts;
      table.add(
          {name, describe(model), std::string(algorithm.name),
           std::string(failed.empty() ? "pass" : "FAIL"),
           failed.empty() ? reports::Cell{} : reports::Cell{failed}, std::uint64_t{n.phases}, n.c1,
           report->bound_c1, gap(n.c1, report->bound_c1), n.c2, report->bound_c2,
           gap(n.c2, report->bound_c2),
           std::string(ok ? "kept" : "BROKEN") + (claimed ? " (contention-free claimed)" : "")});
    }
  }
  switch (format) {
    case reports::TableFormat::csv:
      out << table.csv();
      break;
    case reports::TableFormat::json: {
      nlohmann::ordered_json j;
      j["topologies"] = args.topologies;
      j["rows"] = table.json();
      j["broken"] = broken;
      out << reports::json_text(j);
      break;
    }
    case reports::TableFormat::text:
      out << table.text()
          << "\nC1 = phases with communication (start-ups); C2 = the sum over phases of the "
             "largest transfer in blocks (the t_w m term); bound = the model's lower bound for "
             "this kind of schedule (direct or forwarding); gap = value - bound, for schedules "
             "that deliver everything without contention\n";
      if (broken) out << "\nSome algorithm broke one of its claims (marked BROKEN).\n";
      break;
  }
  return broken ? 1 : 0;
}

}  // namespace phasecheck::cli
