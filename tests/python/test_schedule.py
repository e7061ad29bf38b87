"""phasecheck.Schedule: phases from tuples and NumPy arrays (every form), buffer programs, the
header read back, and load/save of every format."""

import json

import numpy as np
import pytest

import phasecheck
from helpers import (DATA, FC8_SHIFT, MSCCL_XML, MSCCLPP_PLAN, direct_program, port_conflict,
                     rotation)

T = phasecheck.topology


def test_phases_from_numpy_and_from_tuples_are_the_same():
    from_arrays = rotation(4)
    from_tuples = phasecheck.Schedule(4, algorithm="rotation")
    for k in range(4):
        from_tuples.add_phase([(i, (i + k) % 4) for i in range(4)], label=f"rotate by {k}")
    assert from_arrays == from_tuples
    assert len(from_arrays) == from_arrays.phases == 4
    assert from_arrays.transfers(1) == [(0, 1, [(0, 1, 0)]), (1, 2, [(1, 2, 0)]),
                                        (2, 3, [(2, 3, 0)]), (3, 0, [(3, 0, 0)])]
    report = phasecheck.verify(from_arrays)
    assert report.verdict == "pass"
    assert report.phases == 4 and report.transfers == 16


def test_header():
    t = T.fully_connected(8, ports=2)
    s = phasecheck.Schedule(topology=t, algorithm="mine")
    assert (s.ranks, s.collective, s.algorithm, s.parts) == (8, "alltoall", "mine", 1)
    assert s.topology == t
    assert s.parameters == {}
    assert s.buffers is None
    assert s.imported is False
    assert len(s) == 0
    s.algorithm = "renamed"
    assert s.algorithm == "renamed"
    assert repr(s) == "<phasecheck.Schedule alltoall of 8 ranks, 0 phases, renamed>"
    # ranks alone: a fully connected single-ported machine
    assert phasecheck.Schedule(5).topology == T.fully_connected(5)
    # ranks and topology agreeing
    assert phasecheck.Schedule(8, topology=t).ranks == 8


def test_pairs_labels_and_strided_arrays():
    s = phasecheck.Schedule(8)
    base = np.array([[0, 2], [1, 3], [4, 6], [5, 7]], dtype=np.int32)
    s.add_phase(base.T.copy().T, label="copied")       # C order
    s.add_phase(np.asfortranarray(base), label="fortran")
    s.add_phase((np.arange(16, dtype=np.uint8) % 8).reshape(8, 2)[::2], label="sliced")
    s.add_phase(np.array([[2, 0, 3, 1]]).T.reshape(2, 2), label="reshaped")
    readonly = base.copy()
    readonly.setflags(write=False)
    s.add_phase(readonly, label="read-only")
    assert [s.label(i) for i in range(5)] == ["copied", "fortran", "sliced", "reshaped",
                                              "read-only"]
    for i in (0, 1, 4):
        pairs = s.pairs(i)
        assert pairs.dtype == np.uint32 and pairs.shape == (4, 2)
        assert pairs.tolist() == base.tolist()
    assert s.pairs(2).tolist() == [[0, 1], [4, 5], [0, 1], [4, 5]]
    assert s.pairs(3).tolist() == [[2, 0], [3, 1]]
    with pytest.raises(IndexError, match="phase 5 of 5"):
        s.pairs(5)
    with pytest.raises(IndexError):
        s.transfers(99)


def test_empty_phase_and_numpy_scalars():
    s = phasecheck.Schedule(4)
    s.add_phase(np.zeros((0, 2), dtype=np.int64), label="nothing")
    s.add_phase([(np.int64(0), np.uint8(1)), [np.int32(1), 0], range(2, 4)])
    assert s.transfers(0) == []
    assert s.pairs(1).tolist() == [[0, 1], [1, 0], [2, 3]]


def test_blocks_and_offsets_relay_on_a_ring():
    # docs/python.md: every block forwarded one hop at a time towards its destination
    p = 4
    ranks = np.arange(p)
    relay = phasecheck.Schedule(p, topology=T.ring(p), algorithm="relay")
    for hop in range(1, p):
        src = (ranks + hop - 1) % p
        blocks = np.array([[o, (o + d) % p] for o in range(p) for d in range(hop, p)])
        offsets = np.arange(0, (p - hop) * p + 1, p - hop)
        relay.add_phase(np.stack([src, (src + 1) % p], axis=1), blocks=blocks, offsets=offsets,
                        label=f"hop {hop}")
    assert relay.transfers(1)[:2] == [(1, 2, [(0, 2, 0), (0, 3, 0)]),
                                      (2, 3, [(1, 3, 0), (1, 0, 0)])]
    report = phasecheck.verify(relay)
    assert report.verdict == "pass", report.text()
    assert report.direct is False
    assert report.check("delivery").passed and report.check("contention").passed


