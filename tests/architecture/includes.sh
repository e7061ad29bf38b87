#!/usr/bin/env bash
# includes.sh ROOT: every #include "ROOM/..." of a room's sources (its tests may use any room) names a
# room that docs/architecture.md's table lets it include. Prints each offending line; exit 1 if any.
set -u
root=$1
table=$(grep -E '^\| `[a-z_]+/` \|' "$root/docs/architecture.md")
[ -n "$table" ] || { echo "no room table in docs/architecture.md"; exit 1; }
rooms=$(sed -E 's/^\| `([a-z_]+)\/`.*/\1/' <<<"$table")
bad=0 checked=0
for room in $rooms; do
  allowed=$(grep -E "^\| \`$room/\` \|" <<<"$table" | awk -F'|' '{print $(NF-1)}' | tr -d ' ' | tr ',' ' ')
  [ "$allowed" = "nothingofours" ] && allowed=""
  for dir in "$root/$room"; do
    [ -d "$dir" ] || continue
    while IFS= read -r hit; do
      checked=$((checked + 1))
      target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"${hit#*:}")
      [ "$target" = "$room" ] && continue
      grep -qx "$target" <<<"$rooms" || continue  # not a room (a test helper folder, a library)
      if ! grep -qw -- "$target" <<<"$allowed"; then
        echo "${hit#"$root"/}: $room/ may not include $target/ (docs/architecture.md)"
        bad=1
      fi
    done < <(grep -rnE '^#include "[a-z_]+/' "$dir" --include='*.cpp' --include='*.hpp' \
               --include='*.c' --include='*.h' 2>/dev/null)
  done
done
[ "$checked" -gt 0 ] || { echo "no include was checked"; exit 1; }
echo "$checked includes checked"
exit $bad
