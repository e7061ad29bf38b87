#pragma once
/// One XML file loaded as the project's readers of XML need it (io/msccl_xml.cpp,
/// io/nccl_topology.cpp): a UTF-8 XML 1.0 document checked for what XML refuses and pugixml lets
/// through, with every error an InputError "FILE:line:col: ...". Internal to phasecheck_io (it
/// exposes pugixml, which the library links privately).
///
/// No entity is ever expanded: pugixml decodes only the five predefined entities and character
/// references (checked here), and leaves any other `&name;` as it is written.

#include <cstddef>
#include <cstdint>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace phasecheck::io {

/// line:column (1-based) of byte offsets in a text, by a table of line starts.
class TextPositions {
 public:
  explicit TextPositions(std::string_view text);
  /// {0, 0} for a negative offset (pugixml's "no position").
  std::pair<std::size_t, std::size_t> at(std::ptrdiff_t offset) const;

 private:
  std::vector<std::size_t> starts_;
};

/// What a reader asks of its file beyond XML 1.0.
struct XmlRules {
  /// Said when there is a second element at the top level: "(an MSCCL file holds one <algo>)".
  std::string_view one_root_hint;
  /// Refuse a document type declaration (`<!DOCTYPE ...>`) instead of skipping it unread.
  bool refuse_doctype = false;
};

/// A parsed XML document. Throws InputError naming the source and line:column for: XML syntax;
/// bytes that are not UTF-8 and characters outside XML's Char, also as character references; an
/// attribute twice on one element; text or a second element around the root element; a DOCTYPE
/// when the rules refuse it. Parsing and checking use no recursion (the depth is the input's).
class XmlDocument {
 public:
  XmlDocument(std::string_view text, std::string_view source, const XmlRules& rules);
  XmlDocument(const XmlDocument&) = delete;
  XmlDocument& operator=(const XmlDocument&) = delete;

  /// The root element; an empty node when the document has none.
  pugi::xml_node root() const { return root_; }
  const std::string& source() const { return source_; }
  /// line:column of a node's start.
  std::pair<std::size_t, std::size_t> position(const pugi::xml_node& n) const {
    return positions_.at(n.offset_debug());
  }
  std::uint32_t line(const pugi::xml_node& n) const {
    return static_cast<std::uint32_t>(position(n).first);
  }
  /// "SOURCE:line:col: <name>: what".
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& what) const;
  /// "SOURCE:line:col: invalid XML: what" at byte `offset` of the text.
  [[noreturn]] void invalid(std::ptrdiff_t offset, const std::string& what) const;

 private:
  void check_characters(std::string_view text) const;
  void check_references(std::string_view text) const;
  void check_attributes() const;
  void check_top_level(const XmlRules& rules) const;

  std::string source_;
  TextPositions positions_;
  std::string buffer_;  // parsed in place, so that an attribute's name gives its offset
  pugi::xml_document doc_;
  pugi::xml_node root_;
};

/// Calls visit(node) for every node below `root`, depth first in document order, by a loop (no
/// recursion: the depth is the input's).
template <class Visit>
void walk(const pugi::xml_node& root, Visit visit) {
  pugi::xml_node n = root.first_child();
  while (n) {
    visit(n);
    if (n.first_child()) {
      n = n.first_child();
      continue;
    }
    while (n && !n.next_sibling() && n != root) n = n.parent();
    if (!n || n == root) break;
    n = n.next_sibling();
  }
}

}  // namespace phasecheck::io
