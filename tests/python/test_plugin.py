"""The pytest plugin (phasecheck.pytest_plugin): the fixture phasecheck_assert on a passing and
a failing directory, on a Schedule and on a generator; --phasecheck-manifest; and
phasecheck.assert_verifies, which the fixture wraps. pytester runs pytest inside these tests."""

import json
import shutil

import pytest

import phasecheck
from helpers import DATA, MSCCL_XML, MSCCLPP_DEADLOCK, MSCCLPP_PLAN

pytest_plugins = ["pytester"]

T = phasecheck.topology

# The plugin by name, and no other: installed by pip, its entry point would load it a second
# time next to -p.
PLUGIN = ("-p", "phasecheck.pytest_plugin")


@pytest.fixture
def run(pytester, monkeypatch):
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")

    def runner(*args):
        return pytester.runpytest(*PLUGIN, "-p", "no:cacheprovider", *args)

    return runner


def fill(directory, *, failing=False):
    """A directory of schedule files of every format that verify; failing=True adds a schedule
    with contention (data/contention-3.json)."""
    directory.mkdir()
    shift = phasecheck.generate("shift", T.fully_connected(4))
    shift.save(directory / "shift.json")
    shift.save(directory / "shift.pcsb", format="binary")
    shift.save(directory / "shift.xml", format="msccl")
    shutil.copy(MSCCL_XML, directory / "alltoall-3.xml")
    shutil.copy(MSCCLPP_PLAN, directory / "alltoall-3-plan.json")
    (directory / "notes.txt").write_text("not a schedule, skipped by its extension\n")
    if failing:
        shutil.copy(DATA / "contention-3.json", directory / "z-contention.json")
    return directory


def test_assert_verifies_a_passing_directory(tmp_path):
    directory = fill(tmp_path / "good")
    reports = phasecheck.assert_verifies(directory)
    assert len(reports) == 5
    assert sorted(r.source.rsplit("/", 1)[-1] for r in reports) == [
        "alltoall-3-plan.json", "alltoall-3.xml", "shift.json", "shift.pcsb", "shift.xml"]
    assert all(r.verdict == "pass" for r in reports)
    assert phasecheck.assert_verifies(directory / "shift.json")[0].phases == 4


def test_assert_verifies_a_failing_directory(tmp_path):
    directory = fill(tmp_path / "bad", failing=True)
    with pytest.raises(phasecheck.CheckFailed) as error:
        phasecheck.assert_verifies(directory)
    assert error.value.report.source == str(directory / "z-contention.json")
    assert error.value.report.failures[0].counterexample.phase == 1
    assert "rank 0 must send 2 transfers in phase 1 but has 1 send port" in str(error.value)


def test_assert_verifies_a_directory_with_a_malformed_file(tmp_path):
    directory = fill(tmp_path / "malformed")
    (directory / "broken.json").write_text('{"format": "phasecheck.schedule/1",,}')
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.assert_verifies(directory)
    assert str(error.value).startswith(f"{directory / 'broken.json'}:1:")


def test_assert_verifies_an_empty_directory(tmp_path):
    with pytest.raises(phasecheck.InputError, match="no schedule files"):
        phasecheck.assert_verifies(tmp_path)


def test_the_fixture_on_a_passing_and_a_failing_directory(run, pytester, tmp_path):
    good = fill(tmp_path / "good")
    bad = fill(tmp_path / "bad", failing=True)
    pytester.makepyfile(test_schedules=f"""
        def test_good(phasecheck_assert):
            reports = phasecheck_assert({str(good)!r})
            assert len(reports) == 5

        def test_bad(phasecheck_assert):
            phasecheck_assert({str(bad)!r})
    """)
    result = run("-q")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert "test_bad" in output
    assert "FAIL  hand-contention (alltoall) on fully-connected(p=3, k=1)" in output
    assert "contention: rank 0 must send 2 transfers in phase 1 but has 1 send port" in output
    assert "shared: send ports of rank 0 (k = 1)" in output
    # the report once, not chained to the CheckFailed it came from
    assert "During handling of the above exception" not in output
    assert output.count("FAIL  hand-contention") == 1


