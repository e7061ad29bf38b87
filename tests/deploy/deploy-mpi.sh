#!/usr/bin/env bash
# deploy-mpi.sh PHASECHECK DIR CASE: `phasecheck deploy` end to end under Open MPI. Each case
# generates its schedules, deploys them, builds an unmodified program with mpicc and runs it; it
# prints what it saw and exits non-zero on the first thing that is not as it must be.
#   c4        the interposer on 4 ranks: tests/deploy/collectives.c (counts, datatypes, in place,
#             split and duplicated communicators) against the library's own; halves fall back
#   c8        the same on 8 ranks; the halves (4 ranks) run the 4-rank schedules
#   v3        a buffer program (format 3, bruck-index --buffers) deployed, on 8 ranks
#   fallback  a library without a schedule for the size: every call falls back, results right;
#             without PHASECHECK_LOG nothing is printed
#   mpi4py    tests/deploy/collectives.py under the interposer, 4 ranks
#   routine   --emit-c: compiles with -Wall -Wextra -Werror, runs against PMPI_Alltoall on 8
#             ranks (and on 4: another size, handed to PMPI_Alltoall); same input, same bytes
#   erroneous tests/deploy/erroneous.c on 4 ranks: negative counts, MPI_DATATYPE_NULL, MPI_IN_PLACE
#             as the receive buffer go to the library untouched (same error class as PMPI_)
#   refused   a schedule that fails verification: exit 1, the counterexample, nothing written
#   one_rank  a 1-rank ring (a table of no phase) deploys as a routine and runs on 1 rank
#   unknown_kind  a routine whose step table holds a kind the runtime does not know stops with an
#             internal error, never runs it as a barrier
# MPI_Alltoallv (schedules by `phasecheck generate --traffic`, vschedule below):
#   v_linear, v_pairwise, v_scattered  linear-v, pairwise-v, scattered-v (bblock 2) deployed for
#             p = 1..6 in one library; tests/deploy/alltoallv.c on 1..6 ranks compares 120 random
#             matrices per size with PMPI_Alltoallv, and the log shows the schedule ran
#   v_erroneous  tests/deploy/erroneous.c alltoallv on 4 ranks under a pairwise-v schedule:
#             erroneous MPI_Alltoallv calls answered with the library's error class
#   v_refused an alltoallv schedule from a matrix with a zero off-diagonal count: exit 1, why,
#             nothing written
#   v_routine --emit-c of a pairwise-v schedule: phasecheck_pairwise_v_alltoallv against
#             PMPI_Alltoallv (tests/deploy/alltoallv.c with -DROUTINE) on 4 ranks
#   v_mpi4py  mpi4py's own test_cco_vec.py and test_cco_buf.py (Alltoallv, in place included)
#             under the interposer on 2, 4 and 5 ranks; their directory is PHASECHECK_MPI4PY_TESTS
#             (mpi4py's test/ at the tag of the installed mpi4py; docs/run.md), else skipped (77)
set -u
pc=$1 dir=$2 case=$3
here=$(cd "$(dirname "$0")" && pwd)
ex=$(cd "$here/../../examples" && pwd)
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
# The sanitize preset hands ASAN_OPTIONS to sanitized MPI processes through mca_base_env_list,
# which Open MPI refuses next to -x. The programs here are not sanitized (mpicc builds them):
# they need -x LD_PRELOAD, not the list.
unset OMPI_MCA_mca_base_env_list
rm -rf "$dir/$case" && mkdir -p "$dir/$case" && cd "$dir/$case" || exit 2

