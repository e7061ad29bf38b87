#pragma once
/// What every SVG picture of phasecheck shares: the document's opening (size, a generic font, a
/// white background), colours as "#rrggbb" from hue, saturation and lightness, and numbers in a
/// fixed format. Pictures are self-contained (no scripts, fonts or links outside the file) and
/// deterministic: the same input gives the same bytes.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "core/schedule.hpp"

namespace phasecheck::reports {

/// `<svg ...>` with the given size in pixels, font-family sans-serif, font-size 12, and a white
/// background; the caller writes the content and "</svg>\n".
void svg_open(std::ostream& os, double width, double height);

/// "#rrggbb" of hue (degrees, any value, taken modulo 360), saturation and lightness (0 to 1).
std::string hsl_color(double hue, double saturation, double lightness);

/// `value` with `decimals` digits after the point ("12.5" for 12.5 and 1), the C locale's way.
std::string fixed(double value, int decimals);

/// A text element at (x, y) with `attributes` (e.g. `text-anchor="end"`) and `text` through
/// xml_escape_line() (core/escape.hpp): one line, XML-escaped.
void svg_text(std::ostream& os, double x, double y, std::string_view text,
              std::string_view attributes = {});

/// The grids of `draw` (report/partner_grid.hpp, report/link_heatmap.hpp): the side of a square
/// cell in pixels for `rows` x `columns` cells, about 1024 pixels across, 2 to 16 each.
double grid_cell_size(std::uint64_t rows, std::uint64_t columns);
/// A grid cell `<rect class="cell">` at (x, y) with its hover title.
void svg_cell(std::ostream& os, double x, double y, double size, std::string_view fill,
              std::string_view title);
/// Labels beside `count` cells of `size` pixels starting at `start`, one every `spacing` pixels
/// at least: label(i) for cell i, at `across` on the other axis. `vertical`: down a column of
/// rows (right-aligned), else along a row of columns (centred).
void svg_ticks(std::ostream& os, bool vertical, double start, double across, double size,
               std::uint64_t count, double spacing,
               const std::function<std::string(std::uint64_t)>& label);
/// An axis title written upwards, centred on (x, y).
void svg_vertical_text(std::ostream& os, double x, double y, std::string_view text);

/// A transfer as the pictures' hover titles name it: "5 -> 6 [5,6]", or with many blocks
/// "5 -> 6, 32 blocks: [5,6] [5,7] ... and 24 more" (at most kTitleBlocks listed).
inline constexpr std::size_t kTitleBlocks = 8;
std::string transfer_text(Rank src, Rank dst, std::span<const Block> blocks);

}  // namespace phasecheck::reports
