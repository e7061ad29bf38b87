"""Machines: built by kind as `phasecheck topology KIND` builds them, or read from a file
(topology JSON, NCCL's/RCCL's topology XML) by content. docs/models.md describes each model."""

from ._native import Topology
from ._native import topology as _builders

cluster = _builders.cluster
dgx1 = _builders.dgx1
dragonfly = _builders.dragonfly
fat_tree = _builders.fat_tree
fully_connected = _builders.fully_connected
gpu_cluster = _builders.gpu_cluster
hypercube = _builders.hypercube
load = _builders.load
mesh = _builders.mesh
nvswitch = _builders.nvswitch
parse = _builders.parse
ring = _builders.ring
slimfly = _builders.slimfly
tree = _builders.tree
xgmi = _builders.xgmi

__all__ = ["Topology", "cluster", "dgx1", "dragonfly", "fat_tree", "fully_connected",
           "gpu_cluster", "hypercube", "load", "mesh", "nvswitch", "parse", "ring", "slimfly",
           "tree", "xgmi"]