def test_the_fixture_on_schedules_and_a_what_if(run, pytester):
    pytester.makepyfile(test_held="""
        import phasecheck

        def test_shift(phasecheck_assert):
            t = phasecheck.topology.fully_connected(8)
            [report] = phasecheck_assert(phasecheck.generate("shift", t))
            assert report.verdict == "pass"

        def test_on_a_tree(phasecheck_assert):
            s = phasecheck.generate("shift", phasecheck.topology.fully_connected(8))
            phasecheck_assert(s, topology=phasecheck.topology.tree(fanout=[2, 4]))
    """)
    result = run("-q")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert "transfers 2 -> 4 and 3 -> 5 both use the directed link s1.0 -> s0.0" in output


def test_the_fixture_on_a_deadlocking_plan(run, pytester):
    pytester.makepyfile(test_plan=f"""
        def test_plan(phasecheck_assert):
            phasecheck_assert({str(MSCCLPP_DEADLOCK)!r})
    """)
    result = run("-q")
    result.assert_outcomes(failed=1)
    assert "deadlock" in result.stdout.str()


def test_the_fixture_on_generators(run, pytester):
    pytester.makepyfile(test_generators="""
        import numpy as np
        import phasecheck

        def rotation(machine, drop=False):
            p = machine.ranks
            s = phasecheck.Schedule(topology=machine, algorithm="rotation")
            ranks = np.arange(p)
            for k in range(p):
                pairs = np.stack([ranks, (ranks + k) % p], axis=1)
                s.add_phase(pairs[1:] if drop and k == 1 else pairs)
            return s

        def test_works(phasecheck_assert):
            result = phasecheck_assert.generator(rotation, cases=30, seed=4)
            assert result.cases == 30

        def test_broken(phasecheck_assert):
            phasecheck_assert.generator(lambda m: rotation(m, drop=True), cases=30, seed=4)
    """)
    result = run("-q")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str()
    assert "smallest machine: fully-connected(p=2, k=1)" in output
    assert "never reaches rank 1" in output


def test_the_manifest_option(run, pytester, tmp_path):
    machine = T.fully_connected(4)
    machine.save(tmp_path / "fc4.json")
    manifest = tmp_path / "gate.json"
    manifest.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "shift", "topology": "fc4.json", "algorithm": "shift",
         "baseline": {"phases": 4, "C1": 3, "C2": 3}},
        {"name": "bruck", "topology": "fc4.json", "algorithm": "bruck-index",
         "parameters": {"radix": "2"}, "baseline": {"phases": 2, "C1": 2, "C2": 4}},
        {"name": "shift, claimed better", "topology": "fc4.json", "algorithm": "shift",
         "baseline": {"phases": 3, "C1": 3, "C2": 3}},
    ]}))
    result = run("-v", "--phasecheck-manifest", str(manifest))
    result.assert_outcomes(passed=2, failed=1)
    output = result.stdout.str()
    assert "gate.json::shift PASSED" in output
    assert "gate.json::bruck PASSED" in output
    assert "gate.json::shift, claimed better FAILED" in output
    assert "regression  more-phases: phases 3 -> 4" in output
    # selected by the marker
    marked = run("-q", "-m", "phasecheck", "--phasecheck-manifest", str(manifest))
    marked.assert_outcomes(passed=2, failed=1)
    # allowed regressions pass
    allowed = run("-q", "--phasecheck-manifest", str(manifest),
                  "--phasecheck-allow", "more-phases")
    allowed.assert_outcomes(passed=3)


def test_the_manifest_option_beside_test_files(run, pytester, tmp_path):
    T.fully_connected(4).save(tmp_path / "fc4.json")
    manifest = tmp_path / "gate.json"
    manifest.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "shift", "topology": "fc4.json", "algorithm": "shift",
         "baseline": {"phases": 4, "C1": 3, "C2": 3}}]}))
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = run("-q", "test_plain.py", "--phasecheck-manifest", str(manifest))
    result.assert_outcomes(passed=2)


def test_the_manifest_option_with_a_case_that_cannot_run(run, pytester, tmp_path):
    T.fully_connected(4).save(tmp_path / "fc4.json")
    manifest = tmp_path / "gate.json"
    manifest.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "bad radix", "topology": "fc4.json", "algorithm": "bruck-index",
         "parameters": {"radix": "99"}, "baseline": {"phases": 2, "C1": 2, "C2": 2}}]}))
    result = run("-q", "--phasecheck-manifest", str(manifest))
    result.assert_outcomes(failed=1)
    assert "parameter radix=99" in result.stdout.str()
