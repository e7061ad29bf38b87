"""Type stubs of phasecheck._native, the libraries bound with pybind11 (python/src/*.cpp); the
package phasecheck re-exports them (docs/python.md describes every name).

Conventions of the module that the types below follow:
- An integer argument takes an int or a NumPy integer (anything with __index__), never a bool; a
  negative or too large value raises InputError naming the argument and the index.
- A path is a str, bytes or an os.PathLike (passed to the file system as os.fsencode gives it).
- An array argument is a NumPy array of any integer dtype and any strides, read where it lies;
  another dtype or shape raises InputError.
- The classes below cannot be constructed from Python except Schedule (TypeError "No constructor
  defined!"): they come from the functions. The names that start with an underscore and are not
  functions (type aliases, TypedDicts) exist only for type checkers.
"""

import os
from typing import (Any, Callable, ClassVar, Literal, NotRequired, Optional, Sequence,
                    SupportsIndex, TypedDict, Union, overload)

import numpy as np
from numpy.typing import NDArray

from . import FuzzResult
from . import topology as topology

# --- the vocabulary -------------------------------------------------------------------------

_Path = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
_IntArray = NDArray[np.integer[Any]]

#: A report's, a check's or a gate's verdict (core/verdict.cpp).
_Verdict = Literal["pass", "fail", "unknown", "not-evaluated"]
#: A check's id, as reports print it (core/verdict.hpp, CheckId).
_CheckId = Literal["execution", "delivery", "placement", "contention", "invariants", "claims",
                   "requests", "bounds", "replay", "synchronization", "witness", "deadlock",
                   "lifetime"]
#: A schedule's collective as reports name it: "alltoallv" is an alltoall with a traffic matrix.
_Collective = Literal["alltoall", "allgather", "alltoallv"]
#: A machine model's kind (core/topology.hpp); the GPU machines and fat trees are graphs.
_Kind = Literal["tree", "cluster", "fully-connected", "hypercube", "mesh", "ring", "graph"]
#: A buffer of a buffer program (format 3).
_BufferName = Literal["input", "output", "scratch"]
#: Schedule.save's formats.
_Format = Literal["json", "binary", "msccl", "mscclpp"]

#: A block given in add_phase's tuple form. Alltoall: (origin, dest) or (origin, dest, part).
#: Allgather: origin, (origin,), (origin, part) or (origin, None, part).
_BlockIn = Union[tuple[SupportsIndex, SupportsIndex],
                 tuple[SupportsIndex, SupportsIndex, SupportsIndex],
                 SupportsIndex,
                 tuple[SupportsIndex],
                 tuple[SupportsIndex, None, SupportsIndex]]
#: A transfer given as a tuple: (src, dst) carries the direct message, (src, dst, blocks) those.
_TransferIn = Union[tuple[SupportsIndex, SupportsIndex],
                    tuple[SupportsIndex, SupportsIndex, Sequence[_BlockIn]]]
#: A buffer named or numbered (0 input, 1 output, 2 scratch).
_BufferIn = Union[_BufferName, SupportsIndex]
#: An op of a buffer program: (src, dst, from_buffer, from_slot, to_buffer, to_slot[, count]);
#: src == dst is a local copy.
_OpIn = Union[
    tuple[SupportsIndex, SupportsIndex, _BufferIn, SupportsIndex, _BufferIn, SupportsIndex],
    tuple[SupportsIndex, SupportsIndex, _BufferIn, SupportsIndex, _BufferIn, SupportsIndex,
          SupportsIndex]]

#: A block read back: (origin, dest, part); dest is None for an allgather's block.
_Block = tuple[int, Optional[int], int]
#: A slot of a buffer program: (buffer, index).
_Slot = tuple[_BufferName, int]

class _BufferSpec(TypedDict, total=False):
    """Schedule(buffers=...): missing sizes are the collective's natural ones, scratch 0."""

    chunks: SupportsIndex
    input: SupportsIndex
    output: SupportsIndex
    scratch: SupportsIndex
    inplace: bool

class _BufferLayout(TypedDict):
    """Schedule.buffers of a buffer program."""

    chunks: int
    inplace: bool
    input: int
    output: int
    scratch: int

class _Parameter(TypedDict):
    """One parameter of a registered algorithm, as `phasecheck algorithms --report json` describes
    it (report/algorithms_report.cpp, parameter_json)."""

    name: str
    type: Literal["unsigned", "boolean", "choice", "text"]
    min: NotRequired[Union[int, Literal["p"]]]  #: type unsigned; "p" is the rank count
    max: NotRequired[Union[int, Literal["p"]]]  #: type unsigned
    values: NotRequired[list[str]]  #: type choice
    form: NotRequired[str]  #: type text: what the value looks like ("SWITCH")
    default: NotRequired[str]  #: the default, as --set would give it ...
    default_in_words: NotRequired[str]  #: ... or, instead, the default described
    help: str

