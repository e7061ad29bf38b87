"""phasecheck.fuzz: a generator function written in Python, called on the fuzzing machines,
its failure shrunk to a small machine, deterministic for a seed."""

import pytest

import numpy as np
import phasecheck
from helpers import rotation

T = phasecheck.topology


def registered_shift(machine):
    return phasecheck.generate("shift", machine)


def hand_rotation(machine):
    return rotation(machine)


def drops_a_transfer(machine):
    return rotation(machine, drop=(1, 0))


def drops_from_five_ranks(machine):
    return rotation(machine, drop=(1, 0) if machine.ranks >= 5 else None)


@pytest.mark.parametrize("function", [registered_shift, hand_rotation])
def test_a_working_generator_passes(function):
    seen = []

    def recorded(machine):
        assert isinstance(machine, phasecheck.Topology)
        seen.append(machine)
        return function(machine)

    result = phasecheck.fuzz(recorded, cases=40, seed=5)
    assert isinstance(result, phasecheck.FuzzResult)
    assert result.verdict == "pass" and result.passed
    assert result.cases == 40
    assert result.discarded == 0
    assert result.failure is None
    assert result.name == "function 'test_a_working_generator_passes.<locals>.recorded'"
    assert result.seconds >= 0
    assert len(seen) == 40
    # the machines are of several kinds and sizes
    assert len({m.kind for m in seen}) >= 3
    assert len({m.ranks for m in seen}) >= 3
    assert "pass, 40 cases" in result.text()
    assert result.raise_for_failure() is None


def test_a_broken_generator_fails_on_a_small_machine():
    result = phasecheck.fuzz(drops_a_transfer, cases=50, seed=3)
    assert result.verdict == "fail" and not result.passed
    failure = result.failure
    assert isinstance(failure, phasecheck.FuzzFailure)
    assert isinstance(failure.topology, phasecheck.Topology)
    assert failure.topology.ranks == 2  # the smallest machine where phase 1 exists
    assert failure.machine == failure.topology.describe()
    assert failure.schedule == drops_a_transfer(failure.topology)
    assert "delivery" in failure.what
    assert "never reaches rank 1" in failure.what
    assert failure.report.startswith("FAIL  rotation (alltoall) on " + failure.machine)
    assert "delivery: block [0,1] never reaches rank 1" in failure.report
    assert failure.files == []
    assert failure.again == "phasecheck.fuzz(drops_a_transfer, cases=50, seed=3, max_size=40)"
    text = result.text()
    assert "FAIL" in text and failure.machine in text and failure.report in text
    with pytest.raises(phasecheck.CheckFailed) as error:
        result.raise_for_failure()
    assert error.value.fuzz is result
    assert error.value.report is None


def test_a_failure_is_shrunk_to_the_smallest_failing_machine():
    result = phasecheck.fuzz(drops_from_five_ranks, cases=100, seed=11)
    assert result.verdict == "fail"
    # drawn larger, shrunk to five ranks: the fewest on which the generator fails
    assert result.failure.topology.ranks == 5
    assert result.failure.schedule.ranks == 5


def test_the_same_seed_finds_the_same_failure():
    first = phasecheck.fuzz(drops_from_five_ranks, cases=100, seed=11)
    again = phasecheck.fuzz(drops_from_five_ranks, cases=100, seed=11)
    assert first.cases == again.cases
    assert first.failure.machine == again.failure.machine
    assert first.failure.topology == again.failure.topology
    assert first.failure.what == again.failure.what
    assert first.failure.report == again.failure.report
    assert first.failure.schedule == again.failure.schedule


def test_the_same_seed_draws_the_same_machines():
    def machines(seed):
        seen = []
        phasecheck.fuzz(lambda m: seen.append(m.json()) or rotation(m), cases=30, seed=seed)
        return seen

    assert machines(9) == machines(9)
    assert machines(9) != machines(10)


def test_contention_only_when_asked():
    assert phasecheck.fuzz(hand_rotation, cases=60, seed=7).verdict == "pass"
    result = phasecheck.fuzz(hand_rotation, cases=60, seed=7, contention_free=True)
    assert result.verdict == "fail"
    assert "contention" in result.failure.what
    assert "contention_free=True" in result.failure.again


def test_declining_machines_by_none():
    calls = []

    def only_trees(machine):
        calls.append(machine.kind)
        return rotation(machine) if machine.kind == "tree" else None

    result = phasecheck.fuzz(only_trees, cases=10, seed=3)
    assert result.verdict == "pass"
    assert result.cases == 10
    assert result.discarded > 0
    assert len(calls) == result.cases + result.discarded
    assert calls.count("tree") == 10


