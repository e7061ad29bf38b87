#include "report/verify_report.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "verify/gap.hpp"

namespace phasecheck::reports {
namespace {

using verify::CheckResult;
using verify::Counterexample;
using verify::Report;
using verify::Verdict;
using OJson = nlohmann::ordered_json;

std::string upper(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "PASS";
    case Verdict::fail:
      return "FAIL";
    case Verdict::unknown:
      return "UNKNOWN";
    case Verdict::not_evaluated:
      return "NOT EVALUATED";
  }
  return "UNKNOWN";
}

}  // namespace

std::string_view verdict_mark(Verdict v) {
  switch (v) {
    case Verdict::pass:
      return "pass";
    case Verdict::fail:
      return "FAIL";
    case Verdict::unknown:
      return "????";
    case Verdict::not_evaluated:
      return "n/a ";
  }
  return "????";
}

namespace {

std::string blocks_text(const verify::OffendingTransfer& t, Collective c) {
  if (t.blocks.size() == 1 && t.blocks[0] == direct_block(c, t.src, t.dst)) return "";
  std::string s = "  carries";
  for (const Block& b : t.blocks) {
    s += ' ';
    s += to_string(b);
  }
  return s;
}

/// The counterexample drawn as its phase: the offending transfers with their routes, then the
/// shared resource.
void draw(std::ostream& os, const CheckResult& check, Collective c) {
  const Counterexample& x = *check.counterexample;
  os << "\n" << check.name() << ": " << text_escape(x.explanation) << "\n";
  if (x.phase) {
    const bool ops = !x.ops.empty();
    const std::size_t involved = ops ? x.ops.size() : x.transfers.size();
    os << "  phase " << *x.phase << " \"" << text_escape(x.label) << "\" (" << x.phase_size
       << (ops                 ? x.phase_size == 1 ? " op" : " ops"
           : x.phase_size == 1 ? " transfer"
                               : " transfers");
    if (involved > 0 && involved < x.phase_size) os << "; the " << involved << " involved";
    os << "):\n";
  }
  for (const auto& o : x.ops) {
    os << "    ";
    if (!x.phase || *x.phase != o.phase) os << "phase " << o.phase << " ";
    os << "op " << o.index << "   " << describe_op(o.op);
    if (!o.origin.empty()) os << "   (" << text_escape(o.origin) << ")";
    os << "\n";
  }
  std::size_t width = 0;
  for (const auto& t : x.transfers)
    width = std::max(width, (std::to_string(t.src) + " -> " + std::to_string(t.dst)).size());
  for (const auto& t : x.transfers) {
    std::string head = std::to_string(t.src) + " -> " + std::to_string(t.dst);
    os << "    " << head << std::string(width - head.size(), ' ');
    if (t.route.size() > 2 || (!t.route.empty() && t.route.front() != std::to_string(t.src))) {
      os << "   path ";
      for (std::size_t i = 0; i < t.route.size(); ++i)
        os << (i ? " > " : "") << text_escape(t.route[i]);
    }
    os << blocks_text(t, c);
    if (!t.origin.empty()) os << "   (" << text_escape(t.origin) << ")";
    os << "\n";
  }
  if (!x.steps.empty()) {
    os << "  steps:";
    for (const StepRef& s : x.steps) os << "\n    " << to_string(s);
    os << "\n";
  }
  if (!x.resource.empty())
    os << (x.ops.empty() ? "  shared: " : "  slot: ") << text_escape(x.resource) << "\n";
}

std::string text(const Report& r, std::string_view source) {
  std::ostringstream os;
  os << upper(r.verdict()) << "  " << text_escape(r.algorithm) << " (" << r.collective_name()
     << (r.inplace ? ", in place" : "") << ") on " << text_escape(r.topology) << ": "
     << tally(r.checks) << "  [" << text_escape(source) << "]\n";
  std::size_t width = 0;
  for (const auto& c : r.checks) width = std::max(width, c.name().size());
  for (const auto& c : r.checks)
    os << "  " << verdict_mark(c.verdict) << "  " << c.name()
       << std::string(width - c.name().size(), ' ') << "  " << text_escape(c.summary) << "\n";
  os << "  " << r.counts.phases << (r.counts.phases == 1 ? " phase, " : " phases, ")
     << r.counts.transfers << " transfers, C1 = " << r.counts.c1 << ", C2 = " << r.counts.c2
     << (r.counts.direct ? " (direct)" : " (forwarding)") << "\n";
  // The argument behind the binding bound, so the number is not a mystery, and the figure it
  // bounds (C1 or C2), so the reader knows which count to hold it against.
  const verify::Bound* binding = nullptr;
  for (const auto& b : r.bounds)
    if (!binding || b.value > binding->value) binding = &b;
  if (binding && binding->value > 0)
    os << "  lower bound " << binding->value << " on " << to_string(binding->metric) << ": "
       << text_escape(binding->argument) << "\n";
  if (r.bytes)
    os << "  cost " << r.bytes->cost << " bytes; load bound " << r.bytes->load_bound
       << " bytes: " << text_escape(r.bytes->argument) << "\n";
  for (const auto& c : r.checks)
    if (c.verdict == Verdict::fail && c.counterexample) draw(os, c, r.collective);
  return os.str();
}

OJson counterexample_json(const Counterexample& x) {
  OJson transfers = OJson::array();
  for (const auto& t : x.transfers) {
    OJson blocks = OJson::array();
    for (const Block& b : t.blocks) {
      OJson block = OJson::array({b.origin});
      if (b.dest != kEveryRank)
        block.push_back(b.dest);
      else if (b.part > 0)  // an allgather's part, as a file writes it: [origin, null, part]
        block.push_back(nullptr);
      if (b.part > 0) block.push_back(b.part);
      blocks.push_back(std::move(block));
    }
    OJson transfer{{"src", t.src}, {"dst", t.dst}, {"blocks", blocks}, {"route", t.route}};
    if (!t.origin.empty()) transfer["origin"] = t.origin;
    transfers.push_back(std::move(transfer));
  }
  const auto slot = [](Slot s) {
    return OJson::array({std::string(to_string(s.buffer)), s.index});
  };
  OJson ops = OJson::array();
  for (const auto& o : x.ops) {
    OJson op;
    op["phase"] = o.phase;
    op["op"] = o.index;
    if (o.op.local()) {
      op["rank"] = o.op.src;
    } else {
      op["src"] = o.op.src;
      op["dst"] = o.op.dst;
    }
    op["from"] = slot(o.op.from);
    op["to"] = slot(o.op.to);
    op["count"] = o.op.count;
    if (!o.origin.empty()) op["origin"] = o.origin;
    ops.push_back(std::move(op));
  }
  OJson j;
  j["phase"] = x.phase ? OJson(*x.phase) : OJson(nullptr);
  j["label"] = x.label;
  j["phase_size"] = x.phase_size;
  j["transfers"] = transfers;
  if (!x.ops.empty()) j["ops"] = ops;
  if (!x.steps.empty()) {
    OJson steps = OJson::array();
    for (const StepRef& s : x.steps)
      steps.push_back({{"gpu", s.gpu}, {"tb", s.threadblock}, {"step", s.step}});
    j["steps"] = std::move(steps);
  }
  j["resource"] = x.resource;
  j["explanation"] = x.explanation;
  return j;
}

}  // namespace

