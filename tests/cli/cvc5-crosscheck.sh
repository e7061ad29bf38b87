#!/usr/bin/env bash
# cvc5-crosscheck.sh PHASECHECK DIR TOPOLOGY...: for each topology, phasecheck proves the direct
# optimum with Z3 and exports the instance one phase below it (--smt2); cvc5, a second solver
# with its own parser and SAT core, must answer unsat on every file. An encoding bug that Z3
# misreads the same way it was written would show up here as "sat".
set -u
pc=$1 dir=$2
shift 2
mkdir -p "$dir"
status=0
for topology in "$@"; do
  name=$(basename "$(dirname "$topology")")-$(basename "$topology" .json)
  file=$dir/$name.smt2
  if ! "$pc" optimal --topology "$topology" --smt2 "$file" >"$dir/$name.txt" 2>&1; then
    echo "$name: phasecheck optimal did not prove an optimum"; cat "$dir/$name.txt"; status=1
    continue
  fi
  expected=$(head -1 "$file")
  answer=$(timeout 120 cvc5 "$file" 2>&1)
  printf '%-40s %s | cvc5: %s\n' "$name" "${expected#; phasecheck optimal: }" "$answer"
  if [[ $expected != *"expected unsat"* || $answer != unsat ]]; then status=1; fi
done
exit $status
