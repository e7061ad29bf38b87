#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/escape.hpp"

using namespace phasecheck;

namespace {

struct Case {
  const char* name;
  std::string input, expected;
};

void check_table(const std::vector<Case>& cases, std::string (*escape)(std::string_view)) {
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(escape(c.input) == c.expected);
  }
}

const std::string kFFFD = "\xEF\xBF\xBD";

}  // namespace

TEST_CASE("xml_escape: markup as entities, only XML 1.0 characters, no character reference") {
  check_table(
      {
          {"plain text unchanged", "phase 3: ring-6", "phase 3: ring-6"},
          {"markup", "<a href=\"x\">&'</a>", "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;"},
          {"a character reference stays text", "&#1;", "&amp;#1;"},
          {"TAB LF CR kept", "a\tb\nc\rd", "a\tb\nc\rd"},
          {"C0 and DEL replaced", std::string("a\0b\x1b[31m\x7f", 9),
           "a" + kFFFD + "b" + kFFFD + "[31m" + kFFFD},
          {"C1 replaced", "x\xC2\x85y\xC2\x9B", "x" + kFFFD + "y" + kFFFD},
          {"U+FFFE and U+FFFF replaced", "\xEF\xBF\xBE\xEF\xBF\xBF", kFFFD + kFFFD},
          {"U+FFFD and U+E000 kept", "\xEF\xBF\xBD\xEE\x80\x80", "\xEF\xBF\xBD\xEE\x80\x80"},
          {"a byte that is not UTF-8", "s\xFF.json", "s" + kFFFD + ".json"},
          {"an encoded surrogate, each byte", "\xED\xA0\x80", kFFFD + kFFFD + kFFFD},
          {"overlong '<'", "\xC0\xBC", kFFFD + kFFFD},
          {"beyond U+10FFFF", "\xF4\x90\x80\x80", kFFFD + kFFFD + kFFFD + kFFFD},
          {"truncated at the end", "a\xE2\x80", "a" + kFFFD + kFFFD},
          {"astral plane kept", "\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80"},
          {"bidirectional override kept (valid XML)", "\xE2\x80\xAE", "\xE2\x80\xAE"},
      },
      xml_escape);
}

TEST_CASE("xml_chars: the characters made XML's, markup left to the writer") {
  check_table(
      {
          {"markup untouched", "<a>&b\"'", "<a>&b\"'"},
          {"controls and non-characters", "a\x01\xEF\xBF\xBE\xC2\x80z",
           "a" + kFFFD + kFFFD + kFFFD + "z"},
          {"invalid UTF-8", "\x80\xC3", kFFFD + kFFFD},
          {"ordinary UTF-8 kept", "Träff", "Träff"},
      },
      xml_chars);
}

TEST_CASE("text_escape: a hostile label is one line of visible, inert text") {
  check_table(
      {
          {"plain text unchanged", "phase 3 (ring)", "phase 3 (ring)"},
          {"a workflow command after a newline", "x\n::error::pwned", "x\\n::error::pwned"},
          {"a workflow command at the start", "::add-mask::s", "\\x3a:add-mask::s"},
          {"after blanks, NBSP included", "  \xC2\xA0::warning::w", "  \xC2\xA0\\x3a:warning::w"},
          {"a colon later is text", "a::b", "a::b"},
          {"the old command form", "x ##[error]y", "x ##\\x5berror]y"},
          {"CR TAB ESC", "a\rb\tc\x1b[2J", "a\\rb\\tc\\x1b[2J"},
          {"NUL, other C0, DEL", std::string("\0\x07\x7f", 3), "\\x00\\x07\\x7f"},
          {"C1 (CSI)",
           "a\xC2\x9B"
           "31m",
           "a\\u009b31m"},
          {"right-to-left override",
           "abc\xE2\x80\xAE"
           "cba",
           "abc\\u202ecba"},
          {"isolates and marks", "\xE2\x81\xA6\xE2\x81\xA9\xE2\x80\x8F\xD8\x9C",
           "\\u2066\\u2069\\u200f\\u061c"},
          {"line separator",
           "a\xE2\x80\xA8"
           "b",
           "a\\u2028b"},
          {"noncharacters", "\xEF\xBF\xBE\xEF\xBF\xBF\xEF\xB7\x90", "\\ufffe\\uffff\\ufdd0"},
          {"invalid UTF-8 byte by byte", "s\xFF\xC3.json", "s\\xff\\xc3.json"},
          {"ordinary UTF-8 kept", "Sanders–Träff ✅", "Sanders–Träff ✅"},
          {"backslash kept", "a\\nb", "a\\nb"},
      },
      [](std::string_view s) { return text_escape(s); });
}

