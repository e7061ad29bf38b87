#!/usr/bin/env bash
# same-report.sh PHASECHECK ALGORITHM TOPOLOGY: the three ways to judge a generated schedule give
# one JSON report, but for the "schedule" key (where the schedule came from): `check` (generated
# and verified in one pass), `verify` of the JSON file and `verify` of the binary stream. Prints
# "same" when so. A failing schedule exits 1: the reports are what is compared. Each is made with
# one checking thread and with three (verify/parallel.hpp): the same report again.
set -euo pipefail
pc=$1 algorithm=$2 topology=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
strip() { python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("schedule"); print(json.dumps(d, indent=1))'; }
"$pc" generate "$algorithm" --topology "$topology" -o "$dir/s.json"
"$pc" generate "$algorithm" --topology "$topology" --format binary -o "$dir/s.bin"
for threads in 1 3; do
  checked=$("$pc" check "$algorithm" --topology "$topology" --report json --threads $threads | strip || true)
  json=$("$pc" verify "$dir/s.json" --report json --threads $threads | strip || true)
  binary=$("$pc" verify "$dir/s.bin" --report json --threads $threads | strip || true)
  [ -n "$checked" ] && [ "$checked" = "$json" ] && [ "$json" = "$binary" ] || exit 1
  [ "$threads" = 1 ] && one=$checked
  [ "$checked" = "$one" ] || exit 1
done
echo same