class _Algorithm(TypedDict):
    """One entry of algorithms()."""

    name: str
    summary: str
    reference: str
    library: str  #: "" (the papers' own), "Open MPI", "MPICH", "NCCL", "RCCL"
    alltoallv: bool  #: takes a traffic matrix
    parameters: list[_Parameter]

class _Bytes(TypedDict):
    """Report.bytes: an alltoallv's figures in bytes."""

    cost: int
    load_bound: int
    argument: str

class _Limits(TypedDict):
    max_memory: int
    max_input_size: int

#: A parameter of generate and check, as the command line's --set key=value takes it.
_ParameterValue = Union[int, bool, str]

# --- exceptions ----------------------------------------------------------------------------

class InputError(ValueError):
    """Bad input: the message, file and place `phasecheck` prints before exit 2."""

class CheckFailed(Exception):
    """A schedule did not verify; `report` is its Report."""

    #: The report that did not pass; None on the CheckFailed of FuzzResult.raise_for_failure.
    report: Optional[Report]
    #: Only on the CheckFailed that FuzzResult.raise_for_failure raises (AttributeError on the
    #: others: getattr(error, "fuzz", None)).
    fuzz: FuzzResult

# --- machines ------------------------------------------------------------------------------

class Topology:
    """A machine model (docs/models.md); made by phasecheck.topology's functions."""

    @property
    def ranks(self) -> int: ...
    @property
    def kind(self) -> _Kind: ...
    def describe(self) -> str:
        """'tree(machines=6, switches=4)', as reports name the machine."""
    def json(self) -> str:
        """The topology file's text (docs/formats.md)."""
    def save(self, path: _Path) -> None:
        """Writes the topology file (never over a link or a non-regular file)."""
    # TypeError unless `other` is a Topology.
    def __eq__(self, other: Topology, /) -> bool: ...  # type: ignore[override]
    __hash__: ClassVar[None]  # type: ignore[assignment]

# --- schedules -----------------------------------------------------------------------------

class Schedule:
    """A schedule held in memory: phases of transfers (a phase table) or of buffer ops (a
    program, format 3)."""

    def __init__(self, ranks: Optional[SupportsIndex] = None,
                 collective: _Collective = "alltoall", topology: Optional[Topology] = None, *,
                 algorithm: str = "", buffers: Optional[_BufferSpec] = None,
                 parts: SupportsIndex = 1, traffic: Union[_IntArray, _Path, None] = None,
                 inplace: bool = False) -> None:
        """The machine is `topology`, or `ranks` single-ported fully connected ranks (at least
        one of the two; both must agree). collective="alltoallv" needs traffic= (a (p, p) array
        of element counts, or a traffic file). buffers= makes a buffer program (add_program_phase);
        parts= splits each message into parts. `algorithm` names the algorithm whose claims and
        invariants verify checks."""
    @staticmethod
    def load(path: _Path) -> Schedule:
        """Any schedule file, told by content: JSON (formats 1-4), the binary stream, MSCCL XML
        or an MSCCL++ plan (lowered to its buffer program; the runtime model judges it)."""
    def save(self, path: _Path, format: _Format = "json") -> None:
        """json, binary (phase tables), msccl or mscclpp (verified, exported, read back and
        verified again: CheckFailed when it does not verify)."""
    def json(self) -> str:
        """The JSON file's text."""
    @overload
    def add_phase(self, transfers: _IntArray, blocks: None = None, offsets: None = None,
                  label: str = "") -> None:
        """Appends a phase: transfers is a NumPy (n, 2) integer array of (src, dst), read in
        place, or a list of (src, dst) / (src, dst, blocks). (src, dst) carries the direct
        message; blocks and offsets (NumPy, CSR: transfer i carries the rows
        offsets[i]..offsets[i+1] of blocks) give each transfer's blocks instead."""
    @overload
    def add_phase(self, transfers: _IntArray, blocks: _IntArray, offsets: _IntArray,
                  label: str = "") -> None: ...
    @overload
    def add_phase(self, transfers: Sequence[_TransferIn], blocks: None = None,
                  offsets: None = None, label: str = "") -> None: ...
    def add_program_phase(self, ops: Union[_IntArray, Sequence[_OpIn]], label: str = "") -> None:
        """Appends a phase of a buffer program: ops is a NumPy (n, 7) integer array or a list of
        (src, dst, from_buffer, from_slot, to_buffer, to_slot[, count])."""
    def __len__(self) -> int: ...
    @property
    def phases(self) -> int:
        """The number of phases (as len())."""
    @property
    def ranks(self) -> int: ...
    @property
    def collective(self) -> _Collective: ...
    @property
    def algorithm(self) -> str: ...
    @algorithm.setter
    def algorithm(self, name: str) -> None: ...
    @property
    def topology(self) -> Topology:
        """A copy of the schedule's machine."""
    @property
    def parts(self) -> int: ...
    @property
    def parameters(self) -> dict[str, str]:
        """The algorithm's parameters as the file writes them: {'radix': '3'}."""
    @property
    def buffers(self) -> Optional[_BufferLayout]:
        """A buffer program's layout; None for a phase table."""
    @property
    def imported(self) -> bool:
        """Lowered from MSCCL XML or an MSCCL++ plan."""
    def label(self, phase: SupportsIndex) -> str: ...
    def pairs(self, phase: SupportsIndex) -> NDArray[np.uint32]:
        """The phase's transfers as a NumPy (n, 2) array of (src, dst)."""
    def transfers(self, phase: SupportsIndex) -> list[tuple[int, int, list[_Block]]]:
        """The phase's transfers: (src, dst, blocks), a block (origin, dest, part), dest None for
        an allgather's."""
    def ops(self, phase: SupportsIndex) -> list[
            tuple[int, int, _BufferName, int, _BufferName, int, int]]:
        """A program's phase: (src, dst, from_buffer, from_slot, to_buffer, to_slot, count)."""
    # TypeError unless `other` is a Schedule.
    def __eq__(self, other: Schedule, /) -> bool: ...  # type: ignore[override]
    __hash__: ClassVar[None]  # type: ignore[assignment]

