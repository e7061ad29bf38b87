#!/usr/bin/env bash
# sweep-mutants.sh PHASECHECK: for every row a library ships and every collective it implements,
# a mutant generator (sweep-mutant.py: one transfer sent to the next rank at one p) swept over
# p - 1..p + 1 must fail at that p and at no other, the p named in the report. p = 8 (2 for the
# two-process rows); a row made for one machine (rccl-pivot-alltoall) is skipped, its mutants are
# in its unit tests. Prints one line per row; fails if a mutant is missed or blamed on another p,
# or if no row was checked.
set -u
pc=$1
here=$(cd "$(dirname "$0")" && pwd)
rows='import json, sys
for a in json.load(sys.stdin)["algorithms"]:
    if a["library"] is None:
        continue
    for c in next(p["values"] for p in a["parameters"] if p["name"] == "collective"):
        print(a["name"], c)'
status=0 checked=0
while read -r algorithm collective; do
  p=8
  case $algorithm in *two-procs) p=2 ;; rccl-*) echo "skip  $algorithm: its MI250X only"; continue ;; esac
  out=$(PHASECHECK=$pc "$pc" sweep --generator "$here/sweep-mutant.py $algorithm $p collective=$collective" \
    --ranks $((p > 2 ? p - 1 : 2))..$((p + 1)) 2>&1)
  if grep -q "^== fail at p = $p\$" <<<"$out" && grep -q "^  fail             $p\$" <<<"$out"; then
    echo "caught  $algorithm $collective at p = $p"
    checked=$((checked + 1))
  else
    echo "MISSED  $algorithm $collective at p = $p"; echo "$out" | tail -12; status=1
  fi
done < <("$pc" algorithms --report json | python3 -c "$rows")
[ $checked -gt 0 ] || { echo "FAIL  no row checked"; status=1; }
exit $status
