#pragma once
/// The one escaper per output format. Untrusted text (names, labels, algorithm names, gate case
/// names, paths, error messages, another program's standard error) reaches an XML, Markdown, CSV
/// or text output only through the function of that format here, so that a hostile label stays
/// one line of inert text in every report (docs/limits.md, "Untrusted text in outputs").
///
/// Every function takes arbitrary bytes (UTF-8 or not), never throws but std::bad_alloc, and is
/// linear in its input; text that needs nothing comes back unchanged after one scan.

#include <string>
#include <string_view>

namespace phasecheck {

/// One code point of `s` at byte `i` (< s.size()): its value and its length in bytes, or `valid`
/// false (and a length of 1) for a byte that does not start a well-formed UTF-8 sequence (Unicode
/// 15, table 3-7: no overlong form, no surrogate, nothing beyond U+10FFFF).
struct CodePoint {
  char32_t value = 0;
  std::size_t size = 1;
  bool valid = false;
};
CodePoint decode_utf8(std::string_view s, std::size_t i);

/// XML 1.0's Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF].
bool xml_char(char32_t c);

/// Text for an XML 1.0 attribute value or element: `&` `<` `>` `"` `'` as the entities
/// `&amp;` `&lt;` `&gt;` `&quot;` `&apos;`, then everything xml_chars() does. The result holds only
/// characters XML 1.0 allows and never a character reference (so never `&#1;`).
std::string xml_escape(std::string_view s);

/// A name or label as one line of inert text in XML (a JUnit message, an SVG label): text_escape()
/// then xml_escape(), so line breaks, controls and bidirectional controls show as `\n`, `\x1b`,
/// `\u202e`.
std::string xml_escape_line(std::string_view s);

/// The characters of `s` made ones XML 1.0 allows, for a writer that escapes markup itself
/// (pugixml): each byte of an ill-formed UTF-8 sequence (overlong forms, surrogates, beyond
/// U+10FFFF, truncated) and each of C0 but TAB LF CR, DEL, C1 (U+0080-U+009F), U+FFFE and U+FFFF
/// becomes U+FFFD. DEL and C1 are allowed by XML 1.0 but discouraged and read as terminal controls
/// when a file is printed. Markup characters are left as they are.
std::string xml_chars(std::string_view s);

/// Free text (a name, a label, a path, a message) placed in Markdown, inline or at the start of a
/// line, in a paragraph, a list item, a table cell or an HTML block such as `<summary>`. First
/// text_escape(): one line, controls and bidirectional controls visible. Then every ASCII
/// punctuation character with a meaning in GitHub Markdown or HTML becomes a decimal character
/// reference (`<` is `&#60;`), which renders as the character in every one of those places:
/// ! # $ & ( ) * . : < > @ [ \ ] _ ` | ~ (HTML, links, images, emphasis, strikethrough, math,
/// headings, issue references, tables, code spans, autolinks through `:` and `www.`). `@` is also
/// followed by U+2060 WORD JOINER, because GitHub finds mentions in the rendered text, after
/// references are decoded. A leading `-`, `+`, `=` or space is a reference too, so that the text
/// cannot open a list, a setext heading or an indented code block. Not for code spans or blocks,
/// which show references literally: see markdown_code_block().
std::string markdown_escape(std::string_view s);

/// A fence for a fenced code block holding `content`: backticks, three or one more than the
/// longest run of backticks in `content`, so no line of the content closes the block.
std::string markdown_fence(std::string_view content);

/// `content` as a fenced code block: the fence, the content through text_escape() keeping its
/// newlines (so controls, bidirectional controls and invalid UTF-8 are visible and nothing inside
/// is live), a final newline, the fence. GitHub renders nothing inside a code block.
std::string markdown_code_block(std::string_view content);

/// One CSV field (RFC 4180). First text_escape(): a CSV printed to a CI log is text too, and a
/// name stays one line (so TAB and CR show as `\t` `\r`). Then a text that a spreadsheet would
/// read as a formula, one starting with `=` `+` `-` `@`, gets a leading `'` (OWASP's "CSV
/// injection" advice), unless it is a plain decimal number (-3, -1.5e-3), which stays a number.
/// Then a field holding a comma or a quote is quoted with its quotes doubled.
std::string csv_cell(std::string_view s);

/// Whether text_escape() keeps line breaks: `escape` for a name or a label (it stays one line),
/// `keep` for a whole message whose own format has several lines (an error message that ends with
/// another program's standard error). Each kept line is escaped as a line of its own, so a line
/// break that came from the input starts a line that is inert too.
enum class Newlines { escape, keep };

/// Text for a terminal or a CI log, shown visibly rather than obeyed: LF CR TAB as `\n` `\r` `\t`
/// (LF kept with Newlines::keep); other C0 controls and DEL as `\xNN` (ESC is `\x1b`); C1
/// controls, the characters that reorder or break text (U+061C, U+200E, U+200F, U+2028-U+202E,
/// U+2066-U+2069) and the noncharacters U+FDD0-U+FDEF, U+FFFE, U+FFFF as `\uNNNN`; each byte of an
/// ill-formed UTF-8 sequence as `\xNN`. A `:` that starts the text or a kept line (after white
/// space only) is `\x3a`, and `[` after `#` is `\x5b`, so that the text is never a GitHub Actions
/// workflow command (`::error::`, `##[add-mask]`) when it starts a line of the log. Backslashes
/// are left as they are; hex is lowercase. Idempotent.
std::string text_escape(std::string_view s, Newlines newlines = Newlines::escape);

/// One word of a POSIX shell command line (the replay commands reports print): as it is when it
/// is made only of letters, digits and `_ - . / : = , + @ %`; otherwise in single quotes, each
/// `'` written `'\''`. A shell reads it back as exactly `s`, whatever it holds.
std::string shell_word(std::string_view s);

}  // namespace phasecheck