# vschedule ALGORITHM RANKS PORTS [zero] [KEY=VALUE...]: an alltoallv schedule on standard output,
# by `phasecheck generate --traffic` from a matrix whose off-diagonal counts are all non-zero and
# skewed (counts[s][d] = 1 + (3s + 5d) % 7; the diagonal 0 on even ranks), so that the deployed
# pattern is seen to serve calls whose counts have nothing to do with it; `zero` makes
# counts[p-1][0] 0, a schedule deploy must refuse.
vschedule() {
  local algorithm=$1 p=$2 ports=$3 zero=0 arg
  local parameters=()
  shift 3
  for arg in "$@"; do
    if [ "$arg" = zero ]; then zero=1; else parameters+=(--set "$arg"); fi
  done
  awk -v p="$p" -v zero=$zero 'BEGIN {
    for (s = 0; s < p; s++) {
      line = ""
      for (d = 0; d < p; d++) {
        c = (s == d && s % 2 == 0) ? 0 : 1 + (3 * s + 5 * d) % 7
        if (zero && p > 1 && s == p - 1 && d == 0) c = 0
        line = line (d ? "," : "") c
      }
      print line
    }
  }' >"vmatrix-$p.csv" &&
    "$pc" topology fully-connected --ranks "$p" --ports "$ports" -o "vmachine-$p.json" &&
    "$pc" generate "$algorithm" --topology "vmachine-$p.json" --traffic "vmatrix-$p.csv" \
      --element-bytes 4 "${parameters[@]}"
}

fail() { echo "FAIL  $*"; exit 1; }
run() { echo "+ $*"; "$@" || fail "exit $? from: $*"; }
# expect_log FILE TEXT: a line of the interposer's log
expect_log() { grep -qF "$2" "$1" || { cat "$1"; fail "no line '$2' in the log"; }; }

schedules() {  # the schedules every case draws from
  run "$pc" topology hypercube --dimension 2 -o h2.json >/dev/null
  run "$pc" topology fully-connected --ranks 4 --ports 3 -o fc4.json >/dev/null
  run "$pc" topology ring --ranks 8 -o ring8.json >/dev/null
  run "$pc" generate hypercube-exchange --topology h2.json -o hx4.json
  cp "$ex/hypercube-3/hypercube-exchange.json" hx8.json
  run "$pc" generate bruck-concat --topology fc4.json --set collective=allgather -o bc4.json
  run "$pc" generate ring --topology ring8.json --set collective=allgather -o ring8-allgather.json
  run "$pc" generate bruck-index --topology "$ex/fully-connected-8/topology.json" --buffers -o bi8.json
}

collectives() {  # NP LIB: collectives.c under the interposer, with the log
  run mpicc -std=c99 -O1 -Wall -Werror -o collectives "$here/collectives.c"
  "${mpirun[@]}" -np "$1" -x LD_PRELOAD="$PWD/$2" -x PHASECHECK_LOG=1 ./collectives >out.txt 2>log.txt ||
    { cat out.txt log.txt; fail "collectives on $1 ranks"; }
  cat out.txt log.txt
  grep -q "collectives: [1-9][0-9]* calls on $1 ranks, 0 failures" out.txt || fail "collectives on $1 ranks"
}

