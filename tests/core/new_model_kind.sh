#!/usr/bin/env bash
# A new model kind added to Topology must not compile until every dispatch over model kinds
# handles it: no default that turns an unknown machine into "no contention" or "bound 0".
# Builds a copy of core/topology.hpp with one more alternative, then compiles each dispatching
# source against it (syntax only) and requires the compiler to refuse, naming the missing case.
#   new_model_kind.sh CXX SOURCE_DIR [INCLUDE_FLAGS...]
set -euo pipefail
cxx=$1 src=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/core"
# The fake kind: a tiny machine with every member a generic visitor might call.
sed 's/^using Topology = std::variant<\(.*\)>;$/struct FakeKind {\n  Rank ranks() const { return 1; }\n};\nusing Topology = std::variant<\1, FakeKind>;/' \
  "$src/core/topology.hpp" > "$work/core/topology.hpp"
grep -q 'Graph, FakeKind>;' "$work/core/topology.hpp" || { echo "could not add FakeKind"; exit 1; }

status=0
# source file : what the compiler must say (the unhandled dispatch)
for case in "verify/bounds.cpp:model_bounds" "verify/contention.cpp:visit" "verify/congestion.cpp:link_id_count" \
            "core/topology.cpp:visit"; do
  file=${case%%:*} expect=${case#*:}
  # The real tree first would shadow the copy: the copy's directory comes first.
  if "$cxx" -std=c++20 -fsyntax-only -I"$work" -I"$src" "$@" "$src/$file" > "$work/log" 2>&1; then
    echo "FAIL: $file compiles with an unhandled model kind"
    status=1
  elif ! grep -q "FakeKind" "$work/log" || ! grep -q "$expect" "$work/log"; then
    echo "FAIL: $file does not compile, but not because of the new kind:"
    head -20 "$work/log"
    status=1
  else
    echo "ok: $file refuses FakeKind ($(grep -m1 -o "error: .*" "$work/log" | cut -c1-120))"
  fi
done
exit $status
