#include "report/svg_plot.hpp"

#include <cmath>
#include <iterator>
#include <sstream>

#include "core/escape.hpp"
#include "report/svg.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

namespace {

const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

}  // namespace

std::string throughput_svg(const std::string& title, const std::vector<std::uint64_t>& sizes,
                           const std::vector<std::pair<std::string, std::vector<double>>>& series,
                           double peak) {
  const double W = 760, H = 420, left = 60, right = 230, top = 40, bottom = 50;
  const double pw = W - left - right, ph = H - top - bottom, ymax = peak * 1.15;
  const auto x = [&](std::size_t i) {
    return sizes.size() < 2 ? left + pw / 2 : left + pw * double(i) / double(sizes.size() - 1);
  };
  const auto y = [&](double v) { return top + ph * (1 - v / ymax); };
  std::ostringstream o;
  svg_open(o, W, H);
  o << "<text x=\"" << left << "\" y=\"22\" font-size=\"14\">" << xml_escape_line(title)
    << "</text>\n"
    << "<line x1=\"" << left << "\" y1=\"" << top + ph << "\" x2=\"" << left + pw << "\" y2=\""
    << top + ph << "\" stroke=\"black\"/>\n<line x1=\"" << left << "\" y1=\"" << top << "\" x2=\""
    << left << "\" y2=\"" << top + ph << "\" stroke=\"black\"/>\n";
  for (std::size_t i = 0; i < sizes.size(); ++i)
    o << "<text x=\"" << x(i) << "\" y=\"" << top + ph + 18 << "\" text-anchor=\"middle\">"
      << size_label(sizes[i]) << "</text>\n";
  o << "<text x=\"" << left + pw / 2 << "\" y=\"" << H - 10
    << "\" text-anchor=\"middle\">message size (bytes)</text>\n";
  for (int t = 0; t <= 5; ++t) {
    const double v = ymax * t / 5;
    o << "<text x=\"" << left - 6 << "\" y=\"" << y(v) + 4 << "\" text-anchor=\"end\">"
      << figure(std::round(v * 10) / 10) << "</text>\n<line x1=\"" << left << "\" y1=\"" << y(v)
      << "\" x2=\"" << left + pw << "\" y2=\"" << y(v) << "\" stroke=\"#eee\"/>\n";
  }
  o << "<text x=\"14\" y=\"" << top + ph / 2 << "\" transform=\"rotate(-90 14 " << top + ph / 2
    << ")\" text-anchor=\"middle\">aggregate throughput (MB/s)</text>\n";
  o << "<line x1=\"" << left << "\" y1=\"" << y(peak) << "\" x2=\"" << left + pw << "\" y2=\""
    << y(peak) << "\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n";
  double legend = top;
  o << "<text x=\"" << left + pw + 12 << "\" y=\"" << legend + 4 << "\">- - peak bound</text>\n";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const char* color = kColors[k % std::size(kColors)];
    std::string points;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const double v = series[k].second[i];
      if (!std::isfinite(v)) continue;
      points += figure(x(i)) + "," + figure(y(v)) + " ";
      o << "<circle cx=\"" << x(i) << "\" cy=\"" << y(v) << "\" r=\"2.5\" fill=\"" << color
        << "\"/>\n";
    }
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\" points=\""
      << points << "\"/>\n";
    legend += 18;
    o << "<line x1=\"" << left + pw + 12 << "\" y1=\"" << legend << "\" x2=\"" << left + pw + 30
      << "\" y2=\"" << legend << "\" stroke=\"" << color << "\" stroke-width=\"2\"/>\n<text x=\""
      << left + pw + 34 << "\" y=\"" << legend + 4 << "\">" << xml_escape_line(series[k].first)
      << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace phasecheck::reports
