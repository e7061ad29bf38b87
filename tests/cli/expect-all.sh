#!/usr/bin/env bash
# expect-all.sh CODE 'REGEX1@@REGEX2@@...' -- command...
# Runs the command; passes iff it exits with CODE and its combined output matches every REGEX
# (ERE, one line each): a table row, a verdict line and a counterexample, say.
code=$1 regexes=$2
shift 3
out=$("$@" 2>&1)
actual=$?
if [ "$actual" != "$code" ]; then
  printf 'expected exit %s, got %s\n--- output ---\n%s\n' "$code" "$actual" "$out"
  exit 1
fi
while [ -n "$regexes" ]; do
  regex=${regexes%%@@*}
  if [ "$regex" = "$regexes" ]; then regexes=""; else regexes=${regexes#*@@}; fi
  if ! grep -Eq -- "$regex" <<<"$out"; then
    printf 'output does not match /%s/\n--- output ---\n%s\n' "$regex" "$out"
    exit 1
  fi
done
exit 0