case $case in
  c4)
    schedules
    run "$pc" deploy hx4.json bc4.json -o lib.so
    collectives 4 lib.so
    expect_log log.txt "phasecheck: MPI_Alltoall on 4 ranks: hypercube-exchange (verified)"
    expect_log log.txt "phasecheck: MPI_Allgather on 4 ranks: bruck-concat (verified)"
    expect_log log.txt "phasecheck: MPI_Alltoall on 2 ranks: falling back, no schedule"
    expect_log log.txt "phasecheck: MPI_Allgather on 2 ranks: falling back, no schedule"
    expect_log log.txt "phasecheck: MPI_Alltoall on 4 ranks: falling back, the send and receive type signatures differ"
    ;;
  c8)
    schedules
    run "$pc" deploy hx8.json hx4.json ring8-allgather.json bc4.json -o lib.so
    collectives 8 lib.so
    expect_log log.txt "phasecheck: MPI_Alltoall on 8 ranks: hypercube-exchange (verified)"
    expect_log log.txt "phasecheck: MPI_Alltoall on 4 ranks: hypercube-exchange (verified)"
    expect_log log.txt "phasecheck: MPI_Allgather on 8 ranks: ring (verified)"
    expect_log log.txt "phasecheck: MPI_Allgather on 4 ranks: bruck-concat (verified)"
    ;;
  v3)
    schedules
    run "$pc" deploy bi8.json --sync none -o lib.so
    collectives 8 lib.so
    expect_log log.txt "phasecheck: MPI_Alltoall on 8 ranks: bruck-index (verified)"
    ;;
  fallback)
    schedules
    run "$pc" deploy hx8.json -o lib.so
    collectives 4 lib.so
    expect_log log.txt "phasecheck: MPI_Alltoall on 4 ranks: falling back, no schedule"
    expect_log log.txt "phasecheck: MPI_Allgather on 4 ranks: falling back, no schedule"
    grep -q "(verified)" log.txt && fail "a schedule ran on a size it was not deployed for"
    "${mpirun[@]}" -np 4 -x LD_PRELOAD="$PWD/lib.so" ./collectives >out.txt 2>log.txt ||
      fail "collectives without PHASECHECK_LOG"
    grep -q "phasecheck" log.txt && { cat log.txt; fail "output without PHASECHECK_LOG"; }
    echo "no output without PHASECHECK_LOG"
    ;;
  mpi4py)
    schedules
    run "$pc" deploy hx4.json bc4.json -o lib.so
    "${mpirun[@]}" -np 4 -x LD_PRELOAD="$PWD/lib.so" -x PHASECHECK_LOG=1 /usr/bin/python3 \
      "$here/collectives.py" >out.txt 2>log.txt || { cat out.txt log.txt; fail "mpi4py"; }
    cat out.txt log.txt
    grep -q "mpi4py: [1-9][0-9]* checks on 4 ranks, 0 failures" out.txt || fail "mpi4py"
    expect_log log.txt "phasecheck: MPI_Alltoall on 4 ranks: hypercube-exchange (verified)"
    expect_log log.txt "phasecheck: MPI_Allgather on 4 ranks: bruck-concat (verified)"
    ;;
  routine)
    schedules
    run "$pc" deploy --emit-c hx8.json -o routine.c
    run "$pc" deploy --emit-c hx8.json -o again.c
    cmp routine.c again.c || fail "two runs wrote different C"
    grep -q "^int phasecheck_hypercube_exchange_alltoall(" routine.c || fail "no function"
    grep -qF '/* rank 0, phase 0 "step 1 (dimension 0)" */' routine.c || fail "phases not named"
    run mpicc -std=c99 -Wall -Wextra -Werror -c routine.c -o routine.o
    run mpicc -std=c99 -Wall -Werror -DROUTINE=phasecheck_hypercube_exchange_alltoall \
      -o driver "$here/routine-driver.c" routine.o
    for np in 8 4; do
      "${mpirun[@]}" -np $np ./driver >out.txt 2>&1 || { cat out.txt; fail "routine on $np ranks"; }
      cat out.txt
      grep -q "routine: [1-9][0-9]* calls, 0 failures" out.txt || fail "routine on $np ranks"
    done
    ;;
  erroneous)
    schedules
    run "$pc" deploy hx4.json bc4.json -o lib.so
    run mpicc -std=c99 -O1 -Wall -Werror -o erroneous "$here/erroneous.c"
    "${mpirun[@]}" -np 4 -x LD_PRELOAD="$PWD/lib.so" -x PHASECHECK_LOG=1 ./erroneous >out.txt 2>log.txt ||
      { cat out.txt log.txt; fail "erroneous calls"; }
    cat out.txt log.txt
    grep -q "erroneous: 32 calls, 0 failures" out.txt || fail "erroneous calls"
    expect_log log.txt "phasecheck: MPI_Alltoall on 4 ranks: falling back, a negative count"
    expect_log log.txt "phasecheck: MPI_Allgather on 4 ranks: falling back, a negative count"
    ;;
  refused)
    bad=$here/../cli/bad/fig1-contention.json
    "$pc" deploy "$bad" -o lib.so >out.txt 2>&1
    code=$?
    cat out.txt
    [ $code -eq 1 ] || fail "exit $code, expected 1"
    grep -q "deploy refused: .*fig1-contention.json: it does not verify (contention: fail" out.txt ||
      fail "no refusal naming the check"
    grep -q "shared: link" out.txt || fail "no counterexample"
    [ -e lib.so ] && fail "a library was written"
    "$pc" deploy --emit-c "$bad" -o routine.c >/dev/null 2>&1
    [ $? -eq 1 ] && [ ! -e routine.c ] || fail "--emit-c wrote a refused schedule"
    ;;
  one_rank)
    run "$pc" topology fully-connected --ranks 1 --ports 1 -o fc1.json >/dev/null
    run "$pc" generate ring --topology fc1.json -o ring1.json
    run "$pc" deploy --emit-c ring1.json -o routine.c
    run mpicc -std=c99 -Wall -Wextra -Werror -c routine.c -o routine.o
    run mpicc -std=c99 -Wall -Werror -DROUTINE=phasecheck_ring_alltoall \
      -o driver "$here/routine-driver.c" routine.o
    "${mpirun[@]}" -np 1 ./driver >out.txt 2>&1 || { cat out.txt; fail "routine on 1 rank"; }
    cat out.txt
    grep -q "routine: [1-9][0-9]* calls, 0 failures" out.txt || fail "routine on 1 rank"
    ;;
  unknown_kind)
    schedules
    run "$pc" deploy --emit-c hx8.json -o routine.c
    # The first step of the table becomes kind 99.
    sed '0,/{PC_SEND, /s//{99, /' routine.c >broken.c
    cmp -s routine.c broken.c && fail "no PC_SEND step to break"
    run mpicc -std=c99 -Wall -Wextra -Werror -c broken.c -o broken.o
    run mpicc -std=c99 -Wall -Werror -DROUTINE=phasecheck_hypercube_exchange_alltoall \
      -o driver "$here/routine-driver.c" broken.o
    "${mpirun[@]}" -np 8 ./driver >out.txt 2>&1 && { cat out.txt; fail "a step of unknown kind ran"; }
    cat out.txt
    grep -q "phasecheck: internal error: a step of unknown kind in the deployed tables" out.txt ||
      fail "no internal error"
    ;;
  v_linear | v_pairwise | v_scattered)
    algorithm=${case#v_}-v
    for np in 1 2 3 4 5 6; do
      ports=$((np > 1 ? np - 1 : 1)) set=()
      [ "$algorithm" = pairwise-v ] && ports=1
      [ "$algorithm" = scattered-v ] && ports=2 set=(bblock=2)
      vschedule "$algorithm" $np $ports "${set[@]}" >v$np.json || fail "no $algorithm schedule on $np ranks"
    done
    run "$pc" deploy v1.json v2.json v3.json v4.json v5.json v6.json -o lib.so
    run mpicc -std=c99 -O1 -Wall -Werror -o alltoallv "$here/alltoallv.c"
    for np in 1 2 3 4 5 6; do
      "${mpirun[@]}" -np $np -x LD_PRELOAD="$PWD/lib.so" -x PHASECHECK_LOG=1 ./alltoallv $np 120 \
        >out.txt 2>log.txt || { cat out.txt log.txt; fail "alltoallv on $np ranks"; }
      cat out.txt log.txt
      grep -q "alltoallv: $((120 * np)) calls on $np ranks, 0 failures" out.txt ||
        fail "alltoallv on $np ranks"
      expect_log log.txt "phasecheck: MPI_Alltoallv on $np ranks: $algorithm (verified)"
      grep -q "MPI_Alltoallv on $np ranks: falling back" log.txt && fail "a call fell back"
    done
    ;;
  v_erroneous)
    vschedule pairwise-v 4 1 >pv4.json || fail "no schedule"
    run "$pc" deploy pv4.json -o lib.so
    run mpicc -std=c99 -O1 -Wall -Werror -o erroneous "$here/erroneous.c"
    "${mpirun[@]}" -np 4 -x LD_PRELOAD="$PWD/lib.so" -x PHASECHECK_LOG=1 ./erroneous alltoallv \
      >out.txt 2>log.txt || { cat out.txt log.txt; fail "erroneous calls"; }
    cat out.txt log.txt
    grep -q "erroneous: 16 calls, 0 failures" out.txt || fail "erroneous calls"
    expect_log log.txt "phasecheck: MPI_Alltoallv on 4 ranks: falling back, a negative count"
    expect_log log.txt "phasecheck: MPI_Alltoallv on 4 ranks: falling back, null counts or \
displacements, MPI_DATATYPE_NULL or MPI_IN_PLACE as the receive buffer"
    ;;
  v_refused)
    vschedule linear-v 4 3 zero >zero.json || fail "no schedule"
    "$pc" deploy zero.json -o lib.so >out.txt 2>&1
    code=$?
    cat out.txt
    [ $code -eq 1 ] || fail "exit $code, expected 1"
    grep -q "deploy refused: .*zero.json: its MPI_Alltoallv would depend on the counts: \
counts\[3\]\[0\] is 0" out.txt ||
      fail "no refusal naming the zero count"
    [ -e lib.so ] && fail "a library was written"
    ;;
  v_routine)
    vschedule pairwise-v 4 1 >pv4.json || fail "no schedule"
    run "$pc" deploy --emit-c pv4.json -o routine.c
    grep -q "^int phasecheck_pairwise_v_alltoallv(" routine.c || fail "no function"
    run mpicc -std=c99 -Wall -Wextra -Werror -c routine.c -o routine.o
    run mpicc -std=c99 -O1 -Wall -Werror -DROUTINE=phasecheck_pairwise_v_alltoallv \
      -o driver "$here/alltoallv.c" routine.o
    "${mpirun[@]}" -np 4 ./driver 11 60 >out.txt 2>&1 || { cat out.txt; fail "routine on 4 ranks"; }
    cat out.txt
    grep -q "alltoallv: 240 calls on 4 ranks, 0 failures" out.txt || fail "routine on 4 ranks"
    ;;
  v_mpi4py)
    tests=${PHASECHECK_MPI4PY_TESTS:-}
    if [ -z "$tests" ] || [ ! -f "$tests/test_cco_vec.py" ]; then
      echo "skipped: PHASECHECK_MPI4PY_TESTS does not name mpi4py's test directory (docs/run.md)"
      exit 77
    fi
    echo "mpi4py $(/usr/bin/python3 -c 'import mpi4py; print(mpi4py.__version__)'), tests from $tests"
    # 1 rank too: the tests also call Alltoallv on MPI_COMM_SELF
    vschedule linear-v 1 1 >v1.json && vschedule linear-v 2 1 >v2.json && vschedule pairwise-v 4 1 >v4.json &&
      vschedule scattered-v 5 2 bblock=2 >v5.json || fail "no schedules"
    run "$pc" deploy v1.json v2.json v4.json v5.json -o lib.so
    for run in 2:linear-v 4:pairwise-v 5:scattered-v; do
      np=${run%%:*} algorithm=${run#*:}
      for t in test_cco_vec test_cco_buf; do
        "${mpirun[@]}" -np $np -x LD_PRELOAD="$PWD/lib.so" -x PHASECHECK_LOG=1 /usr/bin/python3 \
          "$tests/$t.py" >out.txt 2>$t.log || { cat out.txt $t.log; fail "$t on $np ranks"; }
        grep -E "^(Ran|OK|FAILED)|phasecheck: MPI_Alltoallv" $t.log | sort -u
        grep -q "^OK" $t.log || { cat $t.log; fail "$t on $np ranks"; }
      done
      expect_log test_cco_vec.log "phasecheck: MPI_Alltoallv on $np ranks: $algorithm (verified)"
      expect_log test_cco_vec.log "phasecheck: MPI_Alltoallv on 1 ranks: linear-v (verified)"
      grep -q "MPI_Alltoallv on .* falling back" ./*.log && fail "an Alltoallv fell back"
    done
    ;;
  *)
    echo "unknown case $case"; exit 2 ;;
esac
echo "pass  $case"
