"""phasecheck.verify and its Report: what passes, every kind of failure with its structured
counterexample, what-if models, every file format, the report's text/JSON/JUnit, and
raise_for_failure."""

import json
import os
import shutil
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest

import phasecheck
from helpers import (DATA, FC8_SHIFT, FIG1_LINEAR, MSCCL_XML, MSCCLPP_DEADLOCK, MSCCLPP_PLAN,
                     direct_program, port_conflict, rotation)

T = phasecheck.topology


def ids(report):
    return [c.id for c in report.checks]


def test_a_passing_schedule():
    report = phasecheck.verify(rotation(T.fully_connected(8), self_copy=False))
    assert report.verdict == "pass" and report.passed
    assert ids(report) == ["delivery", "contention", "invariants", "bounds"]
    assert [c.verdict for c in report.checks] == ["pass", "pass", "not-evaluated", "pass"]
    assert report.check("invariants").summary == "no invariant is known for 'rotation'"
    assert report.check("claims") is None  # not a registered algorithm
    assert report.failures == []
    assert (report.phases, report.c1, report.c2, report.transfers) == (7, 7, 7, 56)
    assert report.direct is True
    assert report.bound_c2 == 7 and report.gap == (0, 0)
    assert report.bytes is None
    assert all(isinstance(b, phasecheck.Bound) for b in report.bounds)
    assert any(b.metric == "C2" and b.value == 7 and b.argument for b in report.bounds)
    assert (report.source, report.algorithm, report.collective) == ("<schedule>", "rotation",
                                                                    "alltoall")
    assert report.topology == "fully-connected(p=8, k=1)"
    assert "56 deliveries" in report.check("delivery").summary
    assert report.check("delivery").counterexample is None
    text = report.text()
    assert text.startswith("PASS  rotation (alltoall) on fully-connected(p=8, k=1)")
    assert "7 phases, 56 transfers, C1 = 7, C2 = 7 (direct)" in text
    assert repr(report) == "<phasecheck.Report <schedule>: pass, 3 checks pass, 1 not evaluated>"
    assert report.raise_for_failure() is None


def test_a_registered_algorithm_is_held_to_its_claims():
    report = phasecheck.verify(phasecheck.generate("shift", T.fully_connected(8)))
    assert ids(report) == ["delivery", "contention", "invariants", "claims", "bounds"]
    assert report.verdict == "pass"
    assert report.check("claims").summary == "8 phases; the algorithm claims 8 (p steps)"
    # the same phases without the self copy, still named shift, break its claim
    renamed = rotation(T.fully_connected(8), self_copy=False, algorithm="shift")
    claims = phasecheck.verify(renamed).check("claims")
    assert claims.verdict == "fail"
    assert "claims 8" in claims.summary


def test_contention_counterexample():
    report = phasecheck.verify(port_conflict(4))
    assert report.verdict == "fail" and not report.passed
    assert report.check("delivery").passed
    assert [f.id for f in report.failures] == ["contention"]
    failure = report.failures[0]
    assert failure.verdict == "fail" and not failure.passed
    assert failure.summary == "contention in 1 of 4 phases on fully-connected(p=4, k=1) " \
                              "(2 conflicts)"
    example = failure.counterexample
    assert isinstance(example, phasecheck.Counterexample)
    assert example.phase == 1
    assert example.label == "phase 1"
    assert example.phase_size == 5
    assert [(t.src, t.dst) for t in example.transfers] == [(0, 1), (0, 2)]
    assert all(isinstance(t, phasecheck.OffendingTransfer) for t in example.transfers)
    assert example.transfers[0].route == ["0", "1"]  # a port model: src and dst
    assert example.transfers[1].blocks == [(0, 2, 0)]
    assert example.transfers[0].origin == ""
    assert example.ranks == [0, 1, 2]
    assert example.resource == "send ports of rank 0 (k = 1)"
    assert example.explanation == "rank 0 must send 2 transfers in phase 1 but has 1 send port"
    assert example.ops == [] and example.steps == []
    assert example.explanation in report.text()
    assert failure.text().startswith("contention: " + example.explanation)
    assert "shared: send ports of rank 0 (k = 1)" in failure.text()
    assert failure.text() in report.text()


