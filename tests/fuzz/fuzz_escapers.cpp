// fuzz-escapers: arbitrary bytes through every escaper of core/escape.hpp. A finding is an output
// that is not inert in its format:
// - xml_escape: wrapped in an element and an attribute, pugixml parses it and gives the text back
//   unchanged in meaning (the same as xml_chars of the input), and it holds only XML 1.0
//   characters; xml_chars: only XML 1.0 characters;
// - text_escape: valid UTF-8 without a byte below 0x20, DEL, a C1 control or a character that
//   reorders text, and no ':' first on the line (after white space); with Newlines::keep the same
//   for each line; escaping its output again changes nothing;
// - markdown_escape: all of text_escape's, and no ASCII punctuation with a Markdown or HTML meaning
//   but in a decimal reference `&#N;` to such a character, `&#64;` always followed by U+2060, and
//   no `-`, `+`, `=` or space first; markdown_code_block: no line of the content holds a run of
//   backticks as long as the fence;
// - csv_cell: no formula character first (past the quote), and the field reads back (RFC 4180) as
//   text_escape of the input, with the `'` the escaper added.

#include <cstdint>
#include <cstring>
#include <pugixml.hpp>
#include <regex>
#include <string>
#include <string_view>

#include "core/escape.hpp"
#include "finding.hpp"

using namespace phasecheck;

namespace {

/// The code point at `i` (advancing it) if `s` is well-formed UTF-8 there, else -1.
long next_code_point(std::string_view s, std::size_t& i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = c < 0x80                 ? 1
                  : c >= 0xC2 && c <= 0xDF ? 2
                  : c >= 0xE0 && c <= 0xEF ? 3
                  : c >= 0xF0 && c <= 0xF4 ? 4
                                           : 0;
  if (n == 0 || i + n > s.size()) return -1;
  long v = n == 1 ? c : c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return -1;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  static constexpr long kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (v < kMin[n] || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF) return -1;
  i += n;
  return v;
}

bool xml_char(long v) {
  return v == 9 || v == 10 || v == 13 || (v >= 0x20 && v <= 0xD7FF) ||
         (v >= 0xE000 && v <= 0xFFFD) || (v >= 0x10000 && v <= 0x10FFFF);
}

void check_xml_chars(std::string_view out, const char* what) {
  for (std::size_t i = 0; i < out.size();) {
    const long v = next_code_point(out, i);
    if (v < 0 || !xml_char(v) || (v >= 0x7F && v <= 0x9F))
      fuzz::finding(std::string(what) + ": a character XML 1.0 does not allow", out);
  }
}

bool invisible(long v) {
  return v == 0x061C || v == 0x200E || v == 0x200F || (v >= 0x2028 && v <= 0x202E) ||
         (v >= 0x2066 && v <= 0x2069) || (v >= 0xFDD0 && v <= 0xFDEF) || v == 0xFFFE || v == 0xFFFF;
}

bool blank(long v) {
  return v == ' ' || v == 0xA0 || v == 0x1680 || (v >= 0x2000 && v <= 0x200A) || v == 0x202F ||
         v == 0x205F || v == 0x3000;
}

void check_text(std::string_view out, bool newlines, const char* what) {
  bool line_start = true;
  long previous = 0;
  for (std::size_t i = 0; i < out.size();) {
    const long v = next_code_point(out, i);
    if (v == '\n' && newlines) {
      line_start = true;
      previous = v;
      continue;
    }
    if (v < 0) fuzz::finding(std::string(what) + ": not UTF-8", out);
    if (v < 0x20 || (v >= 0x7F && v <= 0x9F) || invisible(v))
      fuzz::finding(std::string(what) + ": a control character", out);
    if (v == ':' && line_start) fuzz::finding(std::string(what) + ": a line starts with ':'", out);
    if (v == '[' && previous == '#') fuzz::finding(std::string(what) + ": '##['", out);
    if (!blank(v)) line_start = false;
    previous = v;
  }
}

constexpr std::string_view kMarkdownSpecial = "!#$&()*.:<>@[\\]_`|~";

void check_markdown(std::string_view out) {
  check_text(out, false, "markdown_escape");
  if (!out.empty() && std::string_view("-+= ").find(out[0]) != std::string_view::npos)
    fuzz::finding("markdown_escape: a list, heading or code block may start", out);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (kMarkdownSpecial.find(out[i]) == std::string_view::npos) continue;
    // Only as `&#N;`, N a special character (or a leading one), never a control.
    if (out[i] != '&' || i + 1 >= out.size() || out[i + 1] != '#')
      fuzz::finding("markdown_escape: a live special character", out);
    std::size_t j = i + 2;
    unsigned n = 0;
    while (j < out.size() && out[j] >= '0' && out[j] <= '9' && n < 1000)
      n = n * 10 + (out[j++] - '0');
    if (j >= out.size() || out[j] != ';' || j == i + 2 ||
        (kMarkdownSpecial.find(static_cast<char>(n)) == std::string_view::npos &&
         !(i == 0 &&
           std::string_view("-+= ").find(static_cast<char>(n)) != std::string_view::npos)))
      fuzz::finding("markdown_escape: a reference to something else than a special character", out);
    if (n == '@' && out.substr(j + 1, 3) != "\u2060")
      fuzz::finding("markdown_escape: a mention", out);
    i = j;
  }
}

