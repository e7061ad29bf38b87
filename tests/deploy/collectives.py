# An unmodified mpi4py program for `phasecheck deploy` (tests/deploy/deploy-mpi.sh): numpy
# buffers through comm.Alltoall / comm.Allgather, Python objects through comm.alltoall /
# comm.allgather, on MPI.COMM_WORLD and on a split communicator. Every result is checked against
# what the collective defines. Prints "mpi4py: N checks on P ranks, F failures" on rank 0.
import sys

import numpy as np
from mpi4py import MPI

world = MPI.COMM_WORLD
failures = 0
checks = 0


def check(ok, what, comm):
    global failures, checks
    checks += 1
    if not ok:
        failures += 1
        print(f"rank {world.Get_rank()}: {what} on {comm.Get_size()} ranks is wrong", file=sys.stderr)


def run(comm):
    p, r = comm.Get_size(), comm.Get_rank()
    for n in (1, 3, 1000):
        send = np.array([r * 1000000 + d * 1000 + i for d in range(p) for i in range(n)], dtype=np.int64)
        recv = np.full(p * n, -1, dtype=np.int64)
        comm.Alltoall(send, recv)
        expected = np.array([s * 1000000 + r * 1000 + i for s in range(p) for i in range(n)])
        check((recv == expected).all(), f"Alltoall of {n} int64", comm)

        mine = np.arange(n, dtype=np.float64) + 0.5 + 100 * r
        gathered = np.full(p * n, -1.0)
        comm.Allgather(mine, gathered)
        expected = np.concatenate([np.arange(n, dtype=np.float64) + 0.5 + 100 * s for s in range(p)])
        check((gathered == expected).all(), f"Allgather of {n} float64", comm)

    inplace = np.array([r * 100 + d for d in range(p)], dtype=np.int32)
    comm.Alltoall(MPI.IN_PLACE, inplace)
    check((inplace == np.array([s * 100 + r for s in range(p)])).all(), "Alltoall in place", comm)

    objects = comm.alltoall([(r, d, "x" * d) for d in range(p)])
    check(objects == [(s, r, "x" * r) for s in range(p)], "alltoall of Python objects", comm)
    names = comm.allgather(f"rank {r}")
    check(names == [f"rank {s}" for s in range(p)], "allgather of Python objects", comm)


run(world)
half = world.Split(world.Get_rank() % 2, world.Get_rank())
run(half)
half.Free()
total = world.reduce(failures, op=MPI.SUM, root=0)
count = world.reduce(checks, op=MPI.SUM, root=0)
if world.Get_rank() == 0:
    print(f"mpi4py: {count} checks on {world.Get_size()} ranks, {total} failures")
    sys.exit(1 if total else 0)