def test_a_block_never_delivered():
    report = phasecheck.verify(rotation(4, drop=(2, 1)))
    assert [f.id for f in report.failures] == ["delivery"]
    failure = report.failures[0]
    assert failure.summary == "1 of 12 deliveries never happen"
    example = failure.counterexample
    assert example.phase is None  # not in one phase
    assert example.resource == "rank 3"
    assert example.explanation == "block [1,3] never reaches rank 3"
    assert example.transfers == []
    assert "delivery: block [1,3] never reaches rank 3" in report.text()
    assert report.gap == (None, None)


def test_a_block_delivered_twice():
    report = phasecheck.verify(rotation(4, duplicate=True))
    assert [f.id for f in report.failures] == ["delivery"]
    example = report.failures[0].counterexample
    assert example.phase == 4
    assert example.label == "again"
    assert [(t.src, t.dst, t.blocks) for t in example.transfers] == [(0, 1, [(0, 1, 0)])]
    assert example.ranks == [0, 1]
    assert "arrives at rank 1 again in phase 4" in example.explanation
    assert example.explanation in report.text()


def test_a_buffer_program_writing_a_wrong_slot():
    report = phasecheck.verify(direct_program(4, mutate="wrong-slot"))
    assert report.check("delivery").passed
    assert [f.id for f in report.failures] == ["placement"]
    failure = report.failures[0]
    assert failure.summary == "2 of 16 output slots hold the wrong chunk"
    example = failure.counterexample
    assert example.resource == "rank 1 output[0]"
    assert example.ranks == [1, 2]
    assert len(example.ops) == 1
    op = example.ops[0]
    assert isinstance(op, phasecheck.OffendingOp)
    assert (op.phase, op.index, op.src, op.dst, op.count) == (3, 2, 2, 1, 1)
    assert op.source_slot == ("input", 1)
    assert op.target_slot == ("output", 0)
    assert str(op) == "send 2 -> 1: input[1] -> output[0]"
    assert "output[0] holds (2,1,0), expected (0,1,0)" in example.explanation
    assert example.explanation in report.text()


def test_a_buffer_program_writing_one_slot_twice_in_a_phase():
    report = phasecheck.verify(direct_program(4, mutate="double-write"))
    placement = report.check("placement")
    assert placement.verdict == "fail"
    example = placement.counterexample
    assert example.phase == 1 and example.label == "shift 1"
    assert example.resource == "rank 1 output[0]"
    assert [str(op) for op in example.ops] == ["send 0 -> 1: input[1] -> output[0]",
                                               "send 2 -> 1: input[1] -> output[0]"]
    assert [op.index for op in example.ops] == [0, 4]
    assert example.ranks == [0, 1, 2]
    assert "is written twice in phase 1" in example.explanation
    assert "slot: rank 1 output[0]" in placement.text()


def test_what_if_a_topology():
    # the shift passes on its own fully connected machine, not on a tree of two switches
    own = phasecheck.verify(FC8_SHIFT)
    assert own.verdict == "pass" and own.topology == "fully-connected(p=8, k=1)"
    tree = T.tree(fanout=[2, 4])
    whatif = phasecheck.verify(FC8_SHIFT, tree)
    assert whatif.topology == "tree(machines=8, switches=3)"
    assert [f.id for f in whatif.failures] == ["contention", "bounds"]
    example = whatif.failures[0].counterexample
    assert example.phase == 2
    assert example.resource == "link s1.0 -> s0.0"
    assert [(t.src, t.dst) for t in example.transfers] == [(2, 4), (3, 5)]
    assert example.transfers[0].route == ["n2", "s1.0", "s0.0", "s1.1", "n4"]
    assert example.ranks == [2, 3, 4, 5]
    assert whatif.bound_c2 == 16
    assert "lower bound 16" in whatif.text()
    # the same what-if from a Schedule, and with keyword
    held = phasecheck.Schedule.load(FC8_SHIFT)
    assert phasecheck.verify(held, topology=tree).text().splitlines()[1:] == \
        whatif.text().splitlines()[1:]


def test_what_if_a_topology_file():
    report = phasecheck.verify(phasecheck.generate("shift", T.fully_connected(4)),
                               DATA / "tree-2x2.json")
    assert report.topology == "tree(machines=4, switches=3)"
    contention = report.check("contention")
    assert contention.verdict == "fail"
    assert contention.counterexample.resource == "link left -> root"
    assert contention.counterexample.transfers[0].route == ["m0", "left", "root", "right", "m2"]


