#!/usr/bin/env bash
# includes.sh ROOT: every #include "ROOM/..." of a room's sources (its tests may use any room) names a
# room that docs/architecture.md's table lets it include. Prints each offending line; exit 1 if any.
set -u
root=$1
cd "$root" || exit 1
table=$(mktemp) || exit 1
trap 'rm -f "$table"' EXIT
grep -E '^\| `[a-z_]+/` \|' docs/architecture.md > "$table" || {
  echo "no room table in docs/architecture.md"; exit 1; }
rooms=$(sed -E 's/^\| `([a-z_]+)\/`.*/\1/' "$table" | tr '\n' ' ')
# One pass: the table first (room -> allowed rooms), then every include of every room's sources.
# shellcheck disable=SC2086
grep -rnE '^#include "[a-z_]+/' $rooms --include='*.cpp' --include='*.hpp' --include='*.c' \
     --include='*.h' 2>/dev/null |
  awk -v table="$table" '
    BEGIN {
      while ((getline row < table) > 0) {
        n = split(row, cell, "|"); room = cell[2]; gsub(/[ `\/]/, "", room)
        allowed = cell[n - 1]; gsub(/ /, "", allowed)
        is_room[room] = 1
        if (allowed != "nothingofours") {
          k = split(allowed, list, ","); for (i = 1; i <= k; ++i) may[room, list[i]] = 1
        }
      }
    }
    {
      split($0, where, "/"); from = where[1]
      target = $0; sub(/^[^"]*"/, "", target); sub(/\/.*/, "", target)
      ++checked
      if (target == from || !(target in is_room) || ((from, target) in may)) next
      split($0, parts, ":")
      print parts[1] ":" parts[2] ": " from "/ may not include " target "/ (docs/architecture.md)"
      bad = 1
    }
    END {
      if (checked == 0) { print "no include was checked"; exit 1 }
      print checked " includes checked"; exit bad
    }'
