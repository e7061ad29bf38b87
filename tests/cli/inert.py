#!/usr/bin/python3
"""inert.py FORMAT FILE [MUST...]: exits 1, naming the first offence, unless FILE is inert text in
FORMAT (docs/limits.md, "Untrusted text in outputs"), and unless it contains every MUST (a proof
that the hostile text reached the output, escaped, so the check cannot pass on an empty file).

text      valid UTF-8; no control character but LF (no ESC, CR, TAB), no C1 control, no character
          that reorders text (bidirectional controls, U+2028/U+2029); no line that is a GitHub
          Actions workflow command (`::x` after white space, `##[` anywhere).
xml       parses (xml.etree), and every text and attribute value is inert text (as above, LF and
          TAB allowed) without U+FFFD-less non-characters (XML itself refuses the rest).
markdown  the text rules; outside code fences no live construct: no raw `<` but phasecheck's own
          <details> <summary> <sub> tags, no code span but a kind (`check-failed`),
          no emphasis but a bold word (**regression**), no `![`, `](`, `@` before a word character, `<!--`,
          backtick, `*`, `_`, `~`, `$`, `:`; a fence closes only with its own length.
csv       the text rules for the bytes outside quotes (CRLF line ends allowed); no field that
          starts with = + - @ TAB CR but a plain number.
"""
import csv
import io
import re
import sys
import xml.etree.ElementTree as ET

REORDERS = set([0x061C, 0x200E, 0x200F] + list(range(0x2028, 0x202F)) + list(range(0x2066, 0x206A)))


def fail(what, line=None):
    print("NOT INERT: " + what + ("" if line is None else ": " + repr(line)))
    sys.exit(1)


def check_text(text, allowed="\n"):
    for n, line in enumerate(text.split("\n")):
        for ch in line:
            c = ord(ch)
            if (c < 0x20 and ch not in allowed) or 0x7F <= c <= 0x9F or c in REORDERS:
                fail("control character U+%04X on line %d" % (c, n + 1), line)
        if line.lstrip().startswith("::") or "##[" in line:
            fail("a workflow command on line %d" % (n + 1), line)


def decode(data):
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("not UTF-8: " + str(e))


def check_xml(data):
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        fail("XML does not parse: " + str(e))
    for el in root.iter():
        for value in [el.text or "", el.tail or ""] + list(el.attrib.values()):
            check_text(value, "\n\t")
            if "\ufffe" in value or "\uffff" in value:
                fail("a non-character", value)


OWN_TAGS = re.compile(r"</?(details|summary|sub)>")
LIVE = [("![", "an image"), ("](", "a link"), ("<!--", "an HTML comment"), ("`", "a backtick"),
        ("*", "emphasis"), ("_", "emphasis"), ("~", "strikethrough"), ("$", "math"),
        ("://", "an autolink"), ("www.", "an autolink")]


def check_markdown(text):
    check_text(text)
    fence = None
    for line in text.split("\n"):
        run = re.match(r"^(`{3,})\s*$", line)
        if fence is not None:
            if run and len(run.group(1)) >= len(fence):
                fence = None
            continue
        if run:
            fence = run.group(1)
            continue
        # phasecheck's own tags, and its code spans of a regression's kind (`more-phases`)
        # and bold words (**regression**)
        bare = re.sub(r"`[a-z0-9-]+`|\*\*[a-z]+\*\*", "", OWN_TAGS.sub("", line))
        if "<" in bare or ">" in bare.replace("&#62;", ""):
            fail("raw HTML", line)
        for token, what in LIVE:
            if token in bare:
                fail(what, line)
        if re.search(r"@\w", bare):
            fail("a mention", line)
        if re.match(r"^\s*#", bare) and not bare.startswith("### "):
            fail("a heading", line)
    if fence is not None:
        fail("a code fence never closed")


NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def check_csv(text):
    check_text(text.replace("\r\n", "\n"))
    for row in csv.reader(io.StringIO(text, newline="")):
        for field in row:
            if field[:1] in ("=", "+", "-", "@", "\t", "\r") and not NUMBER.fullmatch(field):
                fail("a formula", field)


def main():
    form, path, musts = sys.argv[1], sys.argv[2], sys.argv[3:]
    data = open(path, "rb").read()
    text = decode(data)
    if form == "text":
        check_text(text)
    elif form == "xml":
        check_xml(data)
    elif form == "markdown":
        check_markdown(text)
    elif form == "csv":
        check_csv(text)
    else:
        fail("unknown format " + form)
    for must in musts:
        if must not in text:
            fail("missing " + repr(must))
    print("inert %s: %s" % (form, path))


main()
