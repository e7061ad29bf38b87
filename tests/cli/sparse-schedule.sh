#!/bin/bash
# sparse-schedule.sh RANKS PHASES FILE: writes a schedule of RANKS ranks (fully connected, one
# port) with PHASES phases of one message each (phase i: i mod RANKS -> i + 1 mod RANKS). It
# delivers almost nothing; what the limits tests need is its size: ranks times phases.
set -eu
ranks=$1 phases=$2 out=$3
{
  printf '{"format": "phasecheck.schedule/1", "algorithm": "sparse", "collective": "alltoall",\n'
  printf ' "ranks": %d, "topology": {"kind": "fully-connected", "ranks": %d, "ports": 1},\n' \
    "$ranks" "$ranks"
  printf ' "phases": ['
  for ((i = 0; i < phases; i++)); do
    ((i == 0)) || printf ','
    printf '\n  {"transfers": [{"src": %d, "dst": %d}]}' $((i % ranks)) $(((i + 1) % ranks))
  done
  printf ']}\n'
} > "$out"
