#!/usr/bin/env bash
# same-report.sh PHASECHECK ALGORITHM TOPOLOGY: the three ways to judge a generated schedule give
# one JSON report, but for the "schedule" key (where the schedule came from): `check` (generated
# and verified in one pass), `verify` of the JSON file and `verify` of the binary stream. Prints
# "same" when so. A failing schedule exits 1: the reports are what is compared.
set -euo pipefail
pc=$1 algorithm=$2 topology=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
strip() { python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("schedule"); print(json.dumps(d, indent=1))'; }
"$pc" generate "$algorithm" --topology "$topology" -o "$dir/s.json"
"$pc" generate "$algorithm" --topology "$topology" --format binary -o "$dir/s.bin"
checked=$("$pc" check "$algorithm" --topology "$topology" --report json | strip || true)
json=$("$pc" verify "$dir/s.json" --report json | strip || true)
binary=$("$pc" verify "$dir/s.bin" --report json | strip || true)
[ -n "$checked" ] && [ "$checked" = "$json" ] && [ "$json" = "$binary" ] && echo same
