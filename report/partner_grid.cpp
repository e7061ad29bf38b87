#include "report/partner_grid.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "report/svg.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

PartnerGrid::PartnerGrid(const ScheduleHeader& header, std::uint32_t max_cells)
    : ranks_(header.ranks()), grid_(header.ranks(), max_cells), sent_(header.ranks(), 0) {}

void PartnerGrid::consume(const Phase& phase) {
  const std::uint64_t index = grid_.phases();
  grid_.start_phase(text_escape(phase.label()));  // once a phase, not per cell
  const bool detail = grid_.full_resolution();
  const auto transfers = phase.transfers();
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    if (t.src >= ranks_ || t.dst >= ranks_)
      throw InputError("phase " + std::to_string(index) + ", transfer " + std::to_string(i) +
                       ": rank " + std::to_string(std::max(t.src, t.dst)) + " does not exist (" +
                       std::to_string(ranks_) + " ranks)");
    if (t.local()) continue;  // a local copy is free: not a partner
    GridCell& cell = grid_.cell(t.src);
    if (sent_[t.src] != index + 1) {
      sent_[t.src] = index + 1;
      ++cell.busy;
    }
    const std::uint64_t distance = (std::uint64_t{t.dst} + ranks_ - t.src) % ranks_;
    ++cell.items;
    cell.sum += distance;
    cell.max = std::max(cell.max, distance);
    if (detail) {
      const std::string text = transfer_text(t.src, t.dst, phase.blocks(t));
      cell.describe("sends " + text);
      grid_.cell(t.dst).describe("receives " + text);
    }
  }
}

namespace {

/// The colour of a mean partner distance in [1, p - 1] with `busy` of the cell's rank-phase
/// pairs sending: hue from red (1) to magenta (p - 1), paler as fewer send.
std::string distance_color(double distance, Rank p, double busy) {
  const double span = p > 2 ? double(p - 2) : 1.0;
  return hsl_color(300 * (distance - 1) / span, 0.7, 0.45 + (1 - busy) * 0.45);
}

constexpr const char* kIdle = "#eeeeee";

std::string cell_title(const BinnedGrid& g, std::uint64_t r, std::uint64_t c,
                       const GridCell& cell) {
  if (g.full_resolution()) {
    const std::string& label = g.labels()[c];
    std::string title = "phase " + std::to_string(c) + (label.empty() ? "" : " (" + label + ")") +
                        ", rank " + std::to_string(r) + "\n";
    title += cell.detail.empty() ? "no transfer" : cell.detail;
    if (cell.unlisted) title += "\n... and " + std::to_string(cell.unlisted) + " more";
    return title;
  }
  std::string title = "phases " + span_text(g.phases_of(c)) + ", ranks " + span_text(g.rows_of(r));
  if (cell.items == 0) return title + ": idle";
  const auto [r0, r1] = g.rows_of(r);
  const auto [c0, c1] = g.phases_of(c);
  const double pairs = double(r1 - r0 + 1) * double(c1 - c0 + 1);
  return title + ": " + std::to_string(cell.items) + " sends, " +
         fixed(100 * double(cell.busy) / pairs, 0) + "% busy, mean partner distance " +
         fixed(double(cell.sum) / double(cell.items), 1);
}

}  // namespace

std::string partner_grid_svg(const PartnerGrid& grid, std::string_view title) {
  const BinnedGrid& g = grid.grid();
  const Rank p = grid.ranks();
  const std::uint64_t rows = g.row_bins(), cols = g.columns().size();
  const double cell = grid_cell_size(rows, cols);
  const double left = 70, top = 84, gw = double(cols) * cell, gh = double(rows) * cell;
  const double width = std::max(left + gw + 30, 800.0), height = top + gh + 120;
  std::ostringstream o;
  svg_open(o, width, height);
  svg_text(o, 10, 22, title, "font-size=\"14\"");
  const std::string scale = "(" + std::to_string(p) + " ranks, " + std::to_string(g.phases()) +
                            " phases in " + std::to_string(rows) + " x " + std::to_string(cols) +
                            " cells)";
  svg_text(o, 10, 42,
           g.full_resolution()
               ? "One cell per rank (row, as sender) and phase (column) " + scale + "."
               : "One cell = " + std::to_string(g.row_bin()) + " ranks x " +
                     std::to_string(g.phase_bin()) + " phases " + scale + ".");
  svg_text(o, 10, 60,
           "Hue: " + std::string(g.full_resolution() ? "" : "mean ") +
               "partner distance (dst - src mod " + std::to_string(p) + ") of the cell's sends" +
               (g.full_resolution() ? "" : "; paler: fewer of its rank-phase pairs send (busy)") +
               "; grey: sends nothing.");
  if (cols == 0) svg_text(o, left, top + 20, "The schedule has no phases.");

  // Axes: a label every few cells, far enough apart to read.
  svg_ticks(o, false, left, top + gh + 14, cell, cols, 40,
            [&](std::uint64_t c) { return std::to_string(g.phases_of(c).first); });
  svg_text(o, left + gw / 2, top + gh + 30, "phase", "text-anchor=\"middle\"");
  svg_ticks(o, true, top, left - 4, cell, rows, 14,
            [&](std::uint64_t r) { return std::to_string(g.rows_of(r).first); });
  svg_vertical_text(o, 16, top + gh / 2, "rank");

  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) {
      const GridCell& x = g.columns()[c][r];
      const auto [r0, r1] = g.rows_of(r);
      const auto [c0, c1] = g.phases_of(c);
      const double busy = double(x.busy) / (double(r1 - r0 + 1) * double(c1 - c0 + 1));
      svg_cell(o, left + double(c) * cell, top + double(r) * cell, cell,
               x.items ? distance_color(double(x.sum) / double(x.items), p, busy) : kIdle,
               cell_title(g, r, c, x));
    }

  // The legend: the distance scale in twelve steps, and idle.
  const double ly = top + gh + 50;
  svg_text(o, 10, ly + 12, "partner distance:");
  const Rank far = p > 1 ? p - 1 : 1;
  for (int i = 0; i < 12; ++i) {
    const double d = 1 + double(far - 1) * i / 11;
    o << "<rect x=\"" << 120 + i * 24 << "\" y=\"" << ly << "\" width=\"24\" height=\"16\" fill=\""
      << distance_color(d, p, 1) << "\"/>\n";
  }
  svg_text(o, 120, ly + 30, "1", "font-size=\"10\"");
  svg_text(o, 120 + 12 * 24, ly + 30, std::to_string(far), "text-anchor=\"end\" font-size=\"10\"");
  o << "<rect x=\"" << 430 << "\" y=\"" << ly << "\" width=\"16\" height=\"16\" fill=\"" << kIdle
    << "\" stroke=\"#999\"/>\n";
  svg_text(o, 452, ly + 12, "sends nothing");
  o << "</svg>\n";
  return o.str();
}

}  // namespace phasecheck::reports