nlohmann::ordered_json check_json(const verify::CheckResult& c) {
  return {{"name", std::string(c.name())},
          {"verdict", std::string(to_string(c.verdict))},
          {"summary", c.summary},
          {"counterexample",
           c.counterexample ? counterexample_json(*c.counterexample) : OJson(nullptr)}};
}

nlohmann::ordered_json report_json(const verify::Report& r, std::string_view source) {
  OJson j;
  j["verdict"] = std::string(to_string(r.verdict()));
  j["schedule"] = std::string(source);
  j["algorithm"] = r.algorithm;
  j["collective"] = std::string(r.collective_name());
  if (r.inplace) j["inplace"] = true;  // only then: reports of other schedules stay as they were
  j["topology"] = r.topology;
  j["phases"] = r.counts.phases;
  j["transfers"] = r.counts.transfers;
  j["direct"] = r.counts.direct;
  j["C1"] = r.counts.c1;
  j["C2"] = r.counts.c2;
  const auto figure = [](std::optional<std::uint64_t> v) { return v ? OJson(*v) : OJson(nullptr); };
  const verify::KnownBounds known = verify::known_bounds(r);
  j["lower_bound"] = r.bytes ? OJson{{"C1", figure(known.c1)}, {"C2", figure(known.c2)}}
                             : OJson{{"C1", r.bound_c1}, {"C2", r.bound_c2}};
  const verify::Gap gap = verify::gap(r);
  j["gap"] = {{"C1", figure(gap.c1)}, {"C2", figure(gap.c2)}};
  if (r.bytes) {  // an alltoallv's figures in bytes (verify/traffic_bounds.hpp)
    j["cost_bytes"] = r.bytes->cost;
    j["load_bound_bytes"] = r.bytes->load_bound;
    j["load_bound_argument"] = r.bytes->argument;
  }
  OJson bounds = OJson::array();
  for (const auto& b : r.bounds)
    bounds.push_back({{"metric", std::string(to_string(b.metric))},
                      {"value", b.value},
                      {"argument", b.argument},
                      {"direct_only", b.direct_only}});
  j["bounds"] = bounds;
  OJson checks = OJson::array();
  for (const auto& c : r.checks) checks.push_back(check_json(c));
  j["checks"] = checks;
  return j;
}

