#include "report/link_heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/escape.hpp"
#include "report/svg.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

LinkLoadGrid::LinkLoadGrid(const Topology& model, std::uint32_t max_cells)
    : model_(model), meter_(model), grid_(meter_.links(), max_cells), totals_(meter_.links(), 0) {}

void LinkLoadGrid::consume(const Phase& phase) {
  grid_.start_phase(text_escape(phase.label()));  // once a phase, not per cell
  meter_.consume(phase, [&](LinkId l, std::uint64_t load) {
    GridCell& cell = grid_.cell(l);
    ++cell.busy;
    ++cell.items;
    cell.sum += load;
    cell.max = std::max(cell.max, load);
    totals_[l] += load;
  });
}

std::optional<LinkId> LinkLoadGrid::bottleneck() const {
  const auto most = std::max_element(totals_.begin(), totals_.end());  // the first of equals
  if (most == totals_.end() || *most == 0) return std::nullopt;
  return static_cast<LinkId>(most - totals_.begin());
}

namespace {

constexpr const char* kIdle = "#eeeeee";
constexpr const char* kBusy = "#9ecae1";

/// Grey for nothing, blue for a load of 1, yellow (2) to dark red (`peak`) above.
std::string load_color(std::uint64_t load, std::uint64_t peak) {
  if (load == 0) return kIdle;
  if (load == 1) return kBusy;
  const double x = peak > 2 ? double(load - 2) / double(peak - 2) : 1.0;
  return hsl_color(55 * (1 - x), 0.9, 0.6 - 0.3 * x);
}

/// Names from a topology file, shown as one line of text (core/escape.hpp).
std::string links_text(const LinkLoadGrid& grid, std::pair<std::uint64_t, std::uint64_t> span) {
  const std::string first = link_name(grid.model(), static_cast<LinkId>(span.first));
  if (span.first == span.second) return text_escape("link " + first);
  return text_escape("links " + span_text(span) + " (" + first + " ... " +
                     link_name(grid.model(), static_cast<LinkId>(span.second)) + ")");
}

std::string cell_title(const LinkLoadGrid& grid, std::uint64_t r, std::uint64_t c,
                       const GridCell& cell) {
  const BinnedGrid& g = grid.grid();
  std::string title = links_text(grid, g.rows_of(r));
  if (g.full_resolution()) {
    const std::string& label = g.labels()[c];
    title += ", phase " + std::to_string(c) + (label.empty() ? "" : " (" + label + ")") + ": ";
    return title + (cell.items
                        ? "load " + std::to_string(cell.max) + (cell.max > 1 ? " (contended)" : "")
                        : "idle");
  }
  title += ", phases " + span_text(g.phases_of(c)) + ": ";
  if (cell.items == 0) return title + "idle";
  return title + "max load " + std::to_string(cell.max) + ", mean " +
         fixed(double(cell.sum) / double(cell.items), 2) + " over " + std::to_string(cell.items) +
         " busy link-phases";
}

}  // namespace