def test_a_linear_schedule_on_its_own_tree():
    report = phasecheck.verify(FIG1_LINEAR)
    assert report.phases == 1
    assert report.check("delivery").passed
    contention = report.check("contention")
    assert contention.verdict == "fail"
    example = contention.counterexample
    assert example.phase == 0 and example.label == "post everything"
    assert example.resource.startswith("link ")
    assert len(example.transfers) >= 2
    assert all(len(t.route) >= 3 for t in example.transfers)  # machine, switches, machine


def test_what_if_with_another_rank_count_is_bad_input():
    with pytest.raises(phasecheck.InputError, match="ranks"):
        phasecheck.verify(FC8_SHIFT, T.fully_connected(4))


@pytest.mark.parametrize("threads", [1, 2])
def test_threads_give_the_same_report(threads):
    s = phasecheck.generate("shift", T.fully_connected(16))
    assert phasecheck.verify(s, threads=threads).text() == phasecheck.verify(s).text()


def test_verify_a_path_of_every_format(tmp_path):
    held = phasecheck.generate("bruck-index", T.fully_connected(8), radix=2)
    held.save(tmp_path / "b.json")
    held.save(tmp_path / "b.pcsb", format="binary")
    held.save(tmp_path / "b.xml", format="msccl")
    held.save(tmp_path / "b-plan.json", format="mscclpp")
    for path in (tmp_path / "b.json", str(tmp_path / "b.pcsb")):
        report = phasecheck.verify(path)
        assert report.verdict == "pass", report.text()
        assert report.source == str(path)
        assert ids(report) == ["delivery", "contention", "invariants", "claims", "bounds"]
        assert report.phases == held.phases
    for path in (tmp_path / "b.xml", tmp_path / "b-plan.json", MSCCL_XML, MSCCLPP_PLAN):
        report = phasecheck.verify(path)
        assert report.verdict == "pass", report.text()
        assert ids(report)[:3] == ["execution", "placement", "delivery"]
        assert report.check("execution").passed


def test_a_deadlocking_mscclpp_plan():
    report = phasecheck.verify(MSCCLPP_DEADLOCK)
    execution = report.check("execution")
    assert execution.verdict == "fail"
    assert execution.counterexample.explanation.startswith("deadlock:")
    assert execution.counterexample.steps == ["gpu 0 tb 0 step 4", "gpu 1 tb 0 step 4"]
    assert "deadlock" in report.text()


def test_report_json_is_what_the_command_prints():
    tree = T.tree(fanout=[2, 4])
    for report in (phasecheck.verify(FC8_SHIFT), phasecheck.verify(FC8_SHIFT, tree)):
        data = json.loads(report.json())
        assert data["verdict"] == report.verdict
        assert [c["name"] for c in data["checks"]] == ids(report)
        assert [c["verdict"] for c in data["checks"]] == [c.verdict for c in report.checks]
        assert data["phases"] == report.phases
        assert (data["C1"], data["C2"]) == (report.c1, report.c2)
    contention = data["checks"][1]
    assert contention["counterexample"]["phase"] == 2
    assert contention["counterexample"]["resource"] == "link s1.0 -> s0.0"


def test_report_junit():
    report = phasecheck.verify(port_conflict(4))
    suites = ElementTree.fromstring(report.junit())
    assert suites.get("tests") == str(len(report.checks))
    assert suites.get("failures") == "1"
    failures = suites.findall(".//failure")
    assert len(failures) == 1
    assert "contention" in failures[0].get("message")


def test_raise_for_failure():
    report = phasecheck.verify(port_conflict(4))
    with pytest.raises(phasecheck.CheckFailed) as error:
        report.raise_for_failure()
    assert error.value.report.verdict == "fail"
    assert error.value.report.text() == report.text()
    message = str(error.value)
    assert message.splitlines()[0] == "<schedule>: fail (1 of 4 checks failed, 1 not evaluated)"
    assert report.text() in message
    assert issubclass(phasecheck.CheckFailed, Exception)
    assert not issubclass(phasecheck.CheckFailed, ValueError)


