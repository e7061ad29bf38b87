"""Machines: built by kind as `phasecheck topology KIND` builds them, or read from a file
(topology JSON, NCCL's/RCCL's topology XML) by content. docs/models.md describes each model.

Type stubs of phasecheck/topology.py, which re-exports the builders of phasecheck._native.topology
(python/src/topology.cpp); _native.pyi names this module as that submodule. Every integer argument
takes an int or a NumPy integer (anything with __index__, bool excepted); a negative or too large
value raises InputError naming the argument ("fanout[1]: -4 is negative").
"""

import os
from typing import Any, Sequence, SupportsIndex, Union

import numpy as np
from numpy.typing import NDArray

from ._native import Topology as Topology

__all__ = ["Topology", "cluster", "dgx1", "dragonfly", "fat_tree", "fully_connected",
           "gpu_cluster", "hypercube", "load", "mesh", "nvswitch", "parse", "ring", "slimfly",
           "tree", "xgmi"]

def load(path: Union[str, os.PathLike[str]]) -> Topology:
    """A topology file (JSON, versions 1 and 2) or NCCL's/RCCL's topology XML, told by content."""

def parse(text: str, source: str = "<string>") -> Topology:
    """A topology file's text; `source` names it in an InputError."""

def tree(fanout: Union[Sequence[SupportsIndex], NDArray[np.integer[Any]]]) -> Topology:
    """A tree of switches, level by level from the root: fanout=[8, 4]."""

def fat_tree(k: SupportsIndex) -> Topology:
    """The k-ary fat tree (a graph)."""

def cluster(sizes: Union[Sequence[SupportsIndex], NDArray[np.integer[Any]]]) -> Topology:
    """SMP nodes of the given sizes: cluster([8, 8, 4, 1])."""

def fully_connected(p: SupportsIndex, ports: SupportsIndex = 1) -> Topology:
    """p ranks with `ports` ports each."""

def hypercube(d: SupportsIndex) -> Topology:
    """2^d ranks, e-cube routing."""

def mesh(rows: SupportsIndex, cols: SupportsIndex, wraparound: bool = False) -> Topology:
    """rows x cols ranks, XY routing; a torus with wraparound=True."""

def ring(p: SupportsIndex) -> Topology:
    """p ranks on a bidirectional ring."""

def slimfly(q: SupportsIndex = 5, concentration: SupportsIndex = 0) -> Topology:
    """Slim Fly by the MMS construction (concentration 0: ceil(degree/2))."""

def dragonfly(a: SupportsIndex = 4, h: SupportsIndex = 2, p: SupportsIndex = 2) -> Topology:
    """The canonical Dragonfly."""

def xgmi(gpus: SupportsIndex = 8) -> Topology:
    """GPUs fully connected by xGMI links."""

def nvswitch(gpus: SupportsIndex = 8) -> Topology:
    """GPUs behind one NVSwitch."""

def dgx1() -> Topology:
    """The 8 V100 GPUs of a DGX-1 (hybrid cube-mesh)."""

def gpu_cluster(nodes: SupportsIndex = 2, gpus: SupportsIndex = 8,
                nics: SupportsIndex = 1) -> Topology:
    """Nodes of GPUs behind NICs on one network switch."""
