#!/usr/bin/env bash
# mpi-same.sh PHASECHECK DIR CASE: `mpirun -np N phasecheck check|verify` against one process.
# Every case compares the JSON report byte for byte and the exit code, and fails on the first
# difference.
#   check-pass   faraj-yuan on a 4 x 8 tree (every check passes) on 1, 2 and 4 processes, split
#                by phase range
#   check-fail   linear on the same tree (contended: the counterexample must be the same one)
#   split-fail   shift on the same tree, split by phase range on 2, 3 and 4 processes (contended:
#                the earliest counterexample of the ranges' is the one)
#   split-refused  pairwise-xor on 1,024 ranks under a memory limit one process passes and the
#                third of three ranges does not: process 0 checks the schedule whole
#   verify       a contended file (JSON and binary stream) on 2 and 3 processes, with threads
#   stdin        `verify -` under mpirun: refused, exit 2, nothing hangs
#   abort        the memory limit stops process 0 in the middle while the others wait for it:
#                every process ends, exit 2 with the message, within the test's timeout
set -u
pc=$1 dir=$2 case=$3
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl self,vader)
rm -rf "$dir/$case" && mkdir -p "$dir/$case" && cd "$dir/$case" || exit 2

fail() { echo "FAIL  $*"; exit 1; }
# same NAME EXPECTED_CODE COMMAND...: one process, then 2 and 4 (or $NPS) processes
same() {
  local name=$1 code=$2
  shift 2
  "$@" --report json -o "$name.1.json"
  local got=$?
  [ "$got" = "$code" ] || fail "$name: exit $got on one process, expected $code"
  for np in ${NPS:-2 4}; do
    "${mpirun[@]}" -np "$np" "$@" --report json -o "$name.$np.json" 2>"$name.$np.err"
    got=$?
    [ "$got" = "$code" ] || { cat "$name.$np.err"; fail "$name: exit $got on $np processes"; }
    cmp "$name.1.json" "$name.$np.json" || fail "$name: $np processes report otherwise"
    echo "same  $name on $np processes (exit $code)"
  done
}

"$pc" topology tree --fanout 4,8 -o tree.json >/dev/null || fail "topology"
case $case in
  check-pass) same check-pass 0 "$pc" check faraj-yuan --topology tree.json ;;
  check-fail)
    same check-fail 1 "$pc" check linear --topology tree.json
    grep -q '"resource": "link' check-fail.1.json || fail "no contended link in the report"
    ;;
  split-fail)
    NPS="2 3 4" same split-fail 1 "$pc" check shift --topology tree.json
    grep -q '"resource": "link' split-fail.1.json || fail "no contended link in the report"
    ;;
  split-refused)
    "$pc" topology fully-connected --ranks 1024 --ports 1 -o fc.json >/dev/null || fail "topology"
    NPS="3" same split-refused 0 "$pc" check pairwise-xor --topology fc.json --max-memory 83977
    ;;
  verify)
    "$pc" generate shift --topology tree.json -o shift.json || fail "generate"
    "$pc" generate shift --topology tree.json --format binary -o shift.bin || fail "generate"
    NPS="2 3" same verify-json 1 "$pc" verify shift.json --threads 2
    NPS="2 3" same verify-binary 1 "$pc" verify shift.bin
    ;;
  stdin)
    "${mpirun[@]}" -np 2 "$pc" verify - </dev/null >out.txt 2>err.txt
    got=$?
    [ "$got" != 0 ] || fail "verify - under mpirun: exit 0"
    grep -q "give a file, not -" err.txt || { cat err.txt; fail "no message"; }
    echo "refused  verify - under mpirun (exit $got)"
    ;;
  abort)
    "$pc" topology fully-connected --ranks 512 --ports 1 -o fc.json >/dev/null || fail "topology"
    "${mpirun[@]}" -np 2 "$pc" check randomized-sendrecv --topology fc.json --max-memory 20k \
      >out.txt 2>err.txt
    got=$?
    [ "$got" = 2 ] || { cat err.txt; fail "exit $got, expected 2"; }
    grep -q "more than the memory limit" err.txt || { cat err.txt; fail "no message"; }
    echo "stopped  every process on process 0's error (exit 2)"
    ;;
  *) fail "unknown case $case" ;;
esac
