#include "io/xml_document.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "core/error.hpp"
#include "core/escape.hpp"

namespace phasecheck::io {

namespace {

std::string hex(char32_t c) {
  char text[16];
  std::snprintf(text, sizeof text, "U+%04X", static_cast<unsigned>(c));
  return text;
}

}  // namespace

TextPositions::TextPositions(std::string_view text) {
  starts_.push_back(0);
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') starts_.push_back(i + 1);
}

std::pair<std::size_t, std::size_t> TextPositions::at(std::ptrdiff_t offset) const {
  if (offset < 0) return {0, 0};
  const auto o = static_cast<std::size_t>(offset);
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), o) - 1;
  return {static_cast<std::size_t>(it - starts_.begin()) + 1, o - *it + 1};
}

XmlDocument::XmlDocument(std::string_view text, std::string_view source, const XmlRules& rules)
    : source_(source), positions_(text), buffer_(text) {
  check_characters(text);
  if (text.find("&#") != std::string_view::npos) check_references(text);
  // A fragment keeps the text around the root element, which a document would drop unseen.
  unsigned options = pugi::parse_default | pugi::parse_fragment;
  if (rules.refuse_doctype) options |= pugi::parse_doctype;
  const pugi::xml_parse_result r =
      doc_.load_buffer_inplace(buffer_.data(), buffer_.size(), options, pugi::encoding_utf8);
  if (!r) invalid(r.offset, r.description());
  check_top_level(rules);
  check_attributes();
  for (const pugi::xml_node& c : doc_.children())
    if (c.type() == pugi::node_element) root_ = c;
}

void XmlDocument::fail(const pugi::xml_node& n, const std::string& what) const {
  const auto [line, col] = position(n);
  throw InputError(source_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": <" +
                   n.name() + ">: " + what);
}

void XmlDocument::invalid(std::ptrdiff_t offset, const std::string& what) const {
  const auto [line, col] = positions_.at(offset);
  throw InputError(source_ + ":" + std::to_string(line) + ":" + std::to_string(col) +
                   ": invalid XML: " + what);
}

void XmlDocument::check_characters(std::string_view text) const {
  for (std::size_t i = 0; i < text.size();) {
    const CodePoint c = decode_utf8(text, i);
    if (!c.valid)
      invalid(static_cast<std::ptrdiff_t>(i),
              "bytes that are not UTF-8 (the file must be UTF-8 XML 1.0)");
    if (!xml_char(c.value))
      invalid(static_cast<std::ptrdiff_t>(i),
              "character " + hex(c.value) + " is not allowed in XML 1.0");
    i += c.size;
  }
}

void XmlDocument::check_references(std::string_view text) const {
  // pugixml decodes &#1; and even &#0; (which ends the value there): read the references as
  // written, in the values pugixml would decode them in.
  std::string copy(text);
  pugi::xml_document raw;
  if (!raw.load_buffer_inplace(copy.data(), copy.size(),
                               (pugi::parse_default | pugi::parse_fragment) & ~pugi::parse_escapes,
                               pugi::encoding_utf8))
    return;  // the real parse reports it
  const auto scan = [&](const char* value) {
    for (const char* at = std::strstr(value, "&#"); at; at = std::strstr(at + 2, "&#")) {
      const bool hexadecimal = at[2] == 'x';
      const char* digits = at + (hexadecimal ? 3 : 2);
      std::uint32_t c = 0;
      const auto [end, ec] =
          std::from_chars(digits, digits + std::strlen(digits), c, hexadecimal ? 16 : 10);
      if (ec != std::errc() || *end != ';' || !xml_char(c))
        invalid(at - copy.data(),
                "the character reference " +
                    std::string(at, std::min<std::size_t>(std::strcspn(at, ";") + 1, 16)) +
                    " is not a character XML 1.0 allows");
    }
  };
  walk(raw, [&](const pugi::xml_node& n) {
    if (n.type() == pugi::node_pcdata) scan(n.value());
    for (const pugi::xml_attribute& a : n.attributes()) scan(a.value());
  });
}

void XmlDocument::check_attributes() const {
  std::vector<std::string_view> names;
  walk(doc_, [&](const pugi::xml_node& n) {
    names.clear();
    for (const pugi::xml_attribute& a : n.attributes()) names.emplace_back(a.name());
    if (names.size() < 2) return;
    std::sort(names.begin(), names.end());
    const auto twice = std::adjacent_find(names.begin(), names.end());
    if (twice == names.end()) return;
    // The second one in the file: the attribute list holds them in order.
    bool seen = false;
    for (const pugi::xml_attribute& a : n.attributes())
      if (*twice == a.name() && std::exchange(seen, true))
        invalid(a.name() - buffer_.data(),
                "attribute " + std::string(*twice) + " appears twice in <" + n.name() + ">");
  });
}

void XmlDocument::check_top_level(const XmlRules& rules) const {
  bool root = false;
  for (const pugi::xml_node& c : doc_.children()) {
    if (c.type() == pugi::node_doctype)
      invalid(c.offset_debug(),
              "a DOCTYPE declaration (refused: its entities and external references are never "
              "read)");
    if (c.type() == pugi::node_element) {
      if (root)
        invalid(c.offset_debug(),
                "content after the root element: <" + std::string(c.name()) + ">" +
                    (rules.one_root_hint.empty() ? std::string()
                                                 : " " + std::string(rules.one_root_hint)));
      root = true;
    } else if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
      // Where the text starts, past the white space that runs up to it.
      const auto blank = std::string_view(c.value()).find_first_not_of(" \t\r\n");
      invalid(c.offset_debug() +
                  static_cast<std::ptrdiff_t>(blank == std::string_view::npos ? 0 : blank),
              std::string(root ? "content after" : "text before") + " the root element");
    }
  }
}

}  // namespace phasecheck::io