# --- reports -------------------------------------------------------------------------------

class OffendingTransfer:
    """A transfer of a counterexample."""

    @property
    def src(self) -> int: ...
    @property
    def dst(self) -> int: ...
    @property
    def blocks(self) -> list[_Block]: ...
    @property
    def route(self) -> list[str]:
        """The nodes on its path, src first (a port model: src and dst)."""
    @property
    def origin(self) -> str:
        """An imported program's source steps ('gpu 0 tb 2 step 1 -> ...'), or ''."""

class OffendingOp:
    """An op of a buffer program in a counterexample."""

    @property
    def phase(self) -> int: ...
    @property
    def index(self) -> int:
        """Its position in the phase's ops."""
    @property
    def src(self) -> int: ...
    @property
    def dst(self) -> int: ...
    @property
    def source_slot(self) -> _Slot:
        """(buffer, index) it reads."""
    @property
    def target_slot(self) -> _Slot:
        """(buffer, index) it writes."""
    @property
    def count(self) -> int: ...
    @property
    def origin(self) -> str: ...

class Counterexample:
    """Where a check failed: the phase, its offending transfers or ops, the shared link, port or
    buffer slot."""

    @property
    def phase(self) -> Optional[int]:
        """0-based, or None (a block never arrives)."""
    @property
    def label(self) -> str: ...
    @property
    def phase_size(self) -> int: ...
    @property
    def transfers(self) -> list[OffendingTransfer]: ...
    @property
    def ops(self) -> list[OffendingOp]: ...
    @property
    def ranks(self) -> list[int]:
        """The ranks of its transfers and ops, ascending."""
    @property
    def resource(self) -> str:
        """The shared link, node, port or buffer slot ('link s0 -> s1', ...)."""
    @property
    def explanation(self) -> str: ...
    @property
    def steps(self) -> list[str]:
        """An imported program's steps ('gpu 3 tb 1 step 7')."""

class Check:
    """One check of a report."""

    @property
    def id(self) -> _CheckId: ...
    @property
    def verdict(self) -> _Verdict: ...
    @property
    def passed(self) -> bool: ...
    @property
    def summary(self) -> str: ...
    @property
    def counterexample(self) -> Optional[Counterexample]: ...
    def text(self) -> str:
        """The check as `verify` prints a failure: explanation, phase, transfers, routes."""

class Bound:
    """A lower bound that applies to the schedule."""

    @property
    def metric(self) -> Literal["C1", "C2"]: ...
    @property
    def value(self) -> int: ...
    @property
    def argument(self) -> str: ...
    @property
    def direct_only(self) -> bool: ...