def test_tuple_blocks_forwarding_before_holding_fails_delivery():
    # (0, 1, [(2, 3)]): rank 0 forwards rank 2's block for 3, which it never received
    s = phasecheck.Schedule(4)
    s.add_phase([(0, 1, [(2, 3)])], label="too early")
    report = phasecheck.verify(s)
    delivery = report.check("delivery")
    assert delivery.verdict == "fail"
    assert delivery.counterexample.phase == 0
    assert delivery.counterexample.transfers[0].src == 0
    assert delivery.counterexample.transfers[0].blocks == [(2, 3, 0)]


def test_allgather_blocks_in_every_form():
    g = phasecheck.Schedule(4, "allgather")
    ranks = np.arange(4)
    for k in range(4):
        g.add_phase(np.stack([ranks, (ranks + k) % 4], axis=1))
    assert g.collective == "allgather"
    assert g.transfers(1)[0] == (0, 1, [(0, None, 0)])
    assert phasecheck.verify(g).verdict == "pass"
    forms = phasecheck.Schedule(4, "allgather", parts=2)
    forms.add_phase([(0, 1, [0, (0,), (0, 1), (0, None, 1)])])
    assert forms.transfers(0) == [(0, 1, [(0, None, 0), (0, None, 0), (0, None, 1),
                                          (0, None, 1)])]
    arrays = phasecheck.Schedule(4, "allgather", parts=2)
    arrays.add_phase(np.array([[0, 1]]), blocks=np.array([[0, 0], [0, 1]]),
                     offsets=np.array([0, 2]))
    assert arrays.transfers(0) == [(0, 1, [(0, None, 0), (0, None, 1)])]


def test_parts():
    s = phasecheck.Schedule(3, parts=2)
    s.add_phase([(0, 1)])
    assert s.parts == 2
    assert s.transfers(0) == [(0, 1, [(0, 1, 0), (0, 1, 1)])]
    s.add_phase([(1, 2, [(1, 2, 1)])])
    assert s.transfers(1) == [(1, 2, [(1, 2, 1)])]


def test_alltoallv_with_a_traffic_matrix():
    m = np.array([[0, 1, 2, 3], [4, 0, 1, 2], [3, 4, 0, 1], [2, 3, 4, 0]])
    v = phasecheck.Schedule(4, "alltoallv", traffic=m, algorithm="all at once")
    v.add_phase([(i, j) for i in range(4) for j in range(4) if i != j])
    assert v.collective == "alltoallv"
    report = phasecheck.verify(v)
    assert report.check("delivery").passed
    assert report.check("contention").verdict == "fail"
    assert report.bytes["load_bound"] == 9
    assert "9 bytes" in report.bytes["argument"]
    with pytest.raises(phasecheck.InputError, match=r"counts\[0\]\[0\] is 0"):
        v.add_phase([(0, 0)])


def test_buffer_program():
    program = direct_program(4)
    assert program.buffers == {"chunks": 1, "inplace": False, "input": 4, "output": 4,
                               "scratch": 0}
    assert "a buffer program" in repr(program)
    assert program.ops(1)[:2] == [(0, 1, "input", 1, "output", 0, 1),
                                  (1, 2, "input", 2, "output", 1, 1)]
    # tuples with named or numbered buffers, count optional: the same program
    tuples = phasecheck.Schedule(4, buffers={"chunks": 1}, algorithm="direct-program")
    for k in range(4):
        tuples.add_program_phase(
            [(s, (s + k) % 4, "input", (s + k) % 4, 1, s) for s in range(4)], label=f"shift {k}")
    assert tuples == program
    report = phasecheck.verify(program)
    assert report.verdict == "pass", report.text()
    assert [c.id for c in report.checks][:2] == ["placement", "delivery"]
    assert "16 slots" in report.check("placement").summary


def test_buffer_layout_with_scratch():
    program = phasecheck.Schedule(4, buffers={"chunks": 2, "scratch": 3})
    assert program.buffers == {"chunks": 2, "inplace": False, "input": 8, "output": 8,
                               "scratch": 3}
    assert program.parts == 2


def test_json_text():
    s = rotation(3)
    data = json.loads(s.json())
    assert data["ranks"] == 3
    assert data["algorithm"] == "rotation"
    assert len(data["phases"]) == 3
    assert data["phases"][1]["label"] == "rotate by 1"


@pytest.mark.parametrize("fmt, name", [("json", "s.json"), ("binary", "s.pcsb")])
def test_save_and_load_round_trip(fmt, name, tmp_path):
    for s in (phasecheck.generate("shift", T.fully_connected(5)), rotation(T.ring(4)),
              port_conflict(4)):
        path = tmp_path / name
        assert s.save(path, format=fmt) is None
        if fmt == "binary":
            assert path.read_bytes()[:4] == b"PCSB"
        else:
            assert json.loads(path.read_text())["ranks"] == s.ranks
        back = phasecheck.Schedule.load(path)
        assert back == s
        assert back.imported is False
        assert phasecheck.verify(path).text().splitlines()[1:] == \
            phasecheck.verify(s).text().splitlines()[1:]


