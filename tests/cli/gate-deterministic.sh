#!/usr/bin/env bash
# gate-deterministic.sh PHASECHECK DIR: the same manifest gives the same bytes, in every report
# format, twice; and --update on a copy of the fixtures accepts the passing changes only. The
# fixtures' topology lies outside the manifest's directory: --allow-outside admits it.
set -u
pc=$1 dir=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$dir"
for format in text json markdown junit; do
  "$pc" gate "$here/tests/gate/manifest.json" --allow-outside "$here" --report $format >"$dir/a.$format"
  "$pc" gate "$here/tests/gate/manifest.json" --allow-outside "$here" --report $format >"$dir/b.$format"
  cmp "$dir/a.$format" "$dir/b.$format" || { echo "gate --report $format differs between runs"; exit 1; }
done
rm -rf "$dir/copy" && mkdir -p "$dir/copy/tests" "$dir/copy/examples"
cp -r "$here/tests/gate" "$dir/copy/tests/" && cp -r "$here/examples/faraj-yuan-fig1" "$dir/copy/examples/"
"$pc" gate "$dir/copy/tests/gate/manifest.json" --allow-outside "$dir/copy" --update >/dev/null
"$pc" gate "$dir/copy/tests/gate/manifest.json" --allow-outside "$dir/copy"
