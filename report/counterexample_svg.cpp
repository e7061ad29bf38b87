#include "report/counterexample_svg.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "core/escape.hpp"
#include "report/svg.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

const verify::CheckResult* drawable_failure(const verify::Report& report) {
  for (const verify::CheckResult& c : report.checks)
    if (c.verdict == Verdict::fail && c.counterexample && c.counterexample->phase &&
        !c.counterexample->transfers.empty())
      return &c;
  return nullptr;
}

namespace {

constexpr const char* kRed = "#d62728";
constexpr const char* kGrey = "#b0b0b0";
constexpr double kLeft = 50, kAxis = 940, kArc = 130;

/// Words of `text` in lines of at most `width` characters.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines(1);
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width)
      lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
  }
  return lines;
}

/// Whether the shared resource is the hop a -> b ("link a -> b", "link a -> b (capacity 2)").
bool shared_hop(const std::string& resource, const std::string& a, const std::string& b) {
  const std::string link = "link " + a + " -> " + b;
  return resource == link || resource.starts_with(link + " (");
}

/// Whether the shared resource is node `name` of a route ("node 1 (ranks 1-2)").
bool shared_node(const std::string& resource, const std::string& name) {
  return resource == name || resource.starts_with(name + " (");
}

/// Whether the shared resource is rank `rank` at the `sending` end of a transfer: its ports
/// ("send ports of rank 3 (k = 1)") or the rank itself ("rank 3").
bool shared_end(const std::string& resource, Rank rank, bool sending) {
  const std::string r = std::to_string(rank);
  return resource.starts_with(std::string(sending ? "send" : "receive") + " ports of rank " + r +
                              " (") ||
         (!sending && resource == "rank " + r);
}

void marker(std::ostream& o, const std::string& id, const char* color) {
  o << "<marker id=\"" << id
    << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
       "markerWidth=\"9\" markerHeight=\"9\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\""
    << color << "\"/></marker>\n";
}

/// An arc src -> dst over the rank line at `axis`: above going right, below going left.
void arc(std::ostream& o, double x1, double x2, double axis, bool offending,
         const std::string& title) {
  // A conflicting arc stands out even between neighbours of 4,096 ranks.
  const double peak = std::min(kArc, std::abs(x2 - x1) / 3 + (offending ? 40 : 10));
  const double cy = x2 >= x1 ? axis - 2 * peak : axis + 2 * peak;
  o << "<path class=\"" << (offending ? "offending" : "transfer") << "\" d=\"M" << fixed(x1, 1)
    << "," << axis << " Q" << fixed((x1 + x2) / 2, 1) << "," << fixed(cy, 1) << " " << fixed(x2, 1)
    << "," << axis << "\" fill=\"none\" stroke=\"" << (offending ? kRed : kGrey)
    << "\" stroke-width=\"" << (offending ? "2.5" : "1") << "\" marker-end=\"url(#"
    << (offending ? "arrow-red" : "arrow-grey") << ")\"><title>" << xml_escape_line(title)
    << "</title></path>\n";
}

double box_width(const std::string& name) { return std::max(36.0, 7.0 * double(name.size()) + 12); }

}  // namespace

