#include "io/simgrid_platform.hpp"

#include <algorithm>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include <pugixml.hpp>

#include "core/escape.hpp"

namespace phasecheck::io {
namespace {

/// Text allowed inside an XML comment: XML characters only (a name comes from the topology file),
/// no "--", and no '-' at its end.
std::string comment_text(const std::string& s) {
  std::string out = " " + xml_chars(s);
  for (std::size_t at; (at = out.find("--")) != std::string::npos;) out.replace(at, 2, "- -");
  return out + " ";
}

}  // namespace

std::string simgrid_platform_xml(const Tree& tree, const std::string& bandwidth,
                                 const std::string& latency) {
  pugi::xml_document doc;
  auto declaration = doc.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  doc.append_child(pugi::node_doctype)
      .set_value("platform SYSTEM \"https://simgrid.org/simgrid.dtd\"");
  auto platform = doc.append_child("platform");
  platform.append_attribute("version") = "4.1";
  auto zone = platform.append_child("zone");
  zone.append_attribute("id") = "tree";
  zone.append_attribute("routing") = "Floyd";
  for (std::size_t i = 0; i < tree.machines().size(); ++i) {
    auto host = zone.append_child("host");
    host.append_attribute("id") = ("h" + std::to_string(i)).c_str();
    host.append_attribute("speed") = "1Gf";
    zone.append_child(pugi::node_comment).set_value(comment_text(tree.machines()[i]).c_str());
  }
  for (std::size_t j = 0; j < tree.switches().size(); ++j) {
    zone.append_child("router").append_attribute("id") = ("s" + std::to_string(j)).c_str();
    zone.append_child(pugi::node_comment).set_value(comment_text(tree.switches()[j]).c_str());
  }
  // Each link names its ends: looked up once per end, not by a search per link.
  std::unordered_map<std::string_view, std::string> ids;
  for (std::size_t i = 0; i < tree.machines().size(); ++i)
    ids.emplace(tree.machines()[i], "h" + std::to_string(i));
  for (std::size_t j = 0; j < tree.switches().size(); ++j)
    ids.emplace(tree.switches()[j], "s" + std::to_string(j));
  const auto id = [&](const std::string& name) { return ids.at(name); };
  for (std::size_t i = 0; i < tree.links().size(); ++i) {
    auto link = zone.append_child("link");
    link.append_attribute("id") = ("cable" + std::to_string(i)).c_str();
    link.append_attribute("bandwidth") = xml_chars(bandwidth).c_str();
    link.append_attribute("latency") = xml_chars(latency).c_str();
    link.append_attribute("sharing_policy") = "SPLITDUPLEX";
  }
  for (std::size_t i = 0; i < tree.links().size(); ++i) {
    const auto& [a, b] = tree.links()[i];
    auto route = zone.append_child("route");
    route.append_attribute("src") = id(a).c_str();
    route.append_attribute("dst") = id(b).c_str();
    auto ctn = route.append_child("link_ctn");
    ctn.append_attribute("id") = ("cable" + std::to_string(i)).c_str();
    ctn.append_attribute("direction") = "UP";
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent, pugi::encoding_utf8);
  return out.str();
}

std::string simgrid_hostfile(const Tree& tree) {
  std::string out;
  for (std::size_t i = 0; i < tree.machines().size(); ++i) out += "h" + std::to_string(i) + "\n";
  return out;
}

}  // namespace phasecheck::io
