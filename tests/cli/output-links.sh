#!/usr/bin/env bash
# output-links.sh PHASECHECK SCHEDULE: outputs through symbolic links a pull request could commit
# (docs/limits.md, "Outputs"). Inside the current directory, a link that leads out of it is
# refused unless --follow-output-links; one that stays inside is followed. Prints one line per
# case; exits 1 on the first wrong behaviour. Everything happens in a fresh temporary directory.
set -u
pc=$1 schedule=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
mkdir "$dir/checkout" "$dir/outside"
cd "$dir/checkout" || exit 1
cp "$schedule" s.json
echo victim >"$dir/outside/victim.txt"
unchanged() { [ "$(cat "$dir/outside/victim.txt")" = victim ] || fail "$1 wrote the outside file"; }

# refused EXPECTED-LINK ARGS...: exit 2, the message names the output and the link.
refused() {
  local link=$1; shift
  msg=$("$pc" "$@" 2>&1); code=$?
  [ $code = 2 ] || fail "$* exited $code: $msg"
  grep -q "the symbolic link $link leads to .*outside the current directory" <<<"$msg" ||
    fail "$*: $msg"
  grep -q -- "--follow-output-links" <<<"$msg" || fail "$*: the option is not named: $msg"
}

# A committed file link, relative or absolute, pointing out of the checkout.
ln -s ../outside/victim.txt report.txt
ln -s "$dir/outside/victim.txt" absolute.txt
refused report.txt verify s.json -o report.txt; unchanged "-o report.txt"
refused absolute.txt verify s.json -o absolute.txt; unchanged "-o absolute.txt"
refused report.txt generate ring --topology s.json -o report.txt; unchanged "generate -o"
refused report.txt verify s.json --svg report.txt; unchanged "--svg"
# The report of the error itself (--report junit) must not go there either.
msg=$("$pc" verify s.json --report junit -o report.txt 2>&1); code=$?
[ $code = 2 ] || fail "--report junit -o link exited $code"; unchanged "the error report"
echo "ok a file link leading out is refused, the file outside unchanged"

# A committed directory link: refused for a relative and an absolute path into the checkout.
ln -s ../outside out
refused out verify s.json -o out/r.txt
refused "$dir/checkout/out" verify s.json -o "$dir/checkout/out/r.txt"
[ ! -e "$dir/outside/r.txt" ] || fail "a file was created through the directory link"
# A link chain that ends outside, met half-way.
mkdir -p deep && ln -s ../out deep/hop
refused deep/hop verify s.json -o deep/hop/r.txt
[ ! -e "$dir/outside/r.txt" ] || fail "a file was created through the chain"
echo "ok a directory link leading out is refused, nothing created"

# Links that stay inside the current directory are followed.
mkdir build && echo old >build/inside.txt
ln -s build/inside.txt inside.txt
ln -s build builddir
"$pc" verify s.json -o inside.txt >/dev/null || fail "-o a link that stays inside"
grep -q '^PASS' build/inside.txt || fail "the inside link's target was not written"
[ -L inside.txt ] || fail "the inside link was replaced"
"$pc" verify s.json -o builddir/r.txt >/dev/null || fail "-o through a directory link inside"
grep -q '^PASS' build/r.txt || fail "nothing written through the directory link inside"
echo "ok links that stay inside are followed"

# Outside the current directory, links are the machine's: followed.
echo old >"$dir/outside/t.txt"
ln -s t.txt "$dir/outside/l.txt"
"$pc" verify s.json -o ../outside/l.txt >/dev/null || fail "-o a link outside the current directory"
grep -q '^PASS' "$dir/outside/t.txt" || fail "the outside link's target was not written"
echo "ok links outside the current directory are followed"

# --follow-output-links, before or after the command, or from the environment.
"$pc" --follow-output-links verify s.json -o report.txt >/dev/null || fail "--follow-output-links before"
grep -q '^PASS' "$dir/outside/victim.txt" || fail "--follow-output-links did not write the target"
[ -L report.txt ] || fail "the link was replaced"
echo victim >"$dir/outside/victim.txt"
"$pc" verify s.json -o out/r.txt --follow-output-links >/dev/null || fail "--follow-output-links after"
grep -q '^PASS' "$dir/outside/r.txt" || fail "--follow-output-links after: nothing written"
PHASECHECK_FOLLOW_OUTPUT_LINKS=1 "$pc" verify s.json -o report.txt >/dev/null ||
  fail "PHASECHECK_FOLLOW_OUTPUT_LINKS=1"
grep -q '^PASS' "$dir/outside/victim.txt" || fail "the environment variable did not follow"
echo "ok --follow-output-links"

# The rest stays (hostile-output.sh has the FIFO): /dev/null is written in place, a dangling
# link is refused.
"$pc" verify s.json -o /dev/null >/dev/null || fail "-o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
ln -s nowhere.txt dangling.txt
msg=$("$pc" verify s.json -o dangling.txt 2>&1); [ $? = 2 ] || fail "-o dangling link: $msg"
[ ! -e nowhere.txt ] || fail "a file was created through a dangling link"
echo "ok /dev/null, dangling link"
echo "all output link cases pass"
