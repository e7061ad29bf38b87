#!/usr/bin/env bash
# binary-same.sh PHASECHECK ALGORITHM TOPOLOGY: `verify` of the binary stream gives the JSON
# report the JSON file gives, but for the "schedule" key. Prints "same" when so.
set -euo pipefail
pc=$1 algorithm=$2 topology=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
strip() { python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("schedule"); print(json.dumps(d, indent=1))'; }
"$pc" generate "$algorithm" --topology "$topology" -o "$dir/s.json"
"$pc" generate "$algorithm" --topology "$topology" --format binary -o "$dir/s.bin"
a=$("$pc" verify "$dir/s.json" --report json | strip || true)
b=$("$pc" verify "$dir/s.bin" --report json | strip || true)
echo "json $(stat -c %s "$dir/s.json") bytes, binary $(stat -c %s "$dir/s.bin") bytes"
[ -n "$a" ] && [ "$a" = "$b" ] && echo same
