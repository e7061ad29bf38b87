#!/usr/bin/env bash
# run-buffers.sh PHASECHECK DIR: every registered algorithm's buffer program (generate --buffers,
# format 3), on the first example machine it applies to (6 to 9 ranks), runs under Open MPI with
# every output slot checked byte for byte; its allgather form too where it has one. The --sync
# mode rotates over none, barrier and pairwise (pairwise where the machine routes). Prints one
# line per run (a program in place is format 4); fails if any run fails, an algorithm never ran, or no allgather form and no
# program of several chunks per message ran.
set -u
pc=$1 dir=$2
ex=$(cd "$(dirname "$0")/../../examples" && pwd)
mkdir -p "$dir"
machines="faraj-yuan-fig1 fully-connected-8 hypercube-3 ring-6 mesh-3x3 sanders-traeff-1-2-3"
# rccl-pivot-alltoall runs only on its 16-GCD MI250X (Algorithm::only_machine), kept with its tests.
machines="$machines ../tests/schedules/nccl/mi250x-16"
# ompi-two-procs runs on two ranks only.
machines="$machines ../tests/cli/two-ranks"
status=0 gathered=0 chunked=0 n=0
# Under the sanitizers (PHASECHECK_RUN_ALL_ONCE) the papers' algorithms only: the runner's code is
# the same for every schedule, and the release stage runs the libraries' rows too.
# The alltoallv rows have no buffer program (generate --buffers refuses them).
names='import json, os, sys
once = os.environ.get("PHASECHECK_RUN_ALL_ONCE")
alltoallv = lambda a: any(p["name"] == "collective" and p["values"] == ["alltoallv"] for p in a["parameters"])
print(" ".join(a["name"] for a in json.load(sys.stdin)["algorithms"]
               if (not once or a["library"] is None) and not alltoallv(a)))'
for algorithm in $("$pc" algorithms --report json | python3 -c "$names"); do
  ran=0
  for collective in alltoall allgather; do
    # Under the sanitizers (PHASECHECK_RUN_ALL_ONCE, as run-all.sh) one form per algorithm.
    [ -n "${PHASECHECK_RUN_ALL_ONCE:-}" ] && [ $ran -eq 1 ] && continue
    for m in $machines; do
      s=$dir/$algorithm-${m##*/}-$collective.json
      "$pc" generate "$algorithm" --topology "$ex/$m/topology.json" --buffers \
        --set collective=$collective -o "$s" >/dev/null 2>&1 ||
        { [ $collective = alltoall ] &&
          "$pc" generate "$algorithm" --topology "$ex/$m/topology.json" --buffers -o "$s" \
            >/dev/null 2>&1; } ||
        continue
      grep -q "\"collective\": \"$collective\"" "$s" || continue
      # Format 3, or 4 for a program in place.
      grep -Eq '"format": "phasecheck.schedule/[34]"' "$s" || { echo "FAIL  $s is not format 3 or 4"; status=1; }
      modes=(none barrier pairwise) sync=${modes[$((n % 3))]}
      case $m in fully-connected-* | sanders-traeff-* | */two-ranks) [ $sync = pairwise ] && sync=barrier ;; esac
      # The runner reads an alltoall's input buffer: an alltoall program in place (format 4)
      # is verified (generate --buffers | verify, tests/cli) but not run.
      if grep -q '"format": "phasecheck.schedule/4"' "$s" && [ $collective = alltoall ]; then
        echo "skip  $algorithm $collective on $m: in place, which the runner does not run"
        ran=1
        break
      fi
      n=$((n + 1))
      if out=$("$pc" run "$s" --bytes 1000 --repeats 1 --sync $sync 2>&1); then
        echo "pass  $algorithm $collective on $m, --sync $sync: $(grep -o '[0-9]* chunks\? of [0-9]* bytes' <<<"$out")"
        grep -q '([1-9][0-9]* chunks of' <<<"$out" && chunked=$((chunked + 1))
      else
        echo "FAIL  $algorithm $collective on $m, --sync $sync"; echo "$out"; status=1
      fi
      ran=1
      [ $collective = allgather ] && gathered=$((gathered + 1))
      break
    done
  done
  if [ $ran -eq 0 ]; then echo "FAIL  $algorithm: no buffer program ran"; status=1; fi
done
# Not skipped by a change in the JSON's or the report's spelling:
if [ $gathered -eq 0 ]; then echo "FAIL  no allgather buffer program ran"; status=1; fi
if [ $chunked -eq 0 ]; then echo "FAIL  no buffer program of several chunks per message ran"; status=1; fi
echo "$n runs, $gathered allgather, $chunked of several chunks per message"
exit $status
