#!/usr/bin/env bash
# gate-trust.sh PHASECHECK EXAMPLES: a gate manifest's paths stay in its directory (links
# resolved) unless --allow-outside admits a root; --update never writes outside; --no-generators
# refuses generator cases before anything runs (docs/ci.md, "Trust"). Prints one line per case;
# exits 1 on the first wrong behaviour. Everything happens in a fresh temporary directory.
set -u
pc=$1 examples=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { printf 'FAIL: %s\n' "$*"; exit 1; }
mkdir "$dir/repo" "$dir/outside"
cp "$examples/ring-6/topology.json" "$examples/ring-6/shift.json" "$dir/repo/"
cp "$examples/ring-6/topology.json" "$examples/ring-6/shift.json" "$dir/outside/"
cd "$dir/repo" || exit 1

# manifest FILE FIRST SECOND: a manifest of two cases (the one under test is usually cases[1]).
manifest() {
  printf '{"format": "phasecheck.gate/1", "cases": [\n %s,\n %s]}\n' "$2" "$3" >"$1"
}
inside='{"name": "inside", "topology": "topology.json", "algorithm": "shift", "baseline": "shift.json"}'
gen='{"name": "ours", "topology": "topology.json", "generator": "touch ran && cat shift.json", "baseline": "shift.json"}'
# probe TOPOLOGY BASELINE: the case under test.
probe() {
  printf '{"name": "probe", "topology": "%s", "algorithm": "shift", "baseline": "%s"}' "$1" "$2"
}
# refused MANIFEST FIELD ARGS...: exit 2, naming the manifest, the case and the field.
refused() {
  local m=$1 field=$2; shift 2
  msg=$("$pc" gate "$m" "$@" 2>&1); code=$?
  [ $code = 2 ] || fail "gate $m $* exited $code: $msg"
  grep -Eq "$m: $field \(case 'probe'\): .* (leads to .*, |is )outside the manifest's directory $dir/repo" \
    <<<"$msg" || fail "gate $m $*: $msg"
}
# admitted MANIFEST ROOT: the same manifest passes with --allow-outside ROOT.
admitted() {
  msg=$("$pc" gate "$1" --allow-outside "$2" 2>&1) || fail "gate $1 --allow-outside $2: $msg"
  grep -q "2 of 2 cases pass" <<<"$msg" || fail "gate $1 --allow-outside $2: $msg"
}

manifest dotdot.json "$inside" "$(probe ../outside/topology.json shift.json)"
refused dotdot.json 'cases\[1\]\.topology'
admitted dotdot.json ../outside
echo "ok ../ refused, admitted by --allow-outside"

manifest absolute.json "$inside" "$(probe topology.json "$dir/outside/shift.json")"
refused absolute.json 'cases\[1\]\.baseline'
admitted absolute.json "$dir/outside"
echo "ok an absolute path refused, admitted by --allow-outside"

# A link inside the directory that points out: a file, and a directory.
ln -s ../outside/shift.json linked.json
manifest linked-file.json "$inside" "$(probe topology.json linked.json)"
refused linked-file.json 'cases\[1\]\.baseline'
admitted linked-file.json "$dir/outside"
ln -s "$dir/outside" data
manifest linked-dir.json "$inside" "$(probe data/topology.json shift.json)"
refused linked-dir.json 'cases\[1\]\.topology'
echo "ok a link pointing out refused"

# A schedule case is checked too; a link that stays inside is fine.
ln -s shift.json same.json
manifest schedule.json \
  '{"name": "inside", "topology": "topology.json", "schedule": "same.json", "baseline": "shift.json"}' \
  '{"name": "probe", "topology": "topology.json", "schedule": "../outside/shift.json", "baseline": "shift.json"}'
refused schedule.json 'cases\[1\]\.schedule'
echo "ok a schedule path refused"

# Every case is checked before the first runs: a generator first, a bad path second.
manifest order.json "$gen" "$(probe topology.json ../outside/shift.json)"
refused order.json 'cases\[1\]\.baseline'
[ ! -e ran ] || fail "a case ran before the paths were checked"
echo "ok paths checked before any case runs"

# --update with a baseline outside: refused, nothing written anywhere.
# The case generates "ring", which passes its checks, over an accepted "shift".
cp "$examples/ring-6/shift.json" "$dir/outside/old.json"
manifest update.json "$inside" \
  '{"name": "probe", "topology": "topology.json", "algorithm": "ring", "baseline": "../outside/old.json"}'
before_outside=$(md5sum <"$dir/outside/old.json") before_manifest=$(md5sum <update.json)
refused update.json 'cases\[1\]\.baseline' --update
[ "$(md5sum <"$dir/outside/old.json")" = "$before_outside" ] || fail "--update wrote outside"
[ "$(md5sum <update.json)" = "$before_manifest" ] || fail "--update rewrote the manifest"
# Admitted, the same --update does rewrite it (so the refusal above is what kept it).
"$pc" gate update.json --update --allow-outside ../outside >/dev/null 2>&1
grep -q '"algorithm": "ring"' "$dir/outside/old.json" || fail "--update --allow-outside did not write"
echo "ok --update never writes outside"

# --no-generators: refused before anything runs, naming the cases; without it, the generator runs.
manifest gen.json "$inside" "$gen"
msg=$("$pc" gate gen.json --no-generators 2>&1); code=$?
[ $code = 2 ] || fail "--no-generators exited $code: $msg"
grep -q "gen.json: --no-generators: cases\[1\] 'ours' run a generator" <<<"$msg" ||
  fail "--no-generators: $msg"
[ ! -e ran ] || fail "--no-generators ran the generator"
msg=$("$pc" gate gen.json 2>&1) || fail "the generator case without --no-generators: $msg"
[ -e ran ] || fail "the generator did not run without --no-generators"
rm ran
msg=$("$pc" gate dotdot.json --no-generators --allow-outside ../outside 2>&1) ||
  fail "--no-generators on a manifest without generators: $msg"
echo "ok --no-generators"
echo "all gate trust cases pass"
