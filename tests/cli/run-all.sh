#!/usr/bin/env bash
# run-all.sh PHASECHECK DIR: every registered algorithm, generated on the first two example
# machines it applies to (4 to 16 ranks), runs under Open MPI with every byte checked; its
# allgather form runs on the first machine that has one. Prints one line per run; fails if any run
# fails or an algorithm never ran. With PHASECHECK_RUN_ALL_ONCE set (the sanitize test preset:
# a sanitized MPI process costs seconds) each algorithm runs once, its first applicable form.
set -u
pc=$1 dir=$2
ex=$(cd "$(dirname "$0")/../../examples" && pwd)
mkdir -p "$dir"
machines="faraj-yuan-fig1 fully-connected-8 hypercube-3 ring-6 mesh-3x3 sanders-traeff-1-2-3
          cluster-four-by-four fully-connected-5 randomized-fig1"
# rccl-pivot-alltoall runs only on its 16-GCD MI250X (Algorithm::only_machine), kept with its tests.
machines="$machines ../tests/schedules/nccl/mi250x-16"
# ompi-two-procs runs on two ranks only.
machines="$machines ../tests/cli/two-ranks"
status=0
# Under the sanitizers (PHASECHECK_RUN_ALL_ONCE) the papers' algorithms only: the runner's code is
# the same for every schedule, and the release stage runs the libraries' rows too. The alltoallv
# rows are not here: `run` refuses an alltoallv, and tests/deploy/alltoallv.c runs them under MPI.
names='import json, os, sys
once = os.environ.get("PHASECHECK_RUN_ALL_ONCE")
alltoallv = lambda a: any(p["name"] == "collective" and p["values"] == ["alltoallv"] for p in a["parameters"])
print(" ".join(a["name"] for a in json.load(sys.stdin)["algorithms"]
               if (not once or a["library"] is None) and not alltoallv(a)))'
for algorithm in $("$pc" algorithms --report json | python3 -c "$names"); do
  alltoall=0 allgather=0
  for m in $machines; do
    for collective in alltoall allgather; do
      [ $collective = alltoall ] && [ $alltoall -ge 2 ] && continue
      [ $collective = allgather ] && [ $allgather -ge 1 ] && continue
      [ -n "${PHASECHECK_RUN_ALL_ONCE:-}" ] && [ $((alltoall + allgather)) -ge 1 ] && continue
      s=$dir/$algorithm-${m##*/}-$collective.json
      "$pc" generate "$algorithm" --topology "$ex/$m/topology.json" \
        --set collective=$collective -o "$s" >/dev/null 2>&1 ||
        "$pc" generate "$algorithm" --topology "$ex/$m/topology.json" -o "$s" >/dev/null 2>&1 ||
        continue
      grep -q "\"collective\": \"$collective\"" "$s" || continue
      if out=$("$pc" run "$s" --bytes 1000 --repeats 2 2>&1); then
        echo "pass  $algorithm $collective on $m: $(grep -o '[0-9.e-]* ms per call' <<<"$out" | head -1)"
      else
        echo "FAIL  $algorithm $collective on $m"; echo "$out"; status=1
      fi
      if [ $collective = alltoall ]; then alltoall=$((alltoall + 1)); else allgather=1; fi
    done
  done
  if [ $((alltoall + allgather)) -eq 0 ]; then echo "FAIL  $algorithm never ran"; status=1; fi
  gathered=$((${gathered:-0} + allgather))
done
# The allgather forms must have run too, not been skipped by a change in the JSON's spelling.
if [ "${gathered:-0}" -eq 0 ]; then echo "FAIL  no algorithm ran its allgather form"; status=1; fi
exit $status