std::string json_text(const nlohmann::ordered_json& report) {
  return report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string draw_check(const verify::CheckResult& check, Collective collective) {
  if (!check.counterexample)
    return std::string(check.name()) + ": " + text_escape(check.summary) + "\n";
  std::ostringstream os;
  draw(os, check, collective);
  return os.str().substr(1);  // draw() starts with a blank line
}

namespace {

std::string junit(const Report& r, std::string_view source) {
  const auto count = [&](auto pred) {
    return std::count_if(r.checks.begin(), r.checks.end(), pred);
  };
  const auto failures = count([](const CheckResult& c) {
    return c.verdict == Verdict::fail || c.verdict == Verdict::unknown;
  });
  const auto skipped =
      count([](const CheckResult& c) { return c.verdict == Verdict::not_evaluated; });
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"phasecheck\" tests=\"" << r.checks.size() << "\" failures=\""
     << failures << "\">\n"
     << "  <testsuite name=\"" << xml_escape_line(source) << "\" tests=\"" << r.checks.size()
     << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
  for (const auto& c : r.checks) {
    os << "    <testcase classname=\"phasecheck." << xml_escape_line(r.algorithm) << "\" name=\""
       << xml_escape_line(std::string(c.name()) + " on " + r.topology) << "\"";
    if (c.verdict == Verdict::pass) {
      os << "/>\n";
      continue;
    }
    if (c.verdict == Verdict::not_evaluated) {
      os << ">\n      <skipped message=\"" << xml_escape_line(c.summary)
         << "\"/>\n    </testcase>\n";
      continue;
    }
    std::ostringstream detail;
    if (c.counterexample) draw(detail, c, r.collective);
    os << ">\n      <failure message=\"" << xml_escape_line(c.summary) << "\" type=\""
       << to_string(c.verdict) << "\">" << xml_escape(detail.str()) << "</failure>\n"
       << "    </testcase>\n";
  }
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

std::string seconds(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", t);
  return buf;
}

using CostRows = std::vector<std::array<std::string, 5>>;

void print_rows(std::ostream& os, const CostRows& rows) {
  std::array<std::size_t, 5> width{};
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    os << " ";
    for (std::size_t i = 0; i < row.size(); ++i)
      os << " " << row[i]
         << (i + 1 < row.size() ? std::string(width[i] - row[i].size() + 1, ' ') : "");
    os << "\n";
  }
}

/// A row's mark: an equation is "equal" or "DIFFERS", a bound "kept" or "BEATEN".
std::string row_mark(Verdict v, bool equation) {
  switch (v) {
    case Verdict::pass:
      return equation ? "equal" : "kept";
    case Verdict::fail:
      return equation ? "DIFFERS" : "BEATEN";
    case Verdict::not_evaluated:
      return "n/a";
    case Verdict::unknown:
      return "?";
  }
  return "?";
}

void linear_text(const verify::CostReport& c, std::ostream& os) {
  os << "  linear model: t_s = " << seconds(c.model.ts) << " s, t_w = " << seconds(c.model.tw)
     << " s per byte, m = " << seconds(c.model.m) << " bytes per message\n\n";
  CostRows rows{{"", "time (s)", "T / row", "", "formula"}};
  for (const verify::CostRow& row : c.rows) {
    const bool schedule = row.kind == verify::CostRow::Kind::schedule;
    const bool equation = row.kind == verify::CostRow::Kind::equation;
    rows.push_back({to_string(row.kind), seconds(row.seconds),
                    schedule || row.seconds == 0 ? "" : seconds(c.seconds / row.seconds),
                    schedule ? "" : row_mark(row.verdict, equation), text_escape(row.name)});
  }
  print_rows(os, rows);
  if (!c.consistent())
    os << "\nThe table does not cost what the algorithm's own formulas say (DIFFERS: the equation "
          "and the table disagree; BEATEN: the table is below a lower bound, so the schedule or "
          "the bound is wrong).\n";
}

void machine_text(const verify::MachineCost& c, const Report& r, std::ostream& os) {
  os << "  on the machine: t_s = " << seconds(c.ts) << " s per phase with communication, ";
  if (c.block_bytes > 0)
    os << "m = " << seconds(c.block_bytes) << " bytes per message";
  else
    os << "the traffic matrix's bytes";
  os << "; a phase takes t_s + its busiest link's bytes / bandwidth\n\n";
  const verify::TimeBound& b = c.bound;
  print_rows(os, {{"", "time (s)", "T / row", "", "formula"},
                  {"machine", seconds(c.seconds), "", "",
                   "this schedule: " + std::to_string(c.phases) + " t_s + " +
                       seconds(c.transfer_seconds) + " s on its busiest links"},
                  {"machine bound", seconds(b.seconds), b.seconds > 0 ? seconds(c.gap_ratio()) : "",
                   row_mark(c.verdict, false),
                   "lower bound on " + text_escape(r.topology) + ": " +
                       (b.seconds > 0 ? text_escape(b.argument)
                                      : std::string("none: no cut has bandwidths"))}});
  if (b.seconds > 0)
    os << "  peak aggregate throughput <= " << seconds(b.peak_throughput())
       << " bytes/s (the collective's " << seconds(b.bytes) << " bytes over the bound)\n";
  if (c.uncounted_links > 0)
    os << "  " << c.uncounted_links
       << " directed links of unknown bandwidth carried bytes: their time is not counted\n";
  if (b.unusable > 0)
    os << "  " << b.unusable << " of " << b.cuts
       << " cuts cross a link of unknown bandwidth: they bound nothing\n";
  if (c.verdict == Verdict::fail)
    os << "\nThe schedule takes less than the machine's lower bound in seconds (BEATEN), which "
          "every schedule that delivers meets: the schedule or the bound is wrong.\n";
}

std::string cost_text(const CostParts& parts, const Report& r, std::string_view source) {
  std::ostringstream os;
  const double t = parts.linear ? parts.linear->seconds : parts.machine->seconds;
  os << upper(r.verdict()) << "  " << text_escape(r.algorithm) << " (" << r.collective_name()
     << ") on " << text_escape(r.topology) << ": T = " << seconds(t) << " s"
     << (parts.linear ? "" : " on the machine") << "  [" << text_escape(source) << "]\n";
  if (parts.linear) linear_text(*parts.linear, os);
  if (parts.machine) {
    if (parts.linear) os << "\n";
    machine_text(*parts.machine, r, os);
  }
  if (r.verdict() != Verdict::pass)
    os << "\nThe schedule is not valid on this model:\n" << text(r, source);
  return os.str();
}

OJson machine_json(const verify::MachineCost& c) {
  const verify::TimeBound& b = c.bound;
  const auto or_null = [](double v) { return v > 0 ? OJson(v) : OJson(); };
  return {{"ts", c.ts},
          {"m", or_null(c.block_bytes)},
          {"seconds", c.seconds},
          {"transfer_seconds", c.transfer_seconds},
          {"phases", c.phases},
          {"uncounted_links", c.uncounted_links},
          {"bound",
           {{"seconds", or_null(b.seconds)},
            {"argument", b.seconds > 0 ? OJson(b.argument) : OJson()},
            {"cuts", b.cuts},
            {"unusable_cuts", b.unusable},
            {"peak_throughput", or_null(b.peak_throughput())}}},
          {"verdict", std::string(to_string(c.verdict))},
          {"holds", c.verdict != Verdict::fail},
          {"gap_ratio", or_null(c.gap_ratio())}};
}

std::string cost_json(const CostParts& parts, const Report& r, std::string_view source) {
  OJson j;
  j["verdict"] = std::string(to_string(r.verdict()));
  j["consistent"] = parts.consistent();
  j["schedule"] = std::string(source);
  j["algorithm"] = r.algorithm;
  j["collective"] = std::string(r.collective_name());
  j["topology"] = r.topology;
  const verify::CostReport* c = parts.linear;
  j["model"] = c ? OJson{{"ts", c->model.ts}, {"tw", c->model.tw}, {"m", c->model.m}} : OJson();
  j["C1"] = r.counts.c1;
  j["C2"] = r.counts.c2;
  if (r.bytes) {
    j["cost_bytes"] = r.bytes->cost;
    j["load_bound_bytes"] = r.bytes->load_bound;
  }
  j["seconds"] = c ? OJson(c->seconds) : OJson();
  OJson rows = OJson::array();
  if (c)
    for (const verify::CostRow& row : c->rows)
      rows.push_back({{"kind", to_string(row.kind)},
                      {"formula", row.name},
                      {"seconds", row.seconds},
                      {"holds", row.holds()}});
  j["rows"] = rows;
  if (parts.machine) j["machine"] = machine_json(*parts.machine);
  return json_text(j);
}

}  // namespace

std::string render_cost(const verify::CostReport& cost, const Report& report,
                        std::string_view source, ReportFormat format) {
  return render_cost(CostParts{&cost, nullptr}, report, source, format);
}

std::string render_cost(const CostParts& parts, const Report& report, std::string_view source,
                        ReportFormat format) {
  return format == ReportFormat::json ? cost_json(parts, report, source)
                                      : cost_text(parts, report, source);
}

std::string render(const Report& report, std::string_view source, ReportFormat format) {
  switch (format) {
    case ReportFormat::json:
      return json_text(report_json(report, source));
    case ReportFormat::junit:
      return junit(report, source);
    case ReportFormat::text:
      return text(report, source);
    case ReportFormat::markdown:
    case ReportFormat::csv:
      break;
  }
  unsupported(format, "render(verify::Report)");
}

std::string render_error(ReportFormat format, std::string_view command, std::string_view source,
                         std::string_view message) {
  if (format == ReportFormat::json) {
    nlohmann::ordered_json j;
    j["verdict"] = "error";
    j["command"] = command;
    j["source"] = source;
    j["error"] = message;
    return json_text(j);
  }
  if (format == ReportFormat::junit) {
    std::ostringstream os;
    os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       << "<testsuites name=\"phasecheck\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
       << "  <testsuite name=\"" << xml_escape_line(source) << "\" tests=\"1\" failures=\"0\" "
       << "errors=\"1\" skipped=\"0\">\n"
       << "    <testcase classname=\"phasecheck." << xml_escape_line(command) << "\" name=\""
       << xml_escape_line(std::string(command) + " " + std::string(source)) << "\">\n"
       << "      <error message=\"" << xml_escape_line(message) << "\" type=\"input\"/>\n"
       << "    </testcase>\n  </testsuite>\n</testsuites>\n";
    return os.str();
  }
  if (format == ReportFormat::markdown)
    return "### ⚠️ phasecheck " + markdown_escape(command) + ": error\n\n" +
           markdown_escape(source) + ":\n\n" + markdown_code_block(message);
  return text_escape(message, Newlines::keep) + "\n";
}

}  // namespace phasecheck::reports
