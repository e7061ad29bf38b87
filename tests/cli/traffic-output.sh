#!/usr/bin/env bash
# traffic-output.sh PHASECHECK: `phasecheck traffic -o` follows the output rules (docs/limits.md,
# "Outputs"): a link leading out of the current directory, a directory and an input are refused
# (exit 2) and left as they were; a FIFO is written in place. Prints one line per case; exits 1
# on the first wrong behaviour. Everything happens in a fresh temporary directory.
set -u
pc=$1
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
mkdir "$dir/checkout" "$dir/outside"
cd "$dir/checkout" || exit 1
echo victim >"$dir/outside/victim.txt"
runs=0

# refused REGEX ARGS...: exit 2 with a message matching REGEX.
refused() {
  local regex=$1; shift
  msg=$("$pc" "$@" 2>&1); code=$?
  [ $code = 2 ] || fail "$* exited $code: $msg"
  grep -q -- "$regex" <<<"$msg" || fail "$*: $msg"
  runs=$((runs + 1))
}

ln -s ../outside/victim.txt link.json
refused "the symbolic link link.json leads to .*outside the current directory" \
  traffic uniform --ranks 2 -o link.json
[ "$(cat "$dir/outside/victim.txt")" = victim ] || fail "the link's target was written"
echo "ok a link leading out is refused, its target unchanged"

mkdir sub
refused "is a directory" traffic uniform --ranks 2 -o sub
echo "ok a directory is refused"

printf '0,1\n2,3\n' >m.csv
refused "same file as the input" traffic file --input m.csv -o m.csv
[ "$(cat m.csv)" = "$(printf '0,1\n2,3')" ] || fail "the input changed"
echo "ok the input is never overwritten"

mkfifo pipe
cat pipe >from-pipe & reader=$!
"$pc" traffic uniform --ranks 2 --format csv -o pipe || fail "-o FIFO"
wait $reader
[ -p pipe ] || fail "the FIFO was replaced"
[ "$(cat from-pipe)" = "$(printf '1,1\n1,1')" ] || fail "the FIFO carried: $(cat from-pipe)"
runs=$((runs + 1))
echo "ok a FIFO is written in place"

[ $runs = 4 ] || fail "$runs cases ran, not 4"
echo "all traffic output cases pass"