def test_a_malformed_schedule_file_names_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "phasecheck.schedule/2", "ranks": 3,,}')
    for call in (phasecheck.verify, phasecheck.Schedule.load,
                 lambda path: phasecheck.draw(path, tmp_path / "out.svg")):
        with pytest.raises(phasecheck.InputError) as error:
            call(bad)
        assert isinstance(error.value, ValueError)
        assert str(error.value).startswith(f"{bad}:1:48: invalid JSON")
    assert not (tmp_path / "out.svg").exists()


def test_a_schedule_with_a_rank_outside_names_the_place(tmp_path):
    bad = tmp_path / "outside.json"
    data = json.loads((DATA / "direct-3.json").read_text())
    data["phases"][2]["transfers"][1]["dst"] = 7
    bad.write_text(json.dumps(data))
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.verify(bad)
    assert str(error.value) == f"{bad}: phases[2].transfers[1]: rank 7 does not exist (ranks: 3)"


def test_an_empty_schedule_fails_delivery():
    report = phasecheck.verify(phasecheck.Schedule(3))
    assert report.phases == 0
    assert report.check("delivery").summary == "6 of 6 deliveries never happen"


def test_two_threads_verify_one_schedule_at_once():
    import threading

    s = phasecheck.generate("shift", T.fully_connected(64))
    expected = phasecheck.verify(s).text()
    texts = []
    threads = [threading.Thread(target=lambda: texts.append(phasecheck.verify(s).text()))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert texts == [expected, expected]


def test_uint64_transfers_of_a_big_machine_verify():
    p = 300
    s = phasecheck.Schedule(p, algorithm="rotation")
    ranks = np.arange(p, dtype=np.uint64)
    for k in range(p):
        s.add_phase(np.stack([ranks, (ranks + k) % p], axis=1))
    report = phasecheck.verify(s)
    assert report.verdict == "pass"
    assert report.transfers == p * p


@pytest.mark.parametrize("machine, resource, route", [
    (lambda: T.mesh(2, 4), "link 1 -> 2", ["0", "1", "2"]),
    (lambda: T.ring(8), "link 1 -> 2", ["0", "1", "2"]),
    (lambda: T.cluster([4, 4]), "node 0 (ranks 0-3)", ["node 0"]),
    (lambda: T.dgx1(), "link gpu3 -> gpu0", ["h3", "gpu3", "gpu0", "gpu4", "h4"]),
    (lambda: T.gpu_cluster(2, 4, 1), "link node0 -> network",
     ["h2", "node0", "network", "node1", "h4"]),
])
def test_what_if_every_kind_of_model(machine, resource, route):
    report = phasecheck.verify(FC8_SHIFT, machine())
    contention = report.check("contention")
    assert contention.verdict == "fail"
    example = contention.counterexample
    assert example.resource == resource
    assert example.transfers[0].route == route
    assert example.explanation in report.text()


def test_what_if_models_where_the_shift_fits():
    for machine in (T.hypercube(3), T.xgmi(8), T.nvswitch(8), T.fully_connected(8, ports=2)):
        report = phasecheck.verify(FC8_SHIFT, machine)
        assert report.check("contention").passed, report.text()
        assert report.check("delivery").passed


def test_a_file_name_that_is_not_utf8(tmp_path):
    # Regression (a bug this suite found, fixed): a file whose name is not UTF-8, as os.listdir
    # and os.fsdecode give it (a str with surrogate escapes), cannot be verified, loaded, drawn or
    # written: every path argument raises RuntimeError "Unable to cast Python instance to C++ type
    # (#define PYBIND11_DETAILED_ERROR_MESSAGES ...)", which names neither the argument nor the
    # file (python/src/topology.cpp path_of casts the str to UTF-8; os.fsencode would give the
    # bytes).
    raw = os.fsencode(tmp_path) + b"/odd-\xff.json"
    shutil.copy(DATA / "direct-3.json", raw)
    name = os.fsdecode(raw)
    assert os.path.isfile(name)
    report = phasecheck.verify(name)
    assert report.verdict == "pass"
    assert phasecheck.Schedule.load(name).phases == 3
    out = os.fsdecode(os.fsencode(tmp_path) + b"/out-\xfe.json")
    rotation(3).save(out)
    assert os.path.isfile(os.fsencode(out))
