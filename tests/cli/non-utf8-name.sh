#!/usr/bin/env bash
# non-utf8-name.sh PHASECHECK SCHEDULE DIR: a schedule whose file name is not UTF-8 still gets a
# JSON report, with the name's bad byte written as U+FFFD, rather than an internal error.
set -eu
name="$3/schedule-$(printf '\377').json"
cp "$2" "$name"
out=$("$1" verify --report json "$name")
grep -q "\"schedule\": \".*/schedule-$(printf '\357\277\275').json\"" <<<"$out"
echo "replaced"
