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

}  // namespace

Table bounds_table(const experiments::MachineBounds& b) {
  Table table({{"metric", "metric"},
               {"value", "bound"},
               {"applies_to", "applies to"},
               {"argument", "argument"}});
  for (const verify::Bound& bound : b.bounds)
    table.add({std::string(to_string(bound.metric)), bound.value,
               std::string(bound.direct_only ? "direct" : "any"), bound.argument});
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
  return out.str();
}

}  // namespace phasecheck::reports