def test_an_input_error_the_function_lets_out_fails_the_case():
    # Only None declines a machine: an InputError from building the schedule (here a transfer to
    # rank p on machines whose p is a multiple of 3) is a schedule the function could not make,
    # a failure as an external generator's invalid output is, shrunk like any other.
    def forgets_the_modulo(machine):
        p = machine.ranks
        s = phasecheck.Schedule(topology=machine, algorithm="rotation")
        r = np.arange(p)
        for k in range(1, p):
            s.add_phase(np.stack([r, (r + k) % p if p % 3 else r + k], axis=1))
        return s

    result = phasecheck.fuzz(forgets_the_modulo, cases=100, seed=1)
    assert result.verdict == "fail"
    assert "the function's schedule is not valid" in result.failure.what
    assert "add_phase: transfers" in result.failure.what
    assert result.failure.topology.ranks == 3  # the smallest machine that still fails
    assert result.failure.schedule is None


def test_declining_every_machine_is_not_evaluated():
    result = phasecheck.fuzz(lambda machine: None, cases=5, seed=3)
    assert result.verdict == "not-evaluated"
    assert result.cases == 0
    assert result.discarded > 5
    assert "declined too many machines" in result.reason
    with pytest.raises(phasecheck.CheckFailed):
        result.raise_for_failure()


def test_an_exception_of_the_function_propagates():
    calls = []

    def boom(machine):
        calls.append(machine)
        raise RuntimeError("the generator broke")

    with pytest.raises(RuntimeError, match="the generator broke"):
        phasecheck.fuzz(boom, cases=20, seed=1)
    assert len(calls) == 1  # the campaign ends at once


def test_keyboard_interrupt_in_the_function_propagates():
    def interrupted(machine):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        phasecheck.fuzz(interrupted, cases=5)


def test_a_function_returning_something_else():
    with pytest.raises(TypeError, match="returned int, not a phasecheck.Schedule or None"):
        phasecheck.fuzz(lambda machine: 5, cases=5)


def test_a_schedule_for_another_machine_fails():
    result = phasecheck.fuzz(lambda m: rotation(m.ranks + 1), cases=5, seed=1)
    assert result.verdict == "fail"
    assert "cannot be judged on this machine" in result.failure.what


def test_out_writes_the_failure(tmp_path):
    result = phasecheck.fuzz(drops_a_transfer, cases=50, seed=3, out=tmp_path)
    failure = result.failure
    assert sorted(failure.files) == sorted(str(tmp_path / name) for name in
                                           ("topology.json", "schedule.json", "report.txt"))
    assert T.load(tmp_path / "topology.json") == failure.topology
    assert phasecheck.Schedule.load(tmp_path / "schedule.json") == failure.schedule
    assert (tmp_path / "report.txt").read_text() == failure.report
    assert phasecheck.verify(tmp_path / "schedule.json").failures[0].id == "delivery"
    assert str(tmp_path / "schedule.json") in failure.replay


def test_a_passing_campaign_writes_nothing(tmp_path):
    result = phasecheck.fuzz(hand_rotation, cases=10, seed=3, out=tmp_path / "out")
    assert result.passed
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def test_max_size_bounds_the_machines():
    def largest(max_size):
        sizes = []
        phasecheck.fuzz(lambda m: sizes.append(m.ranks) or rotation(m), cases=60, seed=2,
                        max_size=max_size)
        return max(sizes)

    assert largest(1) < largest(40)


def test_the_written_failure_replays(tmp_path):
    # Regression (a bug this suite found, fixed): a function that builds its schedule on another
    # model than the machine it was given (here Schedule(machine.ranks): fully connected, the
    # natural thing to write) fails on the machine, but fuzz(out=DIR) writes schedule.json with
    # the schedule's own topology and gives replay "phasecheck verify DIR/schedule.json", without
    # DIR/topology.json: the replay passes.
    result = phasecheck.fuzz(lambda machine: rotation(machine.ranks), cases=60, seed=7,
                             contention_free=True, out=tmp_path)
    failure = result.failure
    assert failure.topology != failure.schedule.topology
    assert phasecheck.verify(tmp_path / "schedule.json", tmp_path / "topology.json").verdict == \
        "fail"
    # what the replay command runs shows the failure
    topology = tmp_path / "topology.json" if "topology.json" in failure.replay else None
    assert phasecheck.verify(tmp_path / "schedule.json", topology).verdict == "fail", \
        failure.replay