class Report:
    """What verify or check found."""

    @property
    def verdict(self) -> _Verdict: ...
    @property
    def passed(self) -> bool: ...
    @property
    def checks(self) -> list[Check]: ...
    def check(self, id: str) -> Optional[Check]:
        """The check called `id` ('delivery', ...), or None when it did not run."""
    @property
    def failures(self) -> list[Check]: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def collective(self) -> _Collective: ...
    @property
    def topology(self) -> str:
        """The model judged on, described."""
    @property
    def source(self) -> str:
        """The file, '<schedule>' for a Schedule, or 'ALG on MACHINE' for check()."""
    @property
    def phases(self) -> int: ...
    @property
    def c1(self) -> int: ...
    @property
    def c2(self) -> int: ...
    @property
    def transfers(self) -> int: ...
    @property
    def blocks(self) -> int: ...
    @property
    def direct(self) -> bool: ...
    @property
    def bounds(self) -> list[Bound]: ...
    @property
    def bound_c1(self) -> Optional[int]: ...
    @property
    def bound_c2(self) -> Optional[int]: ...
    @property
    def gap(self) -> tuple[Optional[int], Optional[int]]:
        """(C1, C2) above the bound; None where it is undefined or no bound applies."""
    @property
    def bytes(self) -> Optional[_Bytes]:
        """An alltoallv's figures in bytes (cost, load_bound, argument)."""
    def text(self) -> str:
        """What `phasecheck verify` prints."""
    def json(self) -> str:
        """What `phasecheck verify --report json` prints (docs/formats.md)."""
    def junit(self) -> str: ...
    def raise_for_failure(self) -> None:
        """Raises CheckFailed (carrying this report) unless the verdict is pass."""

# --- functions -----------------------------------------------------------------------------

def algorithms() -> list[_Algorithm]:
    """Every registered algorithm: name, summary, reference, library, alltoallv, and its
    parameters as `phasecheck algorithms --report json` gives them."""

def generate(name: str, topology: Topology, *, buffers: bool = False,
             traffic: Union[_IntArray, _Path, None] = None,
             **params: _ParameterValue) -> Schedule:
    """The registered algorithm's schedule on the machine, held in memory (buffers=True: its
    buffer program). Parameters as keywords: generate('bruck-index', t, radix=4)."""

def check(name: str, topology: Topology, *, threads: SupportsIndex = 0,
          traffic: Union[_IntArray, _Path, None] = None,
          **params: _ParameterValue) -> Report:
    """Generates and verifies in one pass, the schedule never held (`phasecheck check`)."""

def verify(schedule: Union[Schedule, _Path], topology: Union[Topology, _Path, None] = None, *,
           threads: SupportsIndex = 0) -> Report:
    """Verifies a Schedule or any schedule file (JSON, binary, MSCCL XML, MSCCL++ plan) on its
    own machine or on `topology` (a Topology or a topology file). Another thread's changes to the
    Schedule meanwhile raise InputError."""

@overload
def draw(schedule: Union[Schedule, _Path], path: _Path, *, links: bool = False,
         report: None = None) -> str:
    """Draws a Schedule or schedule file as SVG at `path`: the phase grid, the link-load heat map
    (links=True), or with report= the report's first failure located in a phase (None when there
    is none). Returns what was drawn."""
@overload
def draw(schedule: Union[Schedule, _Path], path: _Path, *, links: bool = False,
         report: Report) -> Optional[str]: ...

def gate_cases(manifest: _Path) -> list[str]:
    """The names of a gate manifest's cases, in order (docs/ci.md)."""

def gate(manifest: _Path, allow: Sequence[str] = [], generators: bool = True,
         timeout: float = 300.0, allow_outside: Sequence[_Path] = []
         ) -> tuple[_Verdict, list[tuple[str, _Verdict, str]], str]:
    """Runs every case of a gate manifest against its baseline (`phasecheck gate`, never
    --update): (verdict, [(case, verdict, text)], the whole report's text)."""

def limits() -> _Limits:
    """The memory and input-size limits in bytes (docs/limits.md)."""

def set_limits(*, max_memory: Optional[SupportsIndex] = None,
               max_input_size: Optional[SupportsIndex] = None) -> None:
    """Sets the limits (bytes) for this process; None keeps one."""

def _fuzz(function: Callable[[Topology], Optional[Schedule]], cases: SupportsIndex,
          seed: SupportsIndex, max_size: SupportsIndex, contention_free: bool,
          out: Optional[_Path]) -> dict[str, Any]:
    """phasecheck.fuzz's native part: the FuzzResult's fields as a dict, its failure a dict of
    FuzzFailure's fields or None."""
