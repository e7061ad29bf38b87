#!/usr/bin/env bash
# nccl-machines.sh PHASECHECK DIR: the shipped GPU schedules (examples/xgmi-8, as JSON and exported
# as MSCCL XML) judged on machines imported from NCCL topology files (tests/topologies/nccl).
#  - xgmi-8.xml (8 MI300X, one xGMI link per pair) is the machine `topology xgmi --gpus 8` builds,
#    plus the PCI tree the builder leaves out: every check of every schedule has the same verdict
#    on both (the importer cross-checked against the builder);
#  - an MSCCL XML export of a schedule has the JSON's verdict on every imported machine;
#  - nvswitch-8.xml (18 NVLinks per GPU into the NVSwitch): every schedule is contention-free;
#  - pcie-8.xml (no GPU links): GPUs share their PCIe switch's uplink, so only the ring (each GPU
#    sends to its switch neighbour or across one uplink per direction) is contention-free, and the
#    counterexample names the PCIe link;
#  - two-nic-4.xml on 2 nodes: what crosses the nodes goes through the NICs;
#  - every schedule's time on every machine (`cost`) is at least the machine's bound in seconds.
# Prints one line per comparison and the count; fails on the first disagreement.
set -euo pipefail
pc=$1 dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
nccl=$root/tests/topologies/nccl
mkdir -p "$dir"

# "check=verdict ..." of a verify report (exit 1 is a failed schedule, not an error), for the
# checks matching the regex $checks. From the text report's check lines: a python3 per report
# would take most of this test's time.
checks=.
verdicts() {
  local status=0
  "$pc" verify "$@" >"$dir/report.txt" || status=$?
  [ $status -le 1 ] || { echo "verify $* exited $status" >&2; exit 1; }
  awk -v checks="^($checks)\$" '/^  (pass|FAIL|n\/a) / && $2 ~ checks {
      printf "%s%s=%s", sep, $2, $1; sep = " " } END { print "" }' "$dir/report.txt"
}
compared=0
same() {  # what, expected, found
  if [ "$2" != "$3" ]; then
    printf '%s: expected %s\n  found %s\n' "$1" "$2" "$3" >&2
    exit 1
  fi
  compared=$((compared + 1))
}

for schedule in "$root"/examples/xgmi-8/*.json; do
  name=$(basename "$schedule" .json)
  [ "$name" = topology ] && continue
  checks='.*'
  builder=$(verdicts "$schedule")
  same "$name on the imported xgmi-8 against the builder's" "$builder" \
       "$(verdicts "$schedule" --topology "$nccl/xgmi-8.xml")"
  "$pc" export msccl "$schedule" -o "$dir/$name.xml" >/dev/null
  # What a phase table and its MSCCL program share: the XML adds execution and placement, its
  # steps make other phases (so other bounds and claims), it has no invariants.
  checks='delivery|contention'
  for machine in xgmi-8 nvswitch-8 pcie-8; do
    json=$(verdicts "$schedule" --topology "$nccl/$machine.xml")
    same "$name as MSCCL XML on $machine" "$json" \
         "$(verdicts "$dir/$name.xml" --topology "$nccl/$machine.xml")"
    contention=$(tr ' ' '\n' <<<"$json" | grep '^contention=')
    expected=contention=pass
    [ $machine = pcie-8 ] && [ "$name" != ring ] && expected=contention=FAIL
    same "$name's contention on $machine" $expected "$contention"
  done
  echo "$name: the same verdicts on the builder's and the imported xgmi-8, as JSON and as MSCCL XML"
done

# The counterexample on the PCIe machine names the shared uplink by its label.
"$pc" verify "$root/examples/xgmi-8/shift.json" --topology "$nccl/pcie-8.xml" >"$dir/pcie.txt" || true
grep -q 'shared: link pci .* -> cpu[0-9] (PCIe' "$dir/pcie.txt" ||
  { echo "no PCIe uplink named in:" >&2; cat "$dir/pcie.txt" >&2; exit 1; }

# Two nodes of the 2-NIC machine: the exchange between rank r and r + 4 crosses the network.
"$pc" topology import nccl "$nccl/two-nic-4.xml" --nodes 2 -o "$dir/two-nodes.json"
"$pc" verify "$root/examples/xgmi-8/linear.json" --topology "$dir/two-nodes.json" >"$dir/two.txt" || true
grep -q 'shared: link .*(' "$dir/two.txt" ||
  { echo "no labelled link named in:" >&2; cat "$dir/two.txt" >&2; exit 1; }
checks=contention
same "ring on two nodes" "contention=pass" \
     "$(verdicts "$root/examples/xgmi-8/ring.json" --topology "$dir/two-nodes.json" | tr ' ' '\n' | grep '^contention=')"
# No schedule beats the machine's lower bound in seconds: every shipped schedule, timed on every
# imported machine (a contended one too: the time model shares a link's bandwidth), keeps it.
timed=0
for schedule in "$root"/examples/xgmi-8/*.json; do
  [ "$(basename "$schedule")" = topology.json ] && continue
  for machine in "$nccl/xgmi-8.xml" "$nccl/nvswitch-8.xml" "$nccl/pcie-8.xml" "$dir/two-nodes.json"; do
    "$pc" cost "$schedule" --topology "$machine" --ts 0 --bytes 1MiB >"$dir/cost.txt" || true
    grep -Eq '^  machine bound .* kept ' "$dir/cost.txt" ||
      { echo "$schedule on $machine: the bound in seconds is not kept:" >&2; cat "$dir/cost.txt" >&2; exit 1; }
    timed=$((timed + 1))
  done
done
echo "compared $compared verdicts; $timed schedule times on the machines keep the bound in seconds"
