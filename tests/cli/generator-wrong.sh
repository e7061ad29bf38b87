#!/usr/bin/env bash
# A deliberately wrong external generator: the shift schedule with every message to rank 1
# dropped once there are at least 3 ranks (exit 2, "not supported", below that).
set -o pipefail
topology=$(cat)
ranks=$("$PHASECHECK" generate shift --topology /dev/stdin <<<"$topology" | grep -c '"src": 0, ')
[ "$ranks" -ge 3 ] || exit 2
"$PHASECHECK" generate shift --topology /dev/stdin <<<"$topology" | grep -v '"dst": 1}' |
  sed -e 's/},$/},/' | python3 -c '
import json, re, sys
text = sys.stdin.read()
text = re.sub(r",\s*\n(\s*\])", r"\n\1", text)  # a dropped last transfer leaves a trailing comma
print(text)'
