#!/usr/bin/env bash
# check-same.sh PHASECHECK ALGORITHM TOPOLOGY: `check` gives the JSON report `generate | verify`
# gives, but for the "schedule" key (where the schedule came from). Prints "same" when so.
set -euo pipefail
pc=$1 algorithm=$2 topology=$3
strip() { python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("schedule"); print(json.dumps(d, indent=1))'; }
# A failing schedule exits 1: the report is what is compared.
a=$("$pc" check "$algorithm" --topology "$topology" --report json | strip || true)
b=$("$pc" generate "$algorithm" --topology "$topology" | "$pc" verify - --report json | strip || true)
[ -n "$a" ] && [ "$a" = "$b" ] && echo same
