#!/usr/bin/env python3
"""Issue 40's budgets for the Python module (docs/performance.md, "Issue 40"):
  - verify of a schedule of about a million transfers, built with Schedule.add_phase from NumPy
    arrays, within 1.5x of `phasecheck verify` of the same schedule from its binary file (the
    whole process: start, read, check);
  - `import phasecheck` under 200 ms (measured as a fresh interpreter's `import phasecheck` less
    the same interpreter doing nothing).
Each repetition measures both sides one after the other (interleaved, so load affects both);
min/median/max are printed, and the ratio of the medians.

  PYTHONPATH=build/python/package /usr/bin/python3 bench/python_verify.py build/cli/phasecheck
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import phasecheck


def shift_schedule(p: int) -> phasecheck.Schedule:
    """The shift alltoall on p fully connected single-ported ranks: phase k sends i -> i+k."""
    s = phasecheck.Schedule(p, topology=phasecheck.topology.fully_connected(p), algorithm="numpy-shift")
    src = np.arange(p, dtype=np.int32)
    for k in range(1, p):
        s.add_phase(np.stack([src, (src + k) % p], axis=1))
    return s


def figures(samples):
    return f"min {min(samples):.3f}  median {statistics.median(samples):.3f}  max {max(samples):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("phasecheck", help="the phasecheck program of the same build")
    parser.add_argument("--ranks", type=int, default=1024, help="p: p (p - 1) transfers")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--what-if", metavar="FANOUT", default="",
                        help="also judge it on this tree (e.g. 32,32): routes and contention")
    args = parser.parse_args()
    p = args.ranks
    build, check, python_total, cli = [], [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "shift.pcsb")
        shift_schedule(p).save(path, format="binary")
        model, model_args = None, []
        if args.what_if:
            model = phasecheck.topology.tree(fanout=[int(f) for f in args.what_if.split(",")])
            model.save(os.path.join(scratch, "tree.json"))
            model_args = ["--topology", os.path.join(scratch, "tree.json")]
        for _ in range(args.repetitions):
            start = time.perf_counter()
            s = shift_schedule(p)
            built = time.perf_counter()
            report = phasecheck.verify(s, model)
            done = time.perf_counter()
            assert report.transfers == p * (p - 1), report.text()
            assert report.verdict == ("fail" if model else "pass"), report.text()
            build.append(built - start)
            check.append(done - built)
            python_total.append(done - start)
            start = time.perf_counter()
            run = subprocess.run([args.phasecheck, "verify", path] + model_args,
                                 capture_output=True, text=True)
            cli.append(time.perf_counter() - start)
            assert run.returncode == (1 if model else 0), run.stdout + run.stderr
            assert run.stdout.replace(path, "<schedule>") == report.text(), "the reports differ"
            del s
        imports, nothing = [], []
        env = dict(os.environ)
        for _ in range(args.repetitions):
            for command, into in (("import phasecheck", imports), ("pass", nothing)):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", command], check=True, env=env)
                into.append(time.perf_counter() - start)
    print(f"shift on {p} ranks{' judged on tree ' + args.what_if if model else ''}: "
          f"{p * (p - 1):,} transfers, {p - 1} phases, "
          f"{args.repetitions} repetitions, seconds")
    print(f"  Python add_phase (NumPy)      {figures(build)}")
    print(f"  Python verify                 {figures(check)}")
    print(f"  Python add_phase + verify     {figures(python_total)}")
    print(f"  phasecheck verify FILE.pcsb   {figures(cli)}")
    ratio = statistics.median(python_total) / statistics.median(cli)
    print(f"  ratio (medians), budget 1.5:  {ratio:.2f}")
    difference = [a - b for a, b in zip(imports, nothing)]
    print(f"import phasecheck: {figures(difference)} (budget 0.200; interpreter alone "
          f"{statistics.median(nothing):.3f})")


if __name__ == "__main__":
    main()