std::string counterexample_svg(const verify::CheckResult& check, const verify::Report& report,
                               Rank ranks, const Phase* phase, std::string_view source) {
  const Counterexample& x = *check.counterexample;
  const std::size_t index = x.phase.value_or(0);
  const auto rank_x = [&](Rank r) {
    return ranks > 1 ? kLeft + kAxis * double(r) / double(ranks - 1) : kLeft + kAxis / 2;
  };

  // Caption lines, then the two panels; the height follows from them.
  std::vector<std::string> caption = wrap(
      "The conflicting transfers in red" +
          std::string(x.resource.empty() ? "" : ", sharing " + x.resource) + ". " + x.explanation,
      140);
  const bool context = phase != nullptr && phase->size() <= kMaxContextTransfers;
  caption.push_back(
      "Phase " + std::to_string(index) + " has " + std::to_string(x.phase_size) + " transfers; " +
      std::to_string(x.transfers.size()) + " conflict" +
      (context ? "; the others are grey."
       : phase
           ? "; the others are not drawn (more than " + std::to_string(kMaxContextTransfers) + ")."
           : "; the others are not drawn (the schedule was read from a stream)."));
  const double top = 42 + 18 * double(caption.size()) + 20;
  const double axis = top + 20 + kArc;
  const double routes_top = axis + kArc + 50;
  double width = kLeft + kAxis + 50;
  for (const OffendingTransfer& t : x.transfers) {
    double w = 120;
    for (const std::string& n : t.route) w += box_width(n) + 28;
    width = std::max(width, w + 20);
  }
  const double height = routes_top + 30 + 40 * double(x.transfers.size()) + 10;

  std::ostringstream o;
  svg_open(o, width, height);
  o << "<defs>\n";
  marker(o, "arrow-red", kRed);
  marker(o, "arrow-grey", kGrey);
  o << "</defs>\n";
  svg_text(o, 10, 22,
           "FAIL " + std::string(check.name()) + ": phase " + std::to_string(index) +
               (x.label.empty() ? "" : " (" + x.label + ")") + " of " + report.algorithm + " on " +
               report.topology + "  [" + std::string(source) + "]",
           "font-size=\"14\"");
  for (std::size_t i = 0; i < caption.size(); ++i)
    svg_text(o, 10, 42 + 18 * double(i), caption[i],
             i + 1 < caption.size() ? "fill=\"#b00000\"" : "");

  // The phase: ranks on a line, transfers as arcs.
  svg_text(o, 10, top, "The phase, ranks left to right (arcs above go right, below go left):",
           "font-weight=\"bold\"");
  o << "<line x1=\"" << kLeft << "\" y1=\"" << axis << "\" x2=\"" << kLeft + kAxis << "\" y2=\""
    << axis << "\" stroke=\"black\"/>\n";
  const Rank step = std::max<Rank>(1, (ranks + 31) / 32);
  for (Rank r = 0; r < ranks; r += step) {
    o << "<line x1=\"" << fixed(rank_x(r), 1) << "\" y1=\"" << axis - 3 << "\" x2=\""
      << fixed(rank_x(r), 1) << "\" y2=\"" << axis + 3 << "\" stroke=\"black\"/>\n";
    svg_text(o, rank_x(r), axis + kArc + 16, std::to_string(r),
             "text-anchor=\"middle\" font-size=\"10\"");
  }
  svg_text(o, kLeft + kAxis / 2, axis + kArc + 32, "rank", "text-anchor=\"middle\"");
  if (context)
    for (const Transfer& t : phase->transfers()) {
      if (t.local()) continue;
      const bool conflicting =
          std::any_of(x.transfers.begin(), x.transfers.end(),
                      [&](const OffendingTransfer& f) { return f.src == t.src && f.dst == t.dst; });
      if (!conflicting)
        arc(o, rank_x(t.src), rank_x(t.dst), axis, false,
            transfer_text(t.src, t.dst, phase->blocks(t)));
    }
  for (const OffendingTransfer& t : x.transfers)
    arc(o, rank_x(t.src), rank_x(t.dst), axis, true,
        transfer_text(t.src, t.dst, t.blocks) + (t.origin.empty() ? "" : " (" + t.origin + ")"));

  // The routes of the conflicting transfers, the shared hop, node or port in red.
  svg_text(o, 10, routes_top, "The routes of the conflicting transfers:", "font-weight=\"bold\"");
  for (std::size_t i = 0; i < x.transfers.size(); ++i) {
    const OffendingTransfer& t = x.transfers[i];
    const double y = routes_top + 20 + 40 * double(i);
    svg_text(o, 10, y + 17, std::to_string(t.src) + " -> " + std::to_string(t.dst),
             "font-weight=\"bold\"");
    double at = 120;
    for (std::size_t n = 0; n < t.route.size(); ++n) {
      const std::string& name = t.route[n];
      const double w = box_width(name);
      if (n > 0) {
        const bool hop = shared_hop(x.resource, t.route[n - 1], name);
        o << "<line" << (hop ? " class=\"shared\"" : "") << " x1=\"" << at - 28 << "\" y1=\""
          << y + 12 << "\" x2=\"" << at - 2 << "\" y2=\"" << y + 12 << "\" stroke=\""
          << (hop ? kRed : "black") << "\" stroke-width=\"" << (hop ? 3 : 1)
          << "\" marker-end=\"url(#" << (hop ? "arrow-red" : "arrow-grey") << ")\">";
        o << "<title>" << xml_escape_line("link " + t.route[n - 1] + " -> " + name)
          << "</title></line>\n";
        if (hop)
          svg_text(o, at - 15, y - 2, "shared",
                   "text-anchor=\"middle\" font-size=\"9\" fill=\"#b00000\"");
      }
      const bool shared = shared_node(x.resource, name) ||
                          (n == 0 && shared_end(x.resource, t.src, true)) ||
                          (n + 1 == t.route.size() && shared_end(x.resource, t.dst, false));
      o << "<rect" << (shared ? " class=\"shared\"" : "") << " x=\"" << at << "\" y=\"" << y
        << "\" width=\"" << w << "\" height=\"24\" rx=\"4\" fill=\""
        << (shared ? "#fde0dd" : "#f7f7f7") << "\" stroke=\"" << (shared ? kRed : "#666")
        << "\" stroke-width=\"" << (shared ? 2 : 1) << "\"/>\n";
      svg_text(o, at + w / 2, y + 16, name, "text-anchor=\"middle\"");
      at += w + 28;
    }
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace phasecheck::reports
