#include "core/escape.hpp"

#include <algorithm>
#include <cstdio>

namespace phasecheck {

CodePoint decode_utf8(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return {c, 1, true};
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong below
    if (c == 0xED) hi = 0x9F;  // surrogates above
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong below
    if (c == 0xF4) hi = 0x8F;  // beyond U+10FFFF above
  } else {
    return {};
  }
  if (i + n > s.size()) return {};
  char32_t value = c & (0x7F >> n);
  for (std::size_t k = 1; k < n; ++k) {
    const unsigned char d = byte(i + k);
    if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) return {};
    value = (value << 6) | (d & 0x3F);
  }
  return {value, n, true};
}

bool xml_char(char32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

/// Calls `f(CodePoint, bytes)` for each code point or ill-formed byte of `s`, in order.
template <typename F>
void for_each_code_point(std::string_view s, F f) {
  for (std::size_t i = 0; i < s.size();) {
    const CodePoint c = decode_utf8(s, i);
    f(c, s.substr(i, c.size));
    i += c.size;
  }
}

/// What the XML writers emit: XML 1.0's characters but DEL and C1 (see xml_chars()).
bool xml_allowed(char32_t c) { return xml_char(c) && !(c >= 0x7F && c <= 0x9F); }

/// Whether every byte of `s` is printable ASCII, or one of `also`.
bool plain(std::string_view s, std::string_view also) {
  return std::all_of(s.begin(), s.end(), [&](char ch) {
    return (ch >= 0x20 && ch < 0x7F) || also.find(ch) != std::string_view::npos;
  });
}

void append_hex(std::string& out, const char* format, unsigned value) {
  char buf[16];
  std::snprintf(buf, sizeof buf, format, value);
  out += buf;
}

/// Characters that reorder or break the text around them: the bidirectional controls (the
/// "Trojan Source" set and the marks) and the Unicode line and paragraph separators; and the
/// noncharacters of the BMP, which are no text at all.
bool invisible(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069) || (c >= 0xFDD0 && c <= 0xFDEF) || c == 0xFFFE || c == 0xFFFF;
}

/// White space that a GitHub Actions runner trims before it looks for `::` (.NET's IsWhiteSpace,
/// less the controls, which are escaped anyway).
bool blank(char32_t c) {
  return c == ' ' || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F ||
         c == 0x205F || c == 0x3000;
}

/// ASCII punctuation with a meaning somewhere in GitHub Markdown or HTML, anywhere in a line.
constexpr std::string_view kMarkdownSpecial = "!#$&()*.:<>@[\\]_`|~";
/// ... and at the start of a line only.
constexpr std::string_view kMarkdownLeading = "-+= ";

bool is_number(std::string_view s) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (!digits()) return false;
  if (i < s.size() && s[i] == '.' && (++i, !digits())) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

}  // namespace

std::string xml_chars(std::string_view s) {
  if (plain(s, "\t\n\r")) return std::string(s);
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](CodePoint c, std::string_view bytes) {
    out += c.valid && xml_allowed(c.value) ? bytes : kReplacement;
  });
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](CodePoint c, std::string_view bytes) {
    if (!c.valid || !xml_allowed(c.value)) {
      out += kReplacement;
      return;
    }
    switch (c.value) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += bytes;
    }
  });
  return out;
}

std::string xml_escape_line(std::string_view s) { return xml_escape(text_escape(s)); }

std::string text_escape(std::string_view s, Newlines newlines) {
  const bool keep = newlines == Newlines::keep;
  if (plain(s, keep ? "\n" : "") && s.find_first_of(":[") == std::string_view::npos)
    return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  bool line_start = true;  // nothing but white space so far on this line
  char32_t previous = 0;
  for_each_code_point(s, [&](CodePoint c, std::string_view bytes) {
    const char32_t v = c.value;
    if (!c.valid) {
      append_hex(out, "\\x%02x", static_cast<unsigned char>(bytes[0]));
    } else if (v == '\n' && keep) {
      out += '\n';
      line_start = true;
      previous = v;
      return;
    } else if (v == '\n') {
      out += "\\n";
    } else if (v == '\r') {
      out += "\\r";
    } else if (v == '\t') {
      out += "\\t";
    } else if (v < 0x20 || v == 0x7F) {
      append_hex(out, "\\x%02x", static_cast<unsigned>(v));
    } else if ((v >= 0x80 && v <= 0x9F) || invisible(v)) {
      append_hex(out, "\\u%04x", static_cast<unsigned>(v));
    } else if (v == ':' && line_start) {
      out += "\\x3a";
    } else if (v == '[' && previous == '#') {
      out += "\\x5b";
    } else {
      out += bytes;
      if (blank(v)) {
        previous = v;
        return;
      }
    }
    line_start = false;
    previous = c.valid ? v : 0;
  });
  return out;
}

std::string markdown_escape(std::string_view s) {
  const std::string text = text_escape(s);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    const bool special = kMarkdownSpecial.find(ch) != std::string_view::npos ||
                         (i == 0 && kMarkdownLeading.find(ch) != std::string_view::npos);
    if (!special) {
      out += ch;
      continue;
    }
    out += "&#" + std::to_string(static_cast<unsigned char>(ch)) + ";";
    if (ch == '@') out += "\u2060";  // WORD JOINER: no mention in the rendered text
  }
  return out;
}

std::string markdown_fence(std::string_view content) {
  std::size_t longest = 0, run = 0;
  for (char ch : content) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string markdown_code_block(std::string_view content) {
  std::string text = text_escape(content, Newlines::keep);
  if (!text.empty() && text.back() != '\n') text += '\n';
  const std::string fence = markdown_fence(text);
  return fence + "\n" + text + fence + "\n";
}

std::string csv_cell(std::string_view s) {
  std::string out = text_escape(s);
  if (!out.empty() && std::string_view("=+-@\t\r").find(out[0]) != std::string_view::npos &&
      !is_number(out))
    out.insert(0, 1, '\'');  // a formula's first character, shown as text
  if (out.find_first_of(",\"\r\n") == std::string::npos) return out;
  std::string quoted = "\"";
  for (char ch : out) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string shell_word(std::string_view s) {
  const auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_-./:=,+@%").find(c) != std::string_view::npos;
  };
  if (!s.empty() && std::all_of(s.begin(), s.end(), plain)) return std::string(s);
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace phasecheck
