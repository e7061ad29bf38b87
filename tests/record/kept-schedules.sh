#!/usr/bin/env bash
# kept-schedules.sh PHASECHECK DIR: the tables `record -o DIR` keeps are schedules like any other:
# they verify (on another machine too), draw and diff; replay.txt holds the failing cases' commands.
set -u
pc=$1 dir=$2
rm -rf "$dir"
"$pc" record mpi --algorithm modified_bruck,pairwise --ranks 6 --counts 1,3 \
  --types contiguous,different -o "$dir" >"$dir.out" 2>&1
code=$?
fail() { printf '%s\n--- record ---\n' "$1"; cat "$dir.out"; exit 1; }
[ "$code" = 1 ] || fail "record: expected exit 1 (modified Bruck with different types), got $code"
grep -q -- "--algorithm modified_bruck --ranks 6 --counts 3 --types different" "$dir/replay.txt" ||
  fail "replay.txt lacks the failing case"
"$pc" verify "$dir/modified_bruck-p6-c3-contiguous.json" | grep -q "PASS  modified-bruck (alltoall)" ||
  fail "the kept Bruck table does not verify"
"$pc" verify "$dir/pairwise-p6-c1-contiguous.json" --topology "$3" | grep -q "FAIL  ompi-pairwise (alltoall) on ring(p=6)" ||
  fail "verify --topology: the pairwise table is not judged on the ring"
"$pc" draw "$dir/modified_bruck-p6-c3-contiguous.json" -o "$dir/bruck.svg" >/dev/null &&
  grep -q "<svg" "$dir/bruck.svg" || fail "draw"
"$pc" diff "$dir/modified_bruck-p6-c1-contiguous.json" "$dir/pairwise-p6-c1-contiguous.json" |
  grep -q "phases 3 -> 6" || fail "diff"
echo "kept schedules: verify, verify --topology, draw, diff"
