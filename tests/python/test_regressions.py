"""What the review of the module found, each kept as a regression test: a program's execution
faults are not lost by saving it, a Schedule changed while another thread reads it is refused
rather than crashing the interpreter, and every hostile value is an InputError naming it."""

import os
import threading

import numpy as np
import pytest

import phasecheck
from helpers import REPO, rotation

DROPPED_SIGNAL = REPO / "tests/cli/mscclpp/alltoall-3-dropped-signal.json"


def test_a_faulty_imported_program_is_not_saved_without_its_faults(tmp_path):
    # `phasecheck import` refuses to write it: the JSON would not carry the faults, and verify.
    program = phasecheck.Schedule.load(DROPPED_SIGNAL)
    assert phasecheck.verify(program).check("execution").verdict == "fail"
    for form in ("json", "binary"):
        with pytest.raises(phasecheck.CheckFailed) as failed:
            program.save(tmp_path / f"p.{form}", format=form)
        assert failed.value.report.check("execution").verdict == "fail"
        assert "nothing written" in str(failed.value)
        assert not (tmp_path / f"p.{form}").exists()
    with pytest.raises(phasecheck.CheckFailed):
        program.json()


def test_changing_a_schedule_while_another_thread_verifies_it_is_refused():
    schedule = rotation(phasecheck.topology.fully_connected(256))
    phases = len(schedule)
    reports, refused, done = [], [], threading.Event()

    def verify_many():
        for _ in range(20):
            reports.append(phasecheck.verify(schedule, threads=2))
        done.set()

    worker = threading.Thread(target=verify_many)
    worker.start()
    added = 0
    while not done.is_set():
        try:
            schedule.add_phase(np.array([[0, 1]]))
            added += 1
        except phasecheck.InputError as error:
            assert "being verified, drawn or saved by another thread" in str(error)
            refused.append(error)
    worker.join()
    # The interpreter is alive, every report is whole, and the changes that ran did so between
    # verifications.
    assert len(reports) == 20 and refused
    assert all(r.phases >= phases for r in reports)
    assert len(schedule) == phases + added


def test_generate_holds_the_table_only_within_the_memory_limit():
    before = phasecheck.limits()
    try:
        phasecheck.set_limits(max_memory=1 << 20)
        with pytest.raises(phasecheck.InputError, match="generate shift on 1000 ranks"):
            phasecheck.generate("shift", phasecheck.topology.fully_connected(1000))
        with pytest.raises(phasecheck.InputError, match="memory limit"):
            phasecheck.generate("shift", phasecheck.topology.fully_connected(1000), buffers=True)
    finally:
        phasecheck.set_limits(**before)


def test_a_message_from_a_file_that_is_not_utf8_is_escaped(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_bytes(b'{"format": "phasecheck.schedule/2", "algorithm": "x\xff')
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.verify(bad)
    assert str(error.value) and "bad.json" in str(error.value)


def test_the_source_of_a_report_on_a_file_whose_name_is_not_utf8(tmp_path):
    name = os.path.join(os.fsencode(tmp_path), b"odd-\xff.json")
    with open(name, "wb") as out, open(REPO / "examples/ring-6/shift.json", "rb") as schedule:
        out.write(schedule.read())
    report = phasecheck.verify(name)
    assert report.phases > 0 and "odd-" in report.source
    assert "odd-" in report.text()


@pytest.mark.parametrize("call, message", [
    (lambda: phasecheck.verify("a\0b"), "schedule: the path holds a NUL character"),
    (lambda: rotation(4).save("out.json\0zzz"), "save: path: the path holds a NUL character"),
    (lambda: phasecheck.Schedule(3, buffers={"inplace": "no"}),
     r"buffers\['inplace'\]: True or False is needed, not str"),
    (lambda: phasecheck.gate(REPO / "examples/gate.json", allow=["nope"]),
     r"allow\[0\]: unknown regression 'nope'"),
    (lambda: phasecheck.gate(REPO / "examples/gate.json", timeout=10**400),
     "timeout: .* seconds is out of range"),
    (lambda: phasecheck.Schedule(3, buffers={"chunks": 1}).add_program_phase(
        [(0, 1, "\udcff", 0, "output", 0)]), r"ops\[0\]\[2\]: the str is not valid Unicode"),
    (lambda: phasecheck.generate("bruck-index", phasecheck.topology.ring(4), radix="\udcff"),
     "parameter radix: the str is not valid Unicode"),
    (lambda: phasecheck.fuzz(lambda m: None, out="/etc/passwd"), "out: /etc/passwd exists"),
    (lambda: phasecheck.Schedule(4).add_phase(
        np.array([[0, 1]]),
        blocks=np.lib.stride_tricks.as_strided(np.array([0, 1]), (2**33, 2), (0, 8)),
        offsets=np.array([0, 2**33])), "add_phase: blocks and offsets of 8589934592"),
    (lambda: phasecheck.Schedule(4).add_phase(
        np.lib.stride_tricks.as_strided(np.array([0, 1]), (2**40, 2), (0, 8))),
     "add_phase: transfers: "),
])
def test_hostile_values_are_input_errors_naming_them(call, message):
    with pytest.raises(phasecheck.InputError, match=message):
        call()


def test_a_hugely_negative_phase_index_is_an_index_error():
    with pytest.raises(IndexError):
        rotation(4).label(-2**70)


def test_draw_refuses_the_report_of_another_schedule(tmp_path):
    small = rotation(phasecheck.topology.fully_connected(8))
    report = phasecheck.verify(small, phasecheck.topology.tree(fanout=[2, 4]))
    assert report.check("contention").verdict == "fail"
    assert phasecheck.draw(small, tmp_path / "mine.svg", report=report)
    other = phasecheck.generate("linear", phasecheck.topology.fully_connected(64))
    with pytest.raises(phasecheck.InputError, match="not this schedule's report"):
        phasecheck.draw(other, tmp_path / "x.svg", report=report)
    assert not (tmp_path / "x.svg").exists()