std::string link_heatmap_svg(const LinkLoadGrid& grid, std::string_view title) {
  const BinnedGrid& g = grid.grid();
  const std::uint64_t cols = g.columns().size();
  // The rows drawn: the bins with a link that carried something.
  std::vector<std::uint64_t> drawn;
  for (std::uint64_t r = 0; r < g.row_bins(); ++r) {
    const auto [first, last] = g.rows_of(r);
    if (std::any_of(grid.totals().begin() + first, grid.totals().begin() + last + 1,
                    [](std::uint64_t t) { return t > 0; }))
      drawn.push_back(r);
  }
  const std::optional<LinkId> bottleneck = grid.bottleneck();
  const std::uint64_t rows = drawn.size(), peak = grid.peak();
  const double cell = grid_cell_size(rows, cols);
  const bool named = g.row_bin() == 1;  // row labels name links
  const double left = named ? 180 : 90, top = 102;
  const double gw = double(cols) * cell, gh = double(rows) * cell;
  const double width = std::max(left + gw + 110, 820.0), height = top + gh + 110;
  std::ostringstream o;
  svg_open(o, width, height);
  svg_text(o, 10, 22, title, "font-size=\"14\"");
  const std::string scale = "(" + std::to_string(rows) + " of " + std::to_string(g.row_bins()) +
                            " rows carry something; " + std::to_string(g.phases()) + " phases)";
  svg_text(o, 10, 42,
           g.full_resolution()
               ? "One cell per directed link (row) and phase (column) " + scale + "."
               : "One cell = " + std::to_string(g.row_bin()) + " directed links x " +
                     std::to_string(g.phase_bin()) + " phases, the largest load in it " + scale +
                     ".");
  svg_text(o, 10, 60,
           "Load: blocks a link carries in a phase per unit of capacity; 1 is busy, 2 or more is "
           "contention (peak " +
               std::to_string(peak) + ").");
  if (bottleneck)
    svg_text(o, 10, 78,
             "Bottleneck: link " + link_name(grid.model(), *bottleneck) + ", load " +
                 std::to_string(grid.totals()[*bottleneck]) +
                 " over the schedule (the most loaded directed link; the lowest id among equals).",
             "fill=\"#b00000\"");
  else
    svg_text(o, 10, 78, "No link carries anything: there is no bottleneck.");

  svg_ticks(o, false, left, top + gh + 14, cell, cols, 40,
            [&](std::uint64_t c) { return std::to_string(g.phases_of(c).first); });
  svg_text(o, left + gw / 2, top + gh + 30, "phase", "text-anchor=\"middle\"");
  svg_ticks(o, true, top, left - 4, cell, rows, 12, [&](std::uint64_t i) {
    const std::uint64_t first = g.rows_of(drawn[i]).first;
    return named ? link_name(grid.model(), static_cast<LinkId>(first)) : std::to_string(first);
  });
  if (!named) svg_vertical_text(o, 16, top + gh / 2, "directed link id");

  std::optional<std::uint64_t> marked;
  for (std::uint64_t i = 0; i < rows; ++i) {
    const std::uint64_t r = drawn[i];
    const auto [first, last] = g.rows_of(r);
    if (bottleneck && *bottleneck >= first && *bottleneck <= last) marked = i;
    for (std::uint64_t c = 0; c < cols; ++c) {
      const GridCell& x = g.columns()[c][r];
      svg_cell(o, left + double(c) * cell, top + double(i) * cell, cell, load_color(x.max, peak),
               cell_title(grid, r, c, x));
    }
  }
  if (marked) {
    const double y = top + double(*marked) * cell;
    o << "<rect class=\"bottleneck\" x=\"" << left - 1 << "\" y=\"" << y - 1 << "\" width=\""
      << gw + 2 << "\" height=\"" << cell + 2
      << "\" fill=\"none\" stroke=\"#b00000\" stroke-width=\"2\"><title>"
      << xml_escape_line("bottleneck: link " + link_name(grid.model(), *bottleneck))
      << "</title></rect>\n";
    svg_text(o, left + gw + 6, y + cell / 2 + 4, "< bottleneck", "fill=\"#b00000\"");
  }

  // The legend: idle, 1, and the contention ramp from 2 to the peak.
  const double ly = top + gh + 50;
  svg_text(o, 10, ly + 12, "load per phase:");
  o << "<rect x=\"110\" y=\"" << ly << "\" width=\"16\" height=\"16\" fill=\"" << kIdle
    << "\" stroke=\"#999\"/>\n";
  svg_text(o, 130, ly + 12, "0");
  o << "<rect x=\"150\" y=\"" << ly << "\" width=\"16\" height=\"16\" fill=\"" << kBusy << "\"/>\n";
  svg_text(o, 170, ly + 12, "1");
  if (peak >= 2) {
    const std::uint64_t steps = std::min<std::uint64_t>(peak - 1, 10);
    for (std::uint64_t i = 0; i < steps; ++i) {
      const std::uint64_t load = 2 + (steps > 1 ? (peak - 2) * i / (steps - 1) : 0);
      o << "<rect x=\"" << 190 + i * 24 << "\" y=\"" << ly
        << "\" width=\"24\" height=\"16\" fill=\"" << load_color(load, peak) << "\"/>\n";
    }
    svg_text(o, 190, ly + 30, "2", "font-size=\"10\"");
    svg_text(o, 190 + double(steps) * 24, ly + 30, std::to_string(peak),
             "text-anchor=\"end\" font-size=\"10\"");
  }
  o << "</svg>\n";
  return o.str();
}

}  // namespace phasecheck::reports
