#!/usr/bin/env python3
"""A mutant generator for `phasecheck sweep --generator`: reads a topology on stdin and prints
`phasecheck generate ALG` for it (PHASECHECK names the program), except on P ranks, where the
first transfer of the first phase that has one between two ranks goes to the next rank instead
(a partner off by one at one p; on 2 ranks the transfer is dropped). With --crash it fails on P ranks instead (exit 1).

usage: sweep-mutant.py ALG P [--crash] [key=value ...]"""
import json
import os
import subprocess
import sys

algorithm, mutant_p, settings = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
crash = "--crash" in settings
settings = [s for s in settings if s != "--crash"]
topology = sys.stdin.read()
command = [os.environ["PHASECHECK"], "generate", algorithm, "--topology", "-"]
for s in settings:
    command += ["--set", s]
made = subprocess.run(command, input=topology, capture_output=True, text=True)
if made.returncode != 0:
    sys.stderr.write(made.stderr)
    sys.exit(made.returncode)
schedule = json.loads(made.stdout)
p = schedule["ranks"]
if p == mutant_p and crash:
    sys.exit("sweep-mutant.py: planted crash on %d ranks" % p)
if p == mutant_p:
    phase, moved = next((phase, t) for phase in schedule["phases"] for t in phase["transfers"]
                        if t["src"] != t["dst"])
    if p == 2:  # no other rank to send to: the transfer is lost instead
        phase["transfers"].remove(moved)
    else:
        moved["dst"] = (moved["dst"] + 1) % p
        if moved["dst"] == moved["src"]:
            moved["dst"] = (moved["dst"] + 1) % p
print(json.dumps(schedule))
