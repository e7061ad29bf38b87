#include "report/bounds_report.hpp"

#include <sstream>

#include "core/escape.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

/// Faraj & Yuan, Section 3: the bottleneck link, its load |Mu| x |Mv|, the peak aggregate
/// throughput bound, and the root and phases of Section 4. Nothing below 2 machines.
void tree_text(const experiments::TreeFigures& t, std::ostream& out) {
  if (!t.faraj_yuan) return;
  out << "\nbottleneck link " << text_escape(t.link_a) << " - " << text_escape(t.link_b)
      << ": |Mu| x |Mv| = " << t.machines_a << " x " << t.machines_b << " = " << t.load
      << " messages each way\n"
      << "peak aggregate throughput <= |M| (|M| - 1) B / (|Mu| |Mv|) = "
      << figure(t.peak_throughput_factor) << " B";
  if (t.peak_throughput)
    out << " = " << figure(*t.peak_throughput) << " bytes/s for B = " << figure(t.bandwidth)
        << " bytes/s";
  out << "\n";
  const experiments::FarajYuanFigures& fy = *t.faraj_yuan;
  out << "faraj-yuan: root " << text_escape(fy.root.value_or("(none)")) << ", subtrees of";
  for (std::size_t i = 0; i < fy.subtrees.size();) {  // sizes run-length coded: "16, 8, 8 x 1"
    std::size_t same = i;
    while (same < fy.subtrees.size() && fy.subtrees[same] == fy.subtrees[i]) ++same;
    out << (i ? ", " : " ");
    if (same - i > 1) out << same - i << " x ";
    out << fy.subtrees[i];
    i = same;
  }
  out << " machines: " << fy.phases << " phases = |M0| (|M| - |M0|), the bottleneck load\n";
}

nlohmann::ordered_json tree_json(const experiments::TreeFigures& t) {
  nlohmann::ordered_json j;
  j["bottleneck"] = {
      {"link", {t.link_a, t.link_b}}, {"machines", {t.machines_a, t.machines_b}}, {"load", t.load}};
  j["peak_throughput_factor"] = t.peak_throughput_factor;
  j["peak_throughput"] =
      t.peak_throughput ? nlohmann::ordered_json(*t.peak_throughput) : nlohmann::ordered_json();
  if (const auto& fy = t.faraj_yuan)
    j["faraj_yuan"] = {
        {"root", fy->root ? nlohmann::ordered_json(*fy->root) : nlohmann::ordered_json()},
        {"subtrees", fy->subtrees},
        {"phases", fy->phases}};
  return j;
}

/// A graph's lower bound in seconds (verify/time_bounds.hpp) and its throughput bound.
void seconds_text(const experiments::SecondsFigures& s, std::ostream& out) {
  const verify::TimeBound& b = s.per_byte;
  out << "\nbounds in seconds ("
      << (s.bandwidth > 0 ? "every link " + figure(s.bandwidth) + " bytes/s"
                          : std::string("the topology's link bandwidths"))
      << "): ";
  if (b.seconds <= 0) {
    out << "none: no cut has bandwidths\n";
  } else {
    out << "T >= " << figure(b.seconds) << " s per byte of block";
    if (s.bound)
      out << " = " << figure(s.bound->seconds) << " s for blocks of " << figure(s.block_bytes)
          << " bytes";
    out << "\n  " << text_escape(b.argument)
        << "\npeak aggregate throughput <= p (p - 1) m / T = " << figure(b.peak_throughput())
        << " bytes/s\n";
  }
  if (b.unusable > 0)
    out << b.unusable << " of " << b.cuts
        << " cuts cross a link of unknown bandwidth: they bound nothing\n";
}

nlohmann::ordered_json seconds_json(const experiments::SecondsFigures& s) {
  using J = nlohmann::ordered_json;
  const auto or_null = [](double v) { return v > 0 ? J(v) : J(); };
  const verify::TimeBound& b = s.per_byte;
  return {{"bandwidth", or_null(s.bandwidth)},
          {"seconds_per_byte", or_null(b.seconds)},
          {"argument", b.seconds > 0 ? J(b.argument) : J()},
          {"m", or_null(s.block_bytes)},
          {"seconds", s.bound ? or_null(s.bound->seconds) : J()},
          {"peak_throughput", or_null(b.peak_throughput())},
          {"cuts", b.cuts},
          {"unusable_cuts", b.unusable}};
}

}  // namespace

Table bounds_table(const experiments::MachineBounds& b) {
  Table table({{"metric", "metric"},
               {"value", "bound"},
               {"applies_to", "applies to"},
               {"argument", "argument"}});
  for (const verify::Bound& bound : b.bounds)
    table.add({std::string(to_string(bound.metric)), bound.value,
               std::string(bound.direct_only ? "direct" : "any"), bound.argument});
  // In seconds, on a graph with bandwidths: T/m per byte of block, T for the given m.
  if (b.seconds && b.seconds->per_byte.seconds > 0) {
    table.add({std::string("T/m"), b.seconds->per_byte.seconds, std::string("any"),
               b.seconds->per_byte.argument});
    if (b.seconds->bound)
      table.add({std::string("T"), b.seconds->bound->seconds, std::string("any"),
                 b.seconds->bound->argument});
  }
  return table;
}

std::string render_bounds(const experiments::MachineBounds& b, ReportFormat format) {
  const Table table = bounds_table(b);
  switch (format) {
    case ReportFormat::csv:
      return table.csv();
    case ReportFormat::json: {
      nlohmann::ordered_json j;
      j["topology"] = b.topology;
      j["kind"] = b.kind;
      j["ranks"] = b.ranks;
      j["collective"] = to_string(b.collective);
      j["bounds"] = table.json();
      j["direct_phases"] = b.direct_phases;
      j["forwarding"] = {{"C1", b.c1}, {"C2", b.c2}};
      j["tree"] = b.tree ? tree_json(*b.tree) : nlohmann::ordered_json(nullptr);
      if (b.seconds) j["seconds"] = seconds_json(*b.seconds);
      return json_text(j);
    }
    case ReportFormat::text:
      break;
    case ReportFormat::junit:
    case ReportFormat::markdown:
      unsupported(format, "render_bounds");
  }
  std::ostringstream out;
  out << "lower bounds for " << b.collective << " on " << text_escape(b.topology) << " (" << b.ranks
      << " ranks)\n"
      << table.text("  ") << "direct schedules need at least " << b.direct_phases
      << " phases with communication; with "
      << "forwarding C1 >= " << b.c1 << " and C2 >= " << b.c2 << "\n";
  if (b.tree) tree_text(*b.tree, out);
  if (b.seconds) seconds_text(*b.seconds, out);
  return out.str();
}

}  // namespace phasecheck::reports
