#!/usr/bin/env bash
# The README's two ways to install the Python module, from a build tree that has built it:
#   1. pip install --no-build-isolation --no-deps --target DIR ./python (for tools that vendor it)
#   2. a virtual environment with Debian's packages visible, and cmake --install into it
# Each installed copy is imported from outside the repository and checks a schedule; the pip copy
# also offers the pytest plugin through its entry point.
# Usage: python-install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$1 build_dir=$2
python=/usr/bin/python3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

check='
import numpy as np, phasecheck, sys
t = phasecheck.topology.fully_connected(4)
s = phasecheck.Schedule(4, topology=t)
for k in range(1, 4):
    src = np.arange(4)
    s.add_phase(np.stack([src, (src + k) % 4], axis=1))
r = phasecheck.verify(s)
assert r.verdict == "pass" and r.phases == 3, r.text()
print(phasecheck.__file__)
'

# 1. pip --target, building in the given build tree (a copy of python/, so that pip's build
#    files stay out of the repository).
cp -r "$source_dir/python" "$scratch/python"
rm -rf "$scratch/python/build" "$scratch/python"/*.egg-info
PHASECHECK_SOURCE_DIR=$source_dir PHASECHECK_BUILD_DIR=$build_dir \
  $python -m pip install --quiet --no-build-isolation --no-deps --no-index \
  --target "$scratch/target" "$scratch/python"
where=$(cd "$scratch" && PYTHONPATH="$scratch/target" $python -c "$check")
[[ $where == "$scratch/target/phasecheck/__init__.py" ]] || { echo "imported $where"; exit 1; }
plugins=$(cd "$scratch" && PYTHONPATH="$scratch/target" $python -m pytest --help)
grep -q -- "--phasecheck-manifest" <<<"$plugins" || { echo "no pytest plugin"; exit 1; }
echo "pip --target: ok ($where)"

# 2. venv + cmake --install.
$python -m venv --system-site-packages "$scratch/venv"
cmake --install "$build_dir" --component python --prefix "$scratch/venv" >/dev/null
where=$(cd "$scratch" && "$scratch/venv/bin/python" -c "$check")
[[ $where == "$scratch/venv/lib/python3."*"/site-packages/phasecheck/__init__.py" ]] ||
  { echo "imported $where"; exit 1; }
echo "venv + cmake --install: ok ($where)"
