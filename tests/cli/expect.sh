#!/usr/bin/env bash
# expect.sh CODE REGEX -- command...
# Runs the command; passes iff it exits with CODE and its combined output matches REGEX (ERE).
code=$1 regex=$2
shift 3
out=$("$@" 2>&1)
actual=$?
if [ "$actual" != "$code" ]; then
  printf 'expected exit %s, got %s\n--- output ---\n%s\n' "$code" "$actual" "$out"
  exit 1
fi
if [ -n "$regex" ] && ! grep -Eq -- "$regex" <<<"$out"; then
  printf 'output does not match /%s/\n--- output ---\n%s\n' "$regex" "$out"
  exit 1
fi
exit 0