void check_code_block(std::string_view in) {
  const std::string out = markdown_code_block(in);
  const std::string fence = markdown_fence(text_escape(in, Newlines::keep));
  if (out.compare(0, fence.size() + 1, fence + "\n") != 0 || out.size() < 2 * fence.size() + 2 ||
      out.compare(out.size() - fence.size() - 1, fence.size() + 1, fence + "\n") != 0)
    fuzz::finding("markdown_code_block: not fenced", out);
  const std::string_view body(out.data() + fence.size() + 1, out.size() - 2 * fence.size() - 2);
  if (body.find(fence) != std::string_view::npos)
    fuzz::finding("markdown_code_block: the content holds the fence", out);
  if (!body.empty() && body.back() != '\n')
    fuzz::finding("markdown_code_block: the closing fence is not on a line of its own", out);
  check_text(body, true, "markdown_code_block");
}

void check_csv(std::string_view in) {
  const std::string out = csv_cell(in);
  std::string value;  // the field read back
  if (!out.empty() && out[0] == '"') {
    if (out.size() < 2 || out.back() != '"') fuzz::finding("csv_cell: a quote not closed", out);
    for (std::size_t i = 1; i + 1 < out.size(); ++i) {
      value += out[i];
      if (out[i] == '"' && out[++i] != '"') fuzz::finding("csv_cell: a quote not doubled", out);
    }
  } else {
    if (out.find_first_of(",\"\r\n") != std::string::npos)
      fuzz::finding("csv_cell: a field that needs quotes has none", out);
    value = out;
  }
  static const std::regex number("-[0-9]+(\\.[0-9]+)?([eE][+-]?[0-9]+)?");
  const auto formula = [](std::string_view v) {
    return !v.empty() && std::strchr("=+-@\t\r", v[0]) != nullptr;
  };
  if (formula(value) && !std::regex_match(value, number)) fuzz::finding("csv_cell: a formula", out);
  const std::string text = text_escape(in);
  if (value != text && !(formula(text) && value == "'" + text))
    fuzz::finding("csv_cell: the field does not read back as the text", out);
  check_text(value, false, "csv_cell");
}

void check_xml(std::string_view in) {
  const std::string escaped = xml_escape(in);
  check_xml_chars(escaped, "xml_escape");
  if (escaped.find("&#") != std::string::npos)
    fuzz::finding("xml_escape: a character reference", escaped);
  const std::string doc = "<a v=\"" + escaped + "\" w='" + escaped + "'>" + escaped + "</a>";
  pugi::xml_document d;
  const pugi::xml_parse_result r = d.load_buffer(
      doc.data(), doc.size(), pugi::parse_default | pugi::parse_ws_pcdata, pugi::encoding_utf8);
  if (!r) fuzz::finding("xml_escape: the document does not parse", doc);
  const std::string chars = xml_chars(in);
  check_xml_chars(chars, "xml_chars");
  std::string text = d.child("a").text().get();
  // The parser turns CR and CR LF into LF (XML 1.0, 2.11).
  std::string expected;
  for (std::size_t i = 0; i < chars.size(); ++i) {
    if (chars[i] == '\r') {
      expected += '\n';
      if (i + 1 < chars.size() && chars[i + 1] == '\n') ++i;
    } else {
      expected += chars[i];
    }
  }
  if (text != expected) fuzz::finding("xml_escape: the element's text is not the input's", doc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in = fuzz::as_text(data, size);
  check_xml(in);
  check_text(text_escape(in), false, "text_escape");
  check_text(text_escape(in, Newlines::keep), true, "text_escape keeping newlines");
  const std::string text = text_escape(in);
  if (text.find('\n') != std::string::npos) fuzz::finding("text_escape: a newline", text);
  if (text_escape(text) != text) fuzz::finding("text_escape: not idempotent", text);
  check_markdown(markdown_escape(in));
  check_code_block(in);
  check_csv(in);
  return 0;
}
