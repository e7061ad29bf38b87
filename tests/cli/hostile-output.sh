#!/usr/bin/env bash
# hostile-output.sh PHASECHECK SCHEDULE: every kind of output path, as a hostile or careless user
# would give it (docs/limits.md, "Outputs"). Prints one line per case; exits 1 on the first wrong
# behaviour. Everything happens in a fresh temporary directory, never on a system device.
set -u
pc=$1 schedule=$2
dir=$(mktemp -d)
# A background reader left blocked on a FIFO would hold the test's output open for ever: stopped.
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir" || exit 1
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
cp "$schedule" s.json

# A new name and a regular file: written whole, with the file's mode kept.
"$pc" verify s.json -o new.txt >/dev/null || fail "a new output name"
grep -q '^PASS' new.txt || fail "the new output's content"
chmod 640 new.txt
"$pc" verify s.json -o new.txt >/dev/null || fail "an existing output"
[ "$(stat -c %a new.txt)" = 640 ] || fail "the mode of a replaced file is $(stat -c %a new.txt)"
echo "ok regular file"

# '-' is standard output, not a file named '-'.
out=$("$pc" verify s.json -o -) || fail "-o -"
grep -q '^PASS' <<<"$out" || fail "-o - did not print the report"
[ ! -e ./- ] || fail "-o - created a file named -"
echo "ok - is standard output"

# The output is an input: refused by device and inode, whatever the name.
ln s.json hard.json
ln -s s.json soft.json
for o in s.json ./s.json hard.json soft.json; do
  before=$(md5sum <s.json)
  msg=$("$pc" verify s.json -o "$o" 2>&1); code=$?
  [ $code = 2 ] || fail "-o $o (the input) exited $code"
  grep -q "same file as the input" <<<"$msg" || fail "-o $o: $msg"
  [ "$(md5sum <s.json)" = "$before" ] || fail "-o $o changed the input"
done
msg=$("$pc" generate ring --topology s.json -o s.json 2>&1); [ $? = 2 ] || fail "generate -o its topology"
echo "ok an input is never overwritten"

# A FIFO is written in place, never replaced; without a reader it is an error, not a hang. The
# reader starts next to the writer, which waits for it up to 2 s (core/files.hpp).
mkfifo pipe
cat pipe >from-pipe & reader=$!
"$pc" verify s.json -o pipe >/dev/null || fail "-o FIFO"
wait $reader
[ -p pipe ] || fail "the FIFO was replaced"
grep -q '^PASS' from-pipe || fail "nothing came through the FIFO"
msg=$(timeout 10 "$pc" verify s.json -o pipe 2>&1); code=$?
[ $code = 2 ] || fail "a FIFO without a reader exited $code: $msg"
grep -q "no reader" <<<"$msg" || fail "a FIFO without a reader: $msg"
echo "ok FIFO"

# A character device (a null device made here, when allowed) is written in place.
if mknod null c 1 3 2>/dev/null; then
  "$pc" verify s.json -o null >/dev/null || fail "-o character device"
  [ -c null ] || fail "the device was replaced by a regular file"
  echo "ok character device"
else
  echo "skip character device (mknod not permitted)"
fi

# A symbolic link is followed to its target; a dangling one is refused.
echo old >target.txt
ln -s target.txt link.txt
"$pc" verify s.json -o link.txt >/dev/null || fail "-o symlink"
[ -L link.txt ] || fail "the symlink was replaced"
grep -q '^PASS' target.txt || fail "the symlink's target was not written"
ln -s missing.txt dangling.txt
msg=$("$pc" verify s.json -o dangling.txt 2>&1); [ $? = 2 ] || fail "-o dangling symlink"
[ ! -e missing.txt ] || fail "a file was created through a dangling symlink"
echo "ok symbolic links"

# Names planted where a careless writer would put its temporary are never followed.
echo victim >victim.txt
for planted in out.txt.tmp .out.txt.tmp .out.txt.XXXXXX out.txt~; do ln -s victim.txt "$planted"; done
"$pc" verify s.json -o out.txt >/dev/null || fail "-o with planted names"
[ "$(cat victim.txt)" = victim ] || fail "a planted symlink was written through"
echo "ok planted names"

# A directory is refused; nothing is left behind.
mkdir adir
msg=$("$pc" verify s.json -o adir 2>&1); [ $? = 2 ] || fail "-o directory"
echo "ok directory"

# Interrupted half-way: no partial output and no temporary left.
mkdir big
printf '{"kind": "fully-connected", "ranks": 8192, "ports": 1}' >big/t.json
"$pc" generate shift --topology big/t.json -o big/out.json & writer=$!
# Until the temporary exists (the generator is writing), then an interrupt.
for _ in $(seq 100); do [ -n "$(ls -A big | grep -v '^t.json$')" ] && break; sleep 0.05; done
kill -TERM $writer 2>/dev/null
wait $writer
[ $? -ne 0 ] || echo "note: the writer finished before the interrupt"
left=$(ls -A big | grep -v '^t.json$')
[ -z "$left" ] || [ "$left" = out.json ] || fail "left behind after an interrupt: $left"
if [ "$left" = out.json ]; then  # it finished before the signal: then it is whole
  "$pc" verify big/out.json >/dev/null || fail "a finished output does not verify"
fi
echo "ok interrupt"
echo "all output cases pass"
