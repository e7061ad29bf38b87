#include "report/run_report.hpp"

#include <cmath>
#include <sstream>

#include "core/escape.hpp"
#include "report/table.hpp"

namespace phasecheck::reports {
namespace {

std::string ms(double seconds) { return figure(seconds * 1e3) + " ms"; }

nlohmann::ordered_json outcome_json(const experiments::RunOutcome& o, std::string_view command) {
  const launch::RunnerResult& r = o.result;
  const double schedule = r.schedule_seconds.value(), lib = r.library_seconds.value();
  nlohmann::ordered_json j;
  j["command"] = command;
  j["verdict"] = to_string(o.verdict());
  j["schedule"] = o.source;
  j["algorithm"] = o.algorithm;
  j["collective"] = to_string(o.collective);
  j["ranks"] = o.ranks;
  j["where"] = o.where;
  j["bytes"] = r.bytes;
  j["chunk_bytes"] =
      o.buffers ? nlohmann::ordered_json(r.chunk_bytes.value()) : nlohmann::ordered_json(nullptr);
  j["separation"] = o.separation;
  j["repeats"] = r.repeats;
  j["data_errors"] = r.errors;
  j["error_lines"] = o.error_lines;
  j["table"] = to_string(o.table);
  j["seconds"] = {{"schedule", schedule}, {"library", lib}};
  j["library"] = o.library;
  j["ratio"] = lib > 0 ? nlohmann::ordered_json(schedule / lib) : nlohmann::ordered_json(nullptr);
  return j;
}

}  // namespace

std::string run_text(const experiments::RunOutcome& o) {
  const launch::RunnerResult& r = o.result;
  const long long bad = r.errors;
  const double schedule = r.schedule_seconds.value(), lib = r.library_seconds.value();
  std::ostringstream out;
  out << (o.verdict() == verify::Verdict::pass ? "PASS" : "FAIL") << "  " << text_escape(o.algorithm) << " (" << o.collective
      << (o.buffers ? ", buffer program" : "") << ") on " << o.ranks << " ranks "
      << text_escape(o.where) << ": "
      << (bad == 0 ? o.buffers ? "every output slot holds its chunk, byte for byte"
                               : "every byte arrived as sent"
                   : std::to_string(bad) + (bad == 1 ? " error" : " errors") + " in the data" +
                         (r.repeats > 1 ? " over " + std::to_string(r.repeats) + " calls"
                                        : std::string()))
      << "\n  " << r.bytes << " bytes per message";
  if (o.buffers)
    out << " (" << o.buffers->chunks << (o.buffers->chunks == 1 ? " chunk" : " chunks") << " of "
        << r.chunk_bytes.value() << " bytes; buffers of " << o.buffers->input << " + "
        << o.buffers->output << " + " << o.buffers->scratch << " chunks: input, output, scratch)";
  out << ", " << o.separation << " separation, median of " << r.repeats
      << " calls (the slowest rank's time)\n"
      << "  schedule " << (o.table == verify::Verdict::pass ? "verifies" : "DOES NOT VERIFY")
      << " on its model\n"
      << "  " << text_escape(o.algorithm) << ": " << ms(schedule) << " per call\n"
      << "  " << o.library << ": " << ms(lib) << " per call (same run); ratio "
      << figure(lib > 0 ? schedule / lib : 0) << "\n";
  if (const auto& t = o.throughput) {
    out << "  aggregate throughput: " << text_escape(o.algorithm) << " " << figure(t->schedule)
        << " MB/s, library " << figure(t->library)
        << " MB/s; peak bound |M| (|M| - 1) B / (|Mu| |Mv|) = " << figure(t->peak_bound)
        << " MB/s\n";
    if (t->exceeds_peak)
      out << "  FAIL  faster than the peak bound: the simulated network is not this topology\n";
  }
  for (const auto& e : o.error_lines) out << "  " << e << "\n";
  if (r.errors > static_cast<long long>(o.error_lines.size())) out << "  ...\n";
  return out.str();
}

nlohmann::ordered_json run_json(const experiments::RunOutcome& o) { return outcome_json(o, "run"); }

nlohmann::ordered_json simulate_json(const experiments::RunOutcome& o) {
  nlohmann::ordered_json j = outcome_json(o, "simulate");
  j["throughput_MBps"] = nullptr;
  if (const auto& t = o.throughput)
    j["throughput_MBps"] = {{"schedule", t->schedule},
                            {"library", t->library},
                            {"peak_bound", t->peak_bound},
                            {"exceeds_peak", t->exceeds_peak}};
  return j;
}

std::string faraj_yuan_heading(const experiments::FarajYuanQuestion& q) {
  return "Faraj & Yuan, Section 6 (Figs. 6-8), simulated by SimGrid: completion time of one "
         "MPI_Alltoall in ms, " +
         q.bandwidth + " links, " + q.latency +
         " latency, full-duplex fluid model; every byte checked for our schedules\n";
}

std::string faraj_yuan_machine_text(const experiments::FarajYuanMachine& m) {
  const Tree& tree = std::get<Tree>(m.machine.model);
  const Tree::Cut cut = tree.bottleneck();
  std::string out =
      "\n" + text_escape(m.machine.name) + ": " + describe(m.machine.model) + ", bottleneck " +
      text_escape(tree.node_name(cut.a)) + " - " + text_escape(tree.node_name(cut.b)) + " (" +
      std::to_string(cut.machines_a) + " x " + std::to_string(cut.machines_b) + "), simulated in " +
      figure(std::round(m.wall_seconds * 10) / 10) + " s wall time\n\n" + m.table.text();
  for (const auto& [why, sizes] : m.notes) out += "  " + text_escape(why) + " (at " + sizes + ")\n";
  return out;
}

}  // namespace phasecheck::reports
