#include "report/skew_plot.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <numeric>
#include <sstream>

#include "core/escape.hpp"
#include "report/svg.hpp"

namespace phasecheck::reports {
namespace {

const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
const char* const kDashes[] = {"", "6 3", "2 3", "8 3 2 3", "1 2"};

/// The index of `value` in `seen`, appended when new.
template <typename T>
std::size_t index_of(std::vector<T>& seen, const T& value) {
  const auto at = std::find(seen.begin(), seen.end(), value);
  if (at != seen.end()) return std::size_t(at - seen.begin());
  seen.push_back(value);
  return seen.size() - 1;
}

}  // namespace

std::string cost_ratio_svg(const std::string& title, const experiments::AlltoallvAnswer& answer) {
  const std::vector<double>& skews = answer.skews;
  // The points of a line go left to right whatever the order the skews were given in.
  std::vector<std::size_t> order(skews.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return skews[a] < skews[b]; });
  const double lo = skews.empty() ? 0 : skews[order.front()];
  const double hi = skews.empty() ? 1 : skews[order.back()];
  double ymax = 1.1;
  for (const auto& curve : answer.curves)
    for (const double v : curve.ratio)
      if (std::isfinite(v)) ymax = std::max(ymax, v * 1.05);
  const double W = 760, H = 440, left = 60, right = 230, top = 40, bottom = 50;
  const double pw = W - left - right, ph = H - top - bottom, ymin = 1 - (ymax - 1) * 0.05;
  const auto x = [&](double s) {
    return hi > lo ? left + pw * (s - lo) / (hi - lo) : left + pw / 2;
  };
  const auto y = [&](double v) { return top + ph * (1 - (v - ymin) / (ymax - ymin)); };
  std::ostringstream o;
  svg_open(o, W, H);
  svg_text(o, left, 22, title, "font-size=\"14\"");
  o << "<line x1=\"" << fixed(left, 1) << "\" y1=\"" << fixed(top + ph, 1) << "\" x2=\""
    << fixed(left + pw, 1) << "\" y2=\"" << fixed(top + ph, 1) << "\" stroke=\"black\"/>\n"
    << "<line x1=\"" << fixed(left, 1) << "\" y1=\"" << fixed(top, 1) << "\" x2=\""
    << fixed(left, 1) << "\" y2=\"" << fixed(top + ph, 1) << "\" stroke=\"black\"/>\n";
  for (const double s : skews)
    svg_text(o, x(s), top + ph + 18, fixed(s, 2), "text-anchor=\"middle\"");
  svg_text(o, left + pw / 2, H - 10, "Zipf skew of expert popularity", "text-anchor=\"middle\"");
  for (int t = 0; t <= 5; ++t) {
    const double v = 1 + (ymax - 1) * t / 5;
    svg_text(o, left - 6, y(v) + 4, fixed(v, 3), "text-anchor=\"end\"");
    o << "<line x1=\"" << fixed(left, 1) << "\" y1=\"" << fixed(y(v), 1) << "\" x2=\""
      << fixed(left + pw, 1) << "\" y2=\"" << fixed(y(v), 1) << "\" stroke=\"#eee\"/>\n";
  }
  o << "<text x=\"14\" y=\"" << fixed(top + ph / 2, 1) << "\" transform=\"rotate(-90 14 "
    << fixed(top + ph / 2, 1) << ")\" text-anchor=\"middle\">cost bytes / load bound</text>\n";
  o << "<line x1=\"" << fixed(left, 1) << "\" y1=\"" << fixed(y(1), 1) << "\" x2=\""
    << fixed(left + pw, 1) << "\" y2=\"" << fixed(y(1), 1)
    << "\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n";
  double legend = top;
  svg_text(o, left + pw + 12, legend + 4, "- - load bound");
  std::vector<std::string> algorithms;
  std::vector<Rank> rank_counts;
  for (const auto& curve : answer.curves) {
    // A line without a point (every row n/a or failed) would only crowd the legend.
    if (std::none_of(curve.ratio.begin(), curve.ratio.end(),
                     [](double v) { return std::isfinite(v); }))
      continue;
    const char* color = kColors[index_of(algorithms, curve.algorithm) % std::size(kColors)];
    const char* dash = kDashes[index_of(rank_counts, curve.ranks) % std::size(kDashes)];
    std::string points;
    for (const std::size_t i : order) {
      const double v = curve.ratio[i];
      if (!std::isfinite(v)) continue;
      points += fixed(x(skews[i]), 1) + "," + fixed(y(v), 1) + " ";
      o << "<circle cx=\"" << fixed(x(skews[i]), 1) << "\" cy=\"" << fixed(y(v), 1)
        << "\" r=\"2.5\" fill=\"" << color << "\"/>\n";
    }
    o << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1.5\""
      << (*dash ? std::string(" stroke-dasharray=\"") + dash + "\"" : std::string()) << " points=\""
      << points << "\"/>\n";
    legend += 18;
    o << "<line x1=\"" << fixed(left + pw + 12, 1) << "\" y1=\"" << fixed(legend, 1) << "\" x2=\""
      << fixed(left + pw + 30, 1) << "\" y2=\"" << fixed(legend, 1) << "\" stroke=\"" << color
      << "\" stroke-width=\"2\""
      << (*dash ? std::string(" stroke-dasharray=\"") + dash + "\"" : std::string()) << "/>\n";
    svg_text(o, left + pw + 34, legend + 4, curve.algorithm + " p=" + std::to_string(curve.ranks));
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace phasecheck::reports
