"""phasecheck from Python: machines, schedules built in Python or read from any format, verified
with the same checkers as the ``phasecheck`` command (docs/python.md).

    import numpy as np, phasecheck
    t = phasecheck.topology.fully_connected(8)
    s = phasecheck.Schedule(8, topology=t)
    for k in range(1, 8):
        src = np.arange(8)
        s.add_phase(np.stack([src, (src + k) % 8], axis=1))
    report = phasecheck.verify(s)
    report.raise_for_failure()

Bad input raises InputError (a ValueError) with the message, file and place the command line
prints before exit 2. Long calls release the GIL and stop on Ctrl-C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import _native
from ._native import (
    Bound,
    CheckFailed,
    Check,
    Counterexample,
    InputError,
    OffendingOp,
    OffendingTransfer,
    Report,
    Schedule,
    Topology,
    algorithms,
    check,
    draw,
    gate,
    gate_cases,
    generate,
    limits,
    set_limits,
    verify,
)
from . import topology

__all__ = [
    "Bound", "CheckFailed", "Check", "Counterexample", "FuzzFailure", "FuzzResult", "InputError",
    "OffendingOp", "OffendingTransfer", "Report", "Schedule", "Topology", "algorithms",
    "assert_verifies", "check", "draw", "fuzz", "gate", "gate_cases", "generate", "limits",
    "set_limits", "topology", "verify",
]


@dataclass(frozen=True)
class FuzzFailure:
    """The smallest failing case rapidcheck shrank to."""

    what: str  #: "function 'gen': delivery: ..."
    machine: str  #: the machine, described
    topology: Topology  #: the machine itself
    schedule: Optional[Schedule]  #: what the function made on it
    report: str  #: the verifier's report of the case, as `phasecheck verify` prints it
    files: list  #: topology.json, schedule.json, report.txt when fuzz(out=DIR) wrote them
    replay: str  #: how to see it again
    again: str  #: the fuzz call that finds it again


@dataclass(frozen=True)
class FuzzResult:
    """What fuzz found: verdict 'pass', 'fail' or 'not-evaluated' (too many machines refused)."""

    name: str
    verdict: str
    cases: int
    discarded: int
    seconds: float
    reason: str
    failure: Optional[FuzzFailure]

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def text(self) -> str:
        """A person's account: the verdict, and the smallest failing case with its report."""
        if self.failure is not None:
            f = self.failure
            return (f"{self.name}: FAIL after {self.cases} cases\n{f.what}\n"
                    f"smallest machine: {f.machine}\nagain: {f.again}\n\n{f.report}")
        if self.verdict == "pass":
            return (f"{self.name}: pass, {self.cases} cases ({self.discarded} machines "
                    f"refused) in {self.seconds:.2f} s")
        return f"{self.name}: {self.verdict}: {self.reason}"

    def raise_for_failure(self) -> None:
        """Raises CheckFailed (its `fuzz` attribute: this result) unless the verdict is pass."""
        if self.verdict != "pass":
            error = CheckFailed(self.text())
            error.report = None
            error.fuzz = self
            raise error


def fuzz(function: Callable[[Topology], Optional[Schedule]], *, cases: int = 100, seed: int = 1,
         max_size: int = 40, contention_free: bool = False, out: Any = None) -> FuzzResult:
    """Calls `function` on machines drawn by phasecheck's own generators (trees, clusters, fully
    connected, hypercubes, meshes, rings, graphs; growing with `max_size`), verifies each schedule
    it returns (None declines a machine; an InputError the function lets out fails the case, a
    schedule it could not make) and shrinks a failure to the
    smallest machine that still fails. Deterministic for a seed. A failure is every check but the
    bounds, and contention only with contention_free=True (as `phasecheck fuzz --generator`).
    out=DIR also writes the failure's topology.json, schedule.json and report.txt there. An
    exception of the function's other than InputError ends the campaign and is raised as it is."""
    result = _native._fuzz(function, cases, seed, max_size, contention_free, out)
    failure = result.pop("failure")
    return FuzzResult(failure=FuzzFailure(**failure) if failure is not None else None, **result)


def assert_verifies(target: Any, topology: Any = None, *, threads: int = 0) -> list:
    """Verifies a Schedule, a schedule file, or every schedule file of a directory (JSON, binary,
    MSCCL XML, MSCCL++ plans; by content), raising CheckFailed with the counterexample text for
    the first that does not pass. Returns the reports."""
    import os

    if isinstance(target, (str, os.PathLike)) and os.path.isdir(target):
        files = sorted(os.path.join(target, name) for name in os.listdir(target)
                       if os.path.isfile(os.path.join(target, name))
                       and os.path.splitext(name)[1] in (".json", ".xml", ".pcsb"))
        if not files:
            raise InputError(f"{os.fspath(target)}: no schedule files (.json, .xml, .pcsb)")
        reports = [verify(path, topology, threads=threads) for path in files]
    else:
        reports = [verify(target, topology, threads=threads)]
    for report in reports:
        report.raise_for_failure()
    return reports
