#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "core/escape.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

void svg_open(std::ostream& os, double width, double height) {
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
     << "\" viewBox=\"0 0 " << width << " " << height
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
     << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

std::string hsl_color(double hue, double saturation, double lightness) {
  // The CSS conversion (CSS Color 4, "HSL to RGB"), each channel rounded to 0..255.
  hue = std::fmod(std::fmod(hue, 360) + 360, 360);
  saturation = std::clamp(saturation, 0.0, 1.0);
  lightness = std::clamp(lightness, 0.0, 1.0);
  const auto channel = [&](double n) {
    const double k = std::fmod(n + hue / 30, 12);
    const double a = saturation * std::min(lightness, 1 - lightness);
    const double v = lightness - a * std::max(-1.0, std::min({k - 3, 9 - k, 1.0}));
    return static_cast<unsigned>(std::lround(std::clamp(v, 0.0, 1.0) * 255));
  };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", channel(0), channel(8), channel(4));
  return buf;
}

std::string fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

void svg_text(std::ostream& os, double x, double y, std::string_view text,
              std::string_view attributes) {
  os << "<text x=\"" << x << "\" y=\"" << y << "\"";
  if (!attributes.empty()) os << " " << attributes;
  os << ">" << xml_escape_line(text) << "</text>\n";
}

double grid_cell_size(std::uint64_t rows, std::uint64_t columns) {
  return std::clamp(std::floor(1024.0 / double(std::max<std::uint64_t>({rows, columns, 1}))), 2.0,
                    16.0);
}

void svg_cell(std::ostream& os, double x, double y, double size, std::string_view fill,
              std::string_view title) {
  os << "<rect class=\"cell\" x=\"" << x << "\" y=\"" << y << "\" width=\"" << size
     << "\" height=\"" << size << "\" fill=\"" << fill << "\"><title>" << xml_escape(title)
     << "</title></rect>\n";
}

void svg_ticks(std::ostream& os, bool vertical, double start, double across, double size,
               std::uint64_t count, double spacing,
               const std::function<std::string(std::uint64_t)>& label) {
  const auto every = static_cast<std::uint64_t>(std::max(1.0, std::ceil(spacing / size)));
  for (std::uint64_t i = 0; i < count; i += every) {
    const double at = start + (double(i) + 0.5) * size;
    if (vertical)
      svg_text(os, across, at + 3, label(i), "text-anchor=\"end\" font-size=\"10\"");
    else
      svg_text(os, at, across, label(i), "text-anchor=\"middle\" font-size=\"10\"");
  }
}

void svg_vertical_text(std::ostream& os, double x, double y, std::string_view text) {
  os << "<text x=\"" << x << "\" y=\"" << y << "\" transform=\"rotate(-90 " << x << " " << y
     << ")\" text-anchor=\"middle\">" << xml_escape_line(text) << "</text>\n";
}

std::string transfer_text(Rank src, Rank dst, std::span<const Block> blocks) {
  std::string text = std::to_string(src) + " -> " + std::to_string(dst);
  if (blocks.size() > kTitleBlocks) text += ", " + std::to_string(blocks.size()) + " blocks:";
  for (std::size_t i = 0; i < std::min(blocks.size(), kTitleBlocks); ++i)
    text += " " + to_string(blocks[i]);
  if (blocks.size() > kTitleBlocks)
    text += " ... and " + std::to_string(blocks.size() - kTitleBlocks) + " more";
  return text;
}

}  // namespace phasecheck::reports
