"""phasecheck.gate and gate_cases: a manifest of cases (docs/ci.md) compared with baselines."""

import json

import pytest

import phasecheck

T = phasecheck.topology


@pytest.fixture
def manifest(tmp_path):
    """A manifest with an algorithm against its figures, an algorithm against a schedule file,
    and a regression (bruck-index of radix 2 against better figures than it has)."""
    machine = T.fully_connected(8)
    machine.save(tmp_path / "fc8.json")
    phasecheck.generate("shift", machine).save(tmp_path / "shift.json")
    cases = [
        {"name": "shift, figures", "topology": "fc8.json", "algorithm": "shift",
         "baseline": {"phases": 8, "C1": 7, "C2": 7}},
        {"name": "shift, file", "topology": "fc8.json", "algorithm": "shift",
         "baseline": "shift.json"},
        {"name": "bruck, regressed", "topology": "fc8.json", "algorithm": "bruck-index",
         "parameters": {"radix": "2"}, "baseline": {"phases": 2, "C1": 2, "C2": 2}},
    ]
    path = tmp_path / "gate.json"
    path.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": cases}))
    return path


def test_gate_cases(manifest):
    assert phasecheck.gate_cases(manifest) == ["shift, figures", "shift, file", "bruck, regressed"]
    assert phasecheck.gate_cases(str(manifest)) == phasecheck.gate_cases(manifest)


def test_gate(manifest):
    verdict, cases, text = phasecheck.gate(manifest)
    assert verdict == "fail"
    assert [(name, v) for name, v, _ in cases] == [("shift, figures", "pass"),
                                                   ("shift, file", "pass"),
                                                   ("bruck, regressed", "fail")]
    shift_text = cases[0][2]
    assert "PASS" in shift_text and "no regression" in shift_text
    assert "the two tables are identical" in cases[1][2]
    regressed = cases[2][2]
    assert "regression  more-phases: phases 2 -> 3" in regressed
    assert "regression  larger-c2: C2 2 -> 12" in regressed
    assert "2 of 3 cases pass" in text
    assert "bruck, regressed" in text


def test_gate_allows_regressions(manifest):
    verdict, cases, _ = phasecheck.gate(manifest, allow=["more-phases", "larger-c1", "larger-c2"])
    assert verdict == "pass"
    assert [v for _, v, _ in cases] == ["pass", "pass", "pass"]


def test_gate_is_deterministic(manifest):
    assert phasecheck.gate(manifest) == phasecheck.gate(manifest)


def test_gate_refuses_generators_when_asked(tmp_path):
    T.fully_connected(4).save(tmp_path / "fc4.json")
    path = tmp_path / "generators.json"
    path.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "ours", "topology": "fc4.json", "generator": "false",
         "baseline": {"phases": 4, "C1": 3, "C2": 3}}]}))
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.gate(path, generators=False)
    assert str(path) in str(error.value)
    assert "--no-generators: cases[0] 'ours' run a generator" in str(error.value)


def test_gate_refuses_paths_outside_the_manifest(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "repo").mkdir()
    T.fully_connected(4).save(tmp_path / "outside" / "fc4.json")
    path = tmp_path / "repo" / "gate.json"
    path.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "out", "topology": "../outside/fc4.json", "algorithm": "shift",
         "baseline": {"phases": 4, "C1": 3, "C2": 3}}]}))
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.gate(path)
    assert "cases[0].topology (case 'out')" in str(error.value)
    assert "outside the manifest's directory" in str(error.value)
    verdict, cases, _ = phasecheck.gate(path, allow_outside=[tmp_path / "outside"])
    assert verdict == "pass" and cases[0][:2] == ("out", "pass")


def test_gate_bad_manifests(tmp_path):
    bad = tmp_path / "syntax.json"
    bad.write_text('{"format": ')
    with pytest.raises(phasecheck.InputError, match=r"syntax\.json:1:12: invalid JSON"):
        phasecheck.gate_cases(bad)
    with pytest.raises(phasecheck.InputError, match=r"syntax\.json"):
        phasecheck.gate(bad)
    T.fully_connected(4).save(tmp_path / "fc4.json")
    parameter = tmp_path / "parameter.json"
    parameter.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "bad radix", "topology": "fc4.json", "algorithm": "bruck-index",
         "parameters": {"radix": "99"}, "baseline": {"phases": 2, "C1": 2, "C2": 2}}]}))
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.gate(parameter)
    assert "case 'bad radix'" in str(error.value)
    assert "parameter radix=99" in str(error.value)
    with pytest.raises(phasecheck.InputError, match="allow: a list of str is needed, not str"):
        phasecheck.gate(parameter, allow="more-phases")


def test_gate_runs_a_generator(tmp_path):
    # a generator reads the topology on stdin and prints the schedule; this one prints a file
    machine = T.fully_connected(4)
    machine.save(tmp_path / "fc4.json")
    phasecheck.generate("shift", machine).save(tmp_path / "made.json")
    path = tmp_path / "gate.json"
    path.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "ours", "topology": "fc4.json", "generator": "cat made.json",
         "baseline": {"phases": 4, "C1": 3, "C2": 3}}]}))
    verdict, cases, _ = phasecheck.gate(path)
    assert verdict == "pass"
    assert cases[0][:2] == ("ours", "pass")
    assert "phases               4       4" in cases[0][2]


def test_gate_times_a_generator_out(tmp_path):
    T.fully_connected(4).save(tmp_path / "fc4.json")
    path = tmp_path / "gate.json"
    path.write_text(json.dumps({"format": "phasecheck.gate/1", "cases": [
        {"name": "slow", "topology": "fc4.json", "generator": "sleep 30",
         "baseline": {"phases": 4, "C1": 3, "C2": 3}}]}))
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.gate(path, timeout=0.5)
    assert "case 'slow': the generator failed (timed out after 0.5 s)" in str(error.value)
    with pytest.raises(phasecheck.InputError, match="timeout"):
        phasecheck.gate(path, timeout=-1)
