#pragma once
// The pictures' tests (report/*_svg, partner_grid, link_heatmap): what a person reads in an SVG,
// parsed with pugixml.

#include <pugixml.hpp>
#include <string>

namespace phasecheck::testing {

/// The content of the text elements `xpath` selects, one per line.
inline std::string svg_texts(const pugi::xml_document& doc, const char* xpath = "//text") {
  std::string text;
  for (const pugi::xpath_node& t : doc.select_nodes(xpath))
    text += std::string(t.node().child_value()) + "\n";
  return text;
}

}  // namespace phasecheck::testing
