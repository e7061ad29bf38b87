"""Schedules and paths the tests of the Python module share (tests/python, docs/python.md).

Small machines only: the suite also runs under AddressSanitizer (about five times slower)."""

from __future__ import annotations

import os
import pathlib

import numpy as np

import phasecheck

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE / "data"
#: The repository's top directory (CTest runs the suite from the build tree and says where).
REPO = pathlib.Path(os.environ.get("PHASECHECK_SOURCE_DIR") or HERE.parents[1]).resolve()
EXAMPLES = REPO / "examples"
#: Set by CTest under the sanitize preset: timings are about five times slower.
SLOW = 5.0 if os.environ.get("PHASECHECK_SANITIZED") == "1" else 1.0

#: Repository fixtures, one per format, that verify.
MSCCL_XML = REPO / "tests/cli/msccl/alltoall-3.xml"
MSCCLPP_PLAN = REPO / "tests/cli/mscclpp/alltoall-3.json"
#: A plan whose threadblocks deadlock (tests/cli/mscclpp: one mutant per execution fault).
MSCCLPP_DEADLOCK = REPO / "tests/cli/mscclpp/alltoall-3-deadlock.json"
#: A linear (one-phase, direct) schedule on the tree of Faraj and Yuan's Figure 1: contention.
FIG1_LINEAR = EXAMPLES / "faraj-yuan-fig1/linear.json"
#: The shift on eight fully connected ranks: passes there, fails contention on a tree.
FC8_SHIFT = EXAMPLES / "fully-connected-8/shift.json"


def rotation(topology_or_ranks, *, drop=None, duplicate=False, algorithm="rotation",
             self_copy=True) -> phasecheck.Schedule:
    """The direct alltoall of NumPy permutations: phase k sends rank i's block for i + k.
    drop=(phase, row) leaves one transfer out (its block is never delivered); duplicate=True
    appends a phase sending 0 -> 1 again (delivered twice)."""
    if isinstance(topology_or_ranks, phasecheck.Topology):
        schedule = phasecheck.Schedule(topology=topology_or_ranks, algorithm=algorithm)
    else:
        schedule = phasecheck.Schedule(topology_or_ranks, algorithm=algorithm)
    p = schedule.ranks
    ranks = np.arange(p)
    for k in range(0 if self_copy else 1, p):
        pairs = np.stack([ranks, (ranks + k) % p], axis=1)
        if drop is not None and drop[0] == k:
            pairs = np.delete(pairs, drop[1], axis=0)
        schedule.add_phase(pairs, label=f"rotate by {k}")
    if duplicate and p > 1:
        schedule.add_phase([(0, 1)], label="again")
    return schedule


def port_conflict(p: int = 4) -> phasecheck.Schedule:
    """The rotation with rank 0's transfer of phase 2 moved into phase 1: every block arrives
    once, but in phase 1 rank 0 sends twice through its one send port."""
    schedule = phasecheck.Schedule(p, algorithm="conflict")
    ranks = np.arange(p)
    for k in range(p):
        pairs = np.stack([ranks, (ranks + k) % p], axis=1)
        if k == 1:
            pairs = np.vstack([pairs, [[0, 2]]])
        if k == 2:
            pairs = pairs[1:]
        schedule.add_phase(pairs, label=f"phase {k}")
    return schedule


INPUT, OUTPUT, SCRATCH = 0, 1, 2


def direct_program(p: int = 4, *, mutate=None) -> phasecheck.Schedule:
    """A buffer program of the direct alltoall: in phase k rank s copies input[d] to rank
    d = s + k's output[s]. mutate="wrong-slot" makes rank 2 of phase 3 write rank 1's output[0]
    (rank 0's chunk's slot, written in phase 1) instead of output[2]; "double-write" makes rank 2
    of phase 1 also write rank 1's output[0], which rank 0 writes then (two writes to one slot in
    one phase)."""
    program = phasecheck.Schedule(p, buffers={"chunks": 1}, algorithm="direct-program")
    ranks = np.arange(p)
    for k in range(p):
        dst = (ranks + k) % p
        target = ranks.copy()
        if mutate == "wrong-slot" and k == 3:
            target[2] = 0
        ops = np.stack([ranks, dst, np.full(p, INPUT), dst, np.full(p, OUTPUT), target,
                        np.ones(p, dtype=np.int64)], axis=1)
        if mutate == "double-write" and k == 1:
            # rank 2 also sends its input[1] into rank 1's output[0], which rank 0 writes now
            ops = np.vstack([ops, [[2, 1, INPUT, 1, OUTPUT, 0, 1]]])
        program.add_program_phase(ops, label=f"shift {k}")
    return program