TEST_CASE("text_escape with Newlines::keep: each line checked as a line of its own") {
  CHECK(text_escape("line one\n::error::x\n  two\x1b", Newlines::keep) ==
        "line one\n\\x3a:error::x\n  two\\x1b");
  CHECK(text_escape("a\r\nb", Newlines::keep) == "a\\r\nb");
}

TEST_CASE("markdown_escape: no live Markdown or HTML, one line") {
  const std::string wj = "\u2060";
  check_table(
      {
          {"plain words unchanged", "ring 6, shift/2", "ring 6, shift/2"},
          {"an image", "![x](http://e/p.png)", "&#33;&#91;x&#93;&#40;http&#58;//e/p&#46;png&#41;"},
          {"a mention", "@everyone", "&#64;" + wj + "everyone"},
          {"a comment", "<!-- a", "&#60;&#33;-- a"},
          {"details", "<details>", "&#60;details&#62;"},
          {"a fence", "```", "&#96;&#96;&#96;"},
          {"emphasis, strikethrough, math", "*a* _b_ ~c~ $d$",
           "&#42;a&#42; &#95;b&#95; &#126;c&#126; &#36;d&#36;"},
          {"a heading, a table, an entity", "# x | &amp;", "&#35; x &#124; &#38;amp;"},
          {"a newline becomes visible", "a\n# b", "a&#92;n&#35; b"},
          {"a list at the start", "- item", "&#45; item"},
          {"a dash later is text", "ring-6", "ring-6"},
          {"a leading space", "    code", "&#32;   code"},
          {"an ordered list", "1. x", "1&#46; x"},
          {"www autolink", "www.e.com", "www&#46;e&#46;com"},
          {"a control", "a\x1b", "a&#92;x1b"},
          {"bidirectional override", "\xE2\x80\xAE", "&#92;u202e"},
      },
      markdown_escape);
  // The two lines of a real hostile label, together: no newline survives.
  CHECK(markdown_escape("x\n::error::y").find('\n') == std::string::npos);
}

TEST_CASE("markdown_fence: longer than every backtick run inside") {
  CHECK(markdown_fence("plain") == "```");
  CHECK(markdown_fence("a ``` b") == "````");
  CHECK(markdown_fence("`````` and `") == "```````");
}

TEST_CASE("markdown_code_block: a fence the content cannot close, the content inert") {
  CHECK(markdown_code_block("phase 0 \"x\n```\n![i](u)\x1b\"") ==
        "````\nphase 0 \"x\n```\n![i](u)\\x1b\"\n````\n");
  CHECK(markdown_code_block("two\nlines\n") == "```\ntwo\nlines\n```\n");
}

TEST_CASE("csv_cell: one line, formulas become text, numbers stay numbers, RFC 4180 quoting") {
  check_table(
      {
          {"plain", "shift", "shift"},
          {"a formula", "=HYPERLINK(\"http://e\",\"x\")",
           "\"'=HYPERLINK(\"\"http://e\"\",\"\"x\"\")\""},
          {"plus", "+1+cmd", "'+1+cmd"},
          {"minus text", "-2+3", "'-2+3"},
          {"at", "@SUM(A1)", "'@SUM(A1)"},
          {"TAB and CR are visible, not formulas", "\t=1\r", "\\t=1\\r"},
          {"a newline stays in the line", "a\n=1", "a\\n=1"},
          {"a negative integer is a number", "-3", "-3"},
          {"a negative figure is a number", "-1.5e-3", "-1.5e-3"},
          {"a dash alone is text", "-", "'-"},
          {"-inf is text", "-inf", "'-inf"},
          {"a comma quotes", "a, b", "\"a, b\""},
          {"a formula later in the cell is text already", "a=1", "a=1"},
          {"empty", "", ""},
      },
      csv_cell);
}