def test_program_saves_as_json_not_binary(tmp_path):
    program = direct_program(4)
    program.save(tmp_path / "p.json")
    back = phasecheck.Schedule.load(tmp_path / "p.json")
    assert back.buffers == program.buffers
    assert [back.ops(i) for i in range(4)] == [program.ops(i) for i in range(4)]
    assert [back.label(i) for i in range(4)] == [program.label(i) for i in range(4)]
    report = phasecheck.verify(tmp_path / "p.json")
    assert report.verdict == "pass" and report.check("placement").passed
    with pytest.raises(phasecheck.InputError, match="binary stream carries phase tables only"):
        program.save(tmp_path / "p.pcsb", format="binary")
    assert not (tmp_path / "p.pcsb").exists()


@pytest.mark.parametrize("make", [lambda: direct_program(4),
                                  lambda: phasecheck.generate("shift", T.fully_connected(4),
                                                              buffers=True)])
def test_program_round_trip_is_equal(make, tmp_path):
    # A program held in Python (add_program_phase, generate(buffers=True)) keeps its ops only;
    # so does one read back (Schedule.load reads programs with io::Tables::ops_only), so that
    # the round trip is equal. (An earlier build derived the loaded program's transfer table:
    # load(save(s)) != s.)
    program = make()
    program.save(tmp_path / "p.json")
    back = phasecheck.Schedule.load(tmp_path / "p.json")
    assert back == program
    # a program's phases are ops: its transfer table is refused alike, held or loaded
    for s in (program, back):
        with pytest.raises(phasecheck.InputError, match="buffer program"):
            s.transfers(1)
        with pytest.raises(phasecheck.InputError, match="buffer program"):
            s.pairs(1)


@pytest.mark.parametrize("fmt, name, marker", [("msccl", "s.xml", b"<algo"),
                                               ("mscclpp", "plan.json", b'"name"')])
def test_save_msccl_and_mscclpp(fmt, name, marker, tmp_path):
    s = phasecheck.generate("shift", T.fully_connected(4))
    path = tmp_path / name
    s.save(path, format=fmt)
    assert marker in path.read_bytes()[:200]
    back = phasecheck.Schedule.load(path)
    assert back.imported is True
    assert back.buffers is not None
    assert back.ranks == 4 and back.algorithm == "shift"
    report = phasecheck.verify(path)
    assert report.verdict == "pass", report.text()
    assert report.checks[0].id == "execution"
    assert report.check("placement").passed
    # the loaded program verifies alike
    assert phasecheck.verify(back).check("execution").passed


@pytest.mark.parametrize("fmt", ["msccl", "mscclpp"])
def test_save_refuses_a_failing_schedule(fmt, tmp_path):
    broken = rotation(4, drop=(2, 1))
    path = tmp_path / "broken.out"
    with pytest.raises(phasecheck.CheckFailed) as error:
        broken.save(path, format=fmt)
    assert not isinstance(error.value, ValueError)
    assert f"not exported as {fmt}" in str(error.value)
    report = error.value.report
    assert isinstance(report, phasecheck.Report)
    assert report.verdict == "fail"
    assert report.failures[0].id == "delivery"
    assert "never reaches rank 3" in str(error.value)
    assert not path.exists()


def test_save_unknown_format(tmp_path):
    with pytest.raises(phasecheck.InputError, match="format 'yaml' is not one of json, binary"):
        rotation(3).save(tmp_path / "s.yaml", format="yaml")


@pytest.mark.parametrize("path, imported, buffers", [
    (FC8_SHIFT, False, False),
    (DATA / "direct-3.json", False, False),
    (MSCCL_XML, True, True),
    (MSCCLPP_PLAN, True, True),
])
def test_load_every_format_from_the_repository(path, imported, buffers):
    s = phasecheck.Schedule.load(path)
    assert s.imported is imported
    assert (s.buffers is not None) is buffers
    assert s.phases > 0
    assert phasecheck.verify(s).verdict == phasecheck.verify(path).verdict == "pass"


def test_load_refuses_what_does_not_fit_the_memory_limit(restore_limits):
    phasecheck.set_limits(max_memory=1000)
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.Schedule.load(FC8_SHIFT)
    assert str(FC8_SHIFT) in str(error.value)
    assert "memory limit of 1000 bytes" in str(error.value)
    # verify streams the file instead
    assert phasecheck.verify(FC8_SHIFT).verdict == "pass"
