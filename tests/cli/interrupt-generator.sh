#!/usr/bin/env bash
# interrupt-generator.sh PHASECHECK DIR: SIGTERM while `fuzz --generator` waits on a generator
# that hangs stops phasecheck (exit 2, "interrupted") and its generator's whole process group.
set -u
pc=$1 dir=$2
mark="phasecheck-hang-$$-$RANDOM"
"$pc" fuzz --generator "sleep 300 # $mark" --generator-timeout 200 --cases 5 --out "$dir/fz-int" \
  >"$dir/fz-int.out" 2>&1 &
fuzz=$!
for _ in $(seq 200); do pgrep -f "$mark" | grep -qv "^$fuzz\$" && break; sleep 0.05; done
kill -TERM $fuzz
wait $fuzz
code=$?
cat "$dir/fz-int.out"
[ $code = 2 ] || { echo "exit $code, expected 2"; exit 1; }
grep -q "fuzz: interrupted; the generator was stopped" "$dir/fz-int.out" || { echo "no interrupt message"; exit 1; }
sleep 0.2
if pgrep -f "sleep 300 # $mark" >/dev/null; then echo "the generator survived"; exit 1; fi
echo "stopped, nothing left"
