#!/usr/bin/env bash
# mscclpp-bad-plans.sh PHASECHECK DIR: every malformed plan of DIR is refused by `verify` with
# exit 2 and a message naming the file; prints how many.
set -u
pc=$1 dir=$2 n=0
for f in "$dir"/*.json; do
  out=$("$pc" verify "$f" 2>&1)
  code=$?
  if [ $code -ne 2 ] || [[ "$out" != *"$(basename "$f")"* ]]; then
    echo "not refused: $f (exit $code): $out"
    exit 1
  fi
  n=$((n + 1))
done
echo "every malformed plan refused: $n"
