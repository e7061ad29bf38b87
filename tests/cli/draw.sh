#!/usr/bin/env bash
# draw.sh PHASECHECK EXAMPLES: `draw` and `verify --svg` end to end (docs/draw.md): the same
# bytes twice, the counterexample's shared link, nothing written when there is nothing to draw,
# and the outputs write_output refuses. Prints one line per case; exits 1 on the first failure.
# Everything happens in a fresh temporary directory.
set -u
pc=$1 ex=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
cp "$ex/faraj-yuan-fig1/linear.json" linear.json

# Same input, same bytes: the grid and the heat map, from two processes.
"$pc" draw linear.json -o a.svg >/dev/null || fail "draw"
"$pc" draw linear.json -o b.svg >/dev/null || fail "draw again"
cmp -s a.svg b.svg || fail "two grids of one schedule differ"
"$pc" draw linear.json --links -o c.svg >/dev/null || fail "draw --links"
"$pc" draw linear.json --links -o d.svg >/dev/null || fail "draw --links again"
cmp -s c.svg d.svg || fail "two heat maps of one schedule differ"
cmp -s a.svg c.svg && fail "the grid and the heat map are the same picture"
grep -q 'class="bottleneck"' c.svg || fail "the heat map marks no bottleneck"
echo "ok deterministic"

# The same schedule as the binary stream from a pipe: the same picture but for the source.
"$pc" generate linear --topology "$ex/faraj-yuan-fig1/topology.json" --format binary |
  "$pc" draw - -o e.svg >/dev/null || fail "draw of a binary pipe"
[ "$(sed 's/\[[^]]*\]//' a.svg)" = "$(sed 's/\[[^]]*\]//' e.svg)" ] || fail "binary and JSON grids differ"
echo "ok binary stream"

# verify --svg: the offending phase with the shared link; exit code of verify unchanged.
"$pc" verify linear.json --svg f.svg >/dev/null; code=$?
[ $code = 1 ] || fail "verify --svg of a contended schedule exited $code"
grep -q 'class="shared"' f.svg || fail "no shared link drawn"
grep -q 'link n0 -&gt; s0' f.svg || fail "the shared link is not named"
echo "ok verify --svg draws the counterexample"

# Everything passes: no file, a note, exit 0.
msg=$("$pc" verify "$ex/hypercube-3/pairwise-xor.json" --svg g.svg 2>&1 >/dev/null); code=$?
[ $code = 0 ] || fail "verify --svg of a passing schedule exited $code"
[ ! -e g.svg ] || fail "a passing schedule wrote a picture"
grep -q "every check passes, so there is no counterexample to draw; g.svg was not written" <<<"$msg" ||
  fail "the note: $msg"
echo "ok nothing to draw"

# Outputs: a directory, a dangling symbolic link, the input itself (also through a link).
mkdir adir
msg=$("$pc" draw linear.json -o adir 2>&1); [ $? = 2 ] || fail "-o directory"
grep -q "is a directory" <<<"$msg" || fail "-o directory: $msg"
ln -s missing.svg dangling.svg
msg=$("$pc" draw linear.json -o dangling.svg 2>&1); [ $? = 2 ] || fail "-o dangling symlink"
[ ! -e missing.svg ] || fail "a file was created through a dangling symlink"
ln -s linear.json soft.svg
before=$(md5sum <linear.json)
for o in linear.json soft.svg; do
  msg=$("$pc" draw linear.json -o "$o" 2>&1); [ $? = 2 ] || fail "-o $o (the input)"
  grep -q "same file as the input" <<<"$msg" || fail "-o $o: $msg"
  msg=$("$pc" verify linear.json --svg "$o" 2>&1); [ $? = 2 ] || fail "verify --svg $o (the input)"
done
[ "$(md5sum <linear.json)" = "$before" ] || fail "the input changed"
msg=$("$pc" verify linear.json --svg adir 2>&1); [ $? = 2 ] || fail "verify --svg directory"
echo "ok outputs refused"
echo "all draw cases pass"
