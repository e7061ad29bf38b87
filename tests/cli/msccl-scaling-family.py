#!/usr/bin/env python3
"""msccl-scaling-family.py one-slot STEPS | ring GPUS: writes an MSCCL XML program of a family whose race
check phasecheck's old pairwise comparison took quadratic time on (docs/performance.md, "MSCCL race
check"); standard output.

one-slot STEPS: one gpu, two threadblocks of STEPS / 2 steps each; threadblock 0 writes output[0]
again and again, threadblock 1 reads it after each write (depid/deps) into scratch[0]. Every write
after the first races with the reads before it: all STEPS steps touch one slot.

ring GPUS: GPUS gpus; each copies its own chunk, sends one chunk to the next gpu and receives one
from the one before, which its first threadblock then copies to scratch once the receive signals
(three threadblocks, four steps; every gpu has a slot two threadblocks touch, so the race check
asks for every gpu's order). An incomplete alltoall: verify reports what is missing, or refuses the
placement check's memory on many gpus, after the execution model ran.
"""
import sys


def step(s, kind, src, dst, depid=-1, deps=-1, hasdep=0):
    return (f'<step s="{s}" type="{kind}" srcbuf="{src[0]}" srcoff="{src[1:]}" '
            f'dstbuf="{dst[0]}" dstoff="{dst[1:]}" cnt="1" depid="{depid}" deps="{deps}" '
            f'hasdep="{hasdep}"/>\n')


def algo(name, gpus, body):
    return (f'<algo name="{name}" proto="Simple" nchannels="1" nchunksperloop="{gpus}" '
            f'ngpus="{gpus}" coll="alltoall" inplace="0" outofplace="1" minBytes="0" '
            f'maxBytes="0">\n{body}</algo>\n')


def one_slot(steps):
    half = steps // 2
    out = ['<gpu id="0" i_chunks="1" o_chunks="1" s_chunks="1">\n<tb id="0" send="-1" recv="-1" chan="0">\n']
    out += [step(k, "cpy", "i0", "o0", hasdep=1) for k in range(half)]
    out.append('</tb>\n<tb id="1" send="-1" recv="-1" chan="0">\n')
    out += [step(k, "cpy", "o0", "s0", depid=0, deps=k) for k in range(half)]
    out.append('</tb>\n</gpu>\n')
    return algo(f"one-slot-{steps}", 1, "".join(out))


def ring(gpus):
    out = []
    for g in range(gpus):
        nxt, prev = (g + 1) % gpus, (g - 1) % gpus
        copies = step(0, "cpy", f"i{g}", f"o{g}") + step(1, "cpy", f"o{prev}", "s0", depid=2, deps=0)
        out.append(f'<gpu id="{g}" i_chunks="{gpus}" o_chunks="{gpus}" s_chunks="1">\n'
                   f'<tb id="0" send="-1" recv="-1" chan="0">\n{copies}</tb>\n'
                   f'<tb id="1" send="{nxt}" recv="-1" chan="0">\n{step(0, "s", f"i{nxt}", f"o{g}")}</tb>\n'
                   f'<tb id="2" send="-1" recv="{prev}" chan="0">\n{step(0, "r", f"i{g}", f"o{prev}", hasdep=1)}</tb>\n'
                   '</gpu>\n')
    return algo(f"ring-{gpus}", gpus, "".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("one-slot", "ring"):
        sys.exit(__doc__)
    n = int(sys.argv[2])
    sys.stdout.write(one_slot(n) if sys.argv[1] == "one-slot" else ring(n))
