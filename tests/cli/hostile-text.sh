#!/usr/bin/env bash
# hostile-text.sh PHASECHECK EXAMPLES: a schedule whose algorithm name, phase labels and machine
# names, a gate case's name, a file name and a generator's standard error carry text meant to
# inject into the outputs (a workflow command after a newline, ESC, U+202E, a code fence, an
# image, a mention, an HTML comment and <details>, U+FFFE, invalid UTF-8, a spreadsheet formula).
# Every output must be inert in its format (tests/cli/inert.py; docs/limits.md, "Untrusted text
# in outputs") and must show the hostile text escaped, so the test cannot pass on an empty report.
# Prints one line per output; exits 1 on the first that is not inert.
set -u
pc=$1 ex=$2
inert="/usr/bin/python3 $(cd "$(dirname "$0")" && pwd)/inert.py"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
# run CODE OUT -- command...: the command must exit with CODE; its standard output goes to OUT.
run() {
  local code=$1 out=$2; shift 3
  "$@" >"$out" 2>stderr.txt; local got=$?
  [ "$got" = "$code" ] || { cat stderr.txt; fail "$* exited $got, not $code"; }
}

# The hostile files, written by Python's json module (so every JSON string is well-formed): the
# Fig. 1 tree's linear schedule (it fails contention, so reports draw the label and a route
# through the renamed machine and switch), and ring-6's ring schedule (it passes, so it exports).
/usr/bin/python3 - "$ex" <<'EOF' || fail "writing the hostile files"
import json, sys
ex = sys.argv[1]
H = ("x\n::error::pwned \x1b[31m \u202e ``` ![x](http://e/p.png) @everyone <!-- <details> "
     "\ufffe =HYPERLINK(\"http://e\",\"x\")")
def hostile(path, rename):
    s = json.load(open(path))
    s["algorithm"] = "alg " + H
    for p in s["phases"]:
        p["label"] = "label " + H
    text = json.dumps(s)
    for old, new in rename.items():
        text = text.replace(json.dumps(old), json.dumps(new))
    return text
machine = {"n0": "n0 " + H, "s1": "s1 " + H}  # a machine, and the bottleneck's switch
open("fail.json", "w").write(hostile(ex + "/faraj-yuan-fig1/linear.json", machine))
open("pass.json", "w").write(hostile(ex + "/ring-6/ring.json", {}))
topology = json.loads(open("fail.json").read())["topology"]
open("tree.json", "w").write(json.dumps(topology))
base = json.load(open(ex + "/faraj-yuan-fig1/faraj-yuan.json"))
base["topology"] = topology
open("base.json", "w").write(json.dumps(base))
json.dump({"format": "phasecheck.gate/1", "cases": [
    {"name": "case " + H, "topology": "tree.json", "schedule": "fail.json", "baseline": "base.json"}]},
    open("gate.json", "w"))
json.dump({"format": "phasecheck.gate/1", "cases": [
    {"name": "generator", "topology": "tree.json", "baseline": "base.json",
     "generator": "printf 'oops\\n::error::pwned \\033[31m \\342\\200\\256\\n' >&2; exit 3"}]},
    open("gate-generator.json", "w"))
EOF
bad=$(printf 'fail-\377.json')  # a file name that is not UTF-8
cp fail.json "$bad"
# Each output shows the hostile text, escaped: the newline as \n, ESC as \x1b, U+202E as \u202e.
shown='x\n::error::pwned \x1b[31m \u202e'

run 1 verify.txt -- "$pc" verify "$bad"
$inert text verify.txt "$shown" '\xff.json' || fail "verify (text)"
run 1 verify.xml -- "$pc" verify "$bad" --report junit
$inert xml verify.xml "$shown" || fail "verify --report junit"
run 1 verify.json -- "$pc" verify "$bad" --svg counterexample.svg
$inert xml counterexample.svg '\u202e' || fail "verify --svg"
run 0 draw.txt -- "$pc" draw fail.json -o draw.svg
$inert xml draw.svg '\u202e' || fail "draw"
run 0 draw.txt -- "$pc" draw fail.json --links -o links.svg
$inert xml links.svg '\u202e' || fail "draw --links"
$inert text draw.txt 'bottleneck link s1 x\n' || fail "draw --links (its summary)"

run 1 diff.md -- "$pc" diff base.json fail.json --report markdown
$inert markdown diff.md '&#64;' '````' '\x1b[31m \u202e' || fail "diff --report markdown"
run 1 diff.txt -- "$pc" diff base.json fail.json
$inert text diff.txt "$shown" || fail "diff (text)"
run 1 gate.md -- "$pc" gate gate.json --report markdown
$inert markdown gate.md '&#64;' '&#60;details&#62;' '&#60;&#33;--' '&#33;&#91;x&#93;' ||
  fail "gate --report markdown"
run 1 gate.xml -- "$pc" gate gate.json --report junit
$inert xml gate.xml "case $shown" || fail "gate --report junit"
run 1 gate.txt -- "$pc" gate gate.json
$inert text gate.txt "case $shown" || fail "gate (text)"
echo "ok verify, draw, diff, gate"

run 0 export.txt -- "$pc" export msccl pass.json -o pass.xml
$inert xml pass.xml 'alg x\n::error::pwned \x1b' || fail "export msccl"
$inert text export.txt || fail "export msccl (its report)"
grep -q '<algo name="alg x' pass.xml || fail "export msccl wrote no name"
echo "ok export msccl"

# A table command's CSV: a machine named after a file whose name is a formula on two lines.
mkdir survey
cp "$ex/ring-6/topology.json" "survey/=HYPERLINK(1)"$'\n'"::error::x.json"
run 0 survey.csv -- "$pc" survey survey/*.json --report csv
$inert csv survey.csv "'=HYPERLINK(1)\n::error::x" || fail "survey --report csv"
run 0 survey.txt -- "$pc" survey survey/*.json
$inert text survey.txt '=HYPERLINK(1)\n::error::x' || fail "survey (text)"
run 0 bounds.csv -- "$pc" bounds --topology tree.json --report csv
$inert csv bounds.csv 'link s1 x\n::error::pwned \x1b[31m \u202e' || fail "bounds --report csv"
run 0 bounds.txt -- "$pc" bounds --topology tree.json
$inert text bounds.txt 'link s1 x\n::error::pwned \x1b[31m \u202e' || fail "bounds (text)"
echo "ok csv"

# Error messages quote their input: a generator's standard error, printed by phasecheck.
run 2 gate-error.md -- "$pc" gate gate-generator.json --report markdown
$inert text stderr.txt '\x3a:error::pwned \x1b[31m \u202e' || fail "a generator's standard error"
$inert markdown gate-error.md || fail "gate --report markdown of an error"
grep -q 'pwned' gate-error.md || fail "the markdown error report lacks the message"
echo "all outputs inert"
