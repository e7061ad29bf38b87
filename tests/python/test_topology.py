"""phasecheck.topology: every builder, load/parse of every file kind, save, and bad arguments."""

import re

import numpy as np
import pytest

import phasecheck
from helpers import DATA, EXAMPLES, FC8_SHIFT, REPO

T = phasecheck.topology

# (call, kind, ranks, description) for every builder of phasecheck.topology.
BUILDERS = [
    (lambda: T.tree(fanout=[2, 4]), "tree", 8, "tree(machines=8, switches=3)"),
    (lambda: T.tree(fanout=np.array([2, 4], dtype=np.int16)), "tree", 8,
     "tree(machines=8, switches=3)"),
    (lambda: T.cluster([8, 8, 4, 1]), "cluster", 21, "cluster(sizes=8,8,4,1)"),
    (lambda: T.fully_connected(8, ports=2), "fully-connected", 8, "fully-connected(p=8, k=2)"),
    (lambda: T.fully_connected(np.int64(5)), "fully-connected", 5, "fully-connected(p=5, k=1)"),
    (lambda: T.hypercube(3), "hypercube", 8, "hypercube(d=3)"),
    (lambda: T.mesh(2, 3), "mesh", 6, "mesh(2x3)"),
    (lambda: T.mesh(3, 3, wraparound=True), "mesh", 9, "torus(3x3)"),
    (lambda: T.ring(6), "ring", 6, "ring(p=6)"),
    (lambda: T.xgmi(8), "graph", 8, None),
    (lambda: T.nvswitch(4), "graph", 4, None),
    (lambda: T.dgx1(), "graph", 8, None),
    (lambda: T.gpu_cluster(2, 4, 1), "graph", 8, None),
    (lambda: T.slimfly(5), "graph", 200, None),
    (lambda: T.dragonfly(2, 1, 1), "graph", 6, None),
    (lambda: T.fat_tree(4), "graph", 16, None),
]


@pytest.mark.parametrize("build, kind, ranks, description", BUILDERS)
def test_builder(build, kind, ranks, description, tmp_path):
    t = build()
    assert isinstance(t, phasecheck.Topology)
    assert t.kind == kind
    assert t.ranks == ranks
    if description is not None:
        assert t.describe() == description
        assert str(t) == description
    assert repr(t).startswith(f"<phasecheck.Topology {kind}: ")
    # The topology file's text reads back as the same machine, from text and from a file.
    assert T.parse(t.json()) == t
    path = tmp_path / "machine.json"
    assert t.save(path) is None
    assert T.load(path) == t
    assert T.load(str(path)).ranks == ranks


def test_equality_and_hash():
    a, b = T.tree(fanout=[2, 4]), T.tree(fanout=[2, 4])
    assert a == b
    assert a != T.tree(fanout=[4, 2])
    assert a != "tree(machines=8, switches=3)"  # NotImplemented, then identity: not equal
    assert a != T.fully_connected(8)


def test_load_topology_file_from_the_examples():
    t = T.load(EXAMPLES / "faraj-yuan-fig1/topology.json")
    assert t.kind == "tree"
    assert t.ranks == 6
    assert t.describe() == "tree(machines=6, switches=4)"


def test_load_hand_written_tree():
    t = T.load(DATA / "tree-2x2.json")
    assert (t.kind, t.ranks) == ("tree", 4)
    assert "machines=4" in t.describe()


def test_load_nccl_topology_xml():
    # NCCL's/RCCL's topology XML, told by content (tests/topologies/nccl)
    t = T.load(REPO / "tests/topologies/nccl/xgmi-8.xml")
    assert t.kind == "graph"
    assert t.ranks == 8


def test_parse_names_its_source():
    with pytest.raises(phasecheck.InputError, match=r"^mine\.json:1:2: invalid JSON"):
        T.parse("{", "mine.json")
    with pytest.raises(phasecheck.InputError, match=r"^<string>:1:2: invalid JSON"):
        T.parse("{")


def test_load_refuses_a_schedule_file():
    with pytest.raises(phasecheck.InputError) as error:
        T.load(FC8_SHIFT)
    assert str(FC8_SHIFT) in str(error.value)
    assert "phasecheck.topology/1" in str(error.value)


def test_load_refuses_a_missing_file_and_a_directory(tmp_path):
    with pytest.raises(phasecheck.InputError, match="cannot open the file"):
        T.load(tmp_path / "none.json")
    with pytest.raises(phasecheck.InputError, match="is a directory"):
        T.load(tmp_path)


@pytest.mark.parametrize("call, message", [
    (lambda: T.tree(fanout=[8, -4]), "fanout[1]: -4 is negative"),
    (lambda: T.tree(fanout=[8, 2.5]), "fanout[1]: float is not an integer"),
    (lambda: T.tree(fanout=[True, 2]), "fanout[0]: bool is not an integer"),
    (lambda: T.tree(fanout="84"), "fanout: a list of integers is needed, not str"),
    (lambda: T.tree(fanout=8), "fanout: a list of integers is needed, not int"),
    (lambda: T.tree(fanout=np.array([2.0, 4.0])), "fanout: dtype float64 is not an integer type"),
    (lambda: T.tree(fanout=np.array([[2, 4]])), "fanout: shape (1, 2) is not a vector (n,)"),
    (lambda: T.tree(fanout=np.array([2, -4])), "fanout[1]: -4 is negative"),
    (lambda: T.cluster([4, "x"]), "sizes[1]: str is not an integer"),
    (lambda: T.fully_connected(-2), "p: -2 is negative"),
    (lambda: T.fully_connected(8, ports=1.0), "ports: float is not an integer"),
    (lambda: T.hypercube(True), "d: bool is not an integer"),
    (lambda: T.mesh(2, 1.5), "cols: float is not an integer"),
    (lambda: T.mesh(-1, 2), "rows: -1 is negative"),
    (lambda: T.ring("6"), "p: str is not an integer"),
    (lambda: T.xgmi(2**33), "gpus: 8589934592 is above 4294967295"),
    (lambda: T.load(42), "load: path: a path (str, bytes or os.PathLike) is needed, not int"),
])
def test_bad_arguments_name_the_argument(call, message):
    with pytest.raises(phasecheck.InputError) as error:
        call()
    assert isinstance(error.value, ValueError)
    assert message in str(error.value)


@pytest.mark.parametrize("call, value", [
    # Values the machine builders themselves refuse (their messages are the command's).
    (lambda: T.fully_connected(0), "0"),
    (lambda: T.fully_connected(4, ports=0), "0"),
    (lambda: T.tree(fanout=[]), "fanout"),
    (lambda: T.tree(fanout=[2, 0]), "0"),
    (lambda: T.cluster([]), "sizes"),
    (lambda: T.hypercube(64), "64"),
    (lambda: T.fat_tree(3), "3"),
    (lambda: T.slimfly(4), "4"),
    (lambda: T.ring(0), "0"),
])
def test_out_of_range_machines(call, value):
    with pytest.raises(phasecheck.InputError) as error:
        call()
    assert re.search(rf"\b{re.escape(value)}\b", str(error.value))
