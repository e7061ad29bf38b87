"""phasecheck.algorithms, generate and check: the registry from Python."""

import pytest

import phasecheck

T = phasecheck.topology


def by_name():
    return {a["name"]: a for a in phasecheck.algorithms()}


def test_algorithms_lists_names_and_typed_parameters():
    algorithms = phasecheck.algorithms()
    names = [a["name"] for a in algorithms]
    assert len(names) == len(set(names)) >= 40
    for expected in ("shift", "linear", "faraj-yuan", "bruck-index", "linear-v"):
        assert expected in names
    for a in algorithms:
        assert set(a) >= {"name", "summary", "reference", "library", "alltoallv", "parameters"}
        assert a["summary"]
        for parameter in a["parameters"]:
            assert parameter["name"] and parameter["help"]
            assert parameter["type"] in ("unsigned", "boolean", "choice", "text")
            if parameter["type"] == "choice":
                assert parameter["values"]
    table = by_name()
    radix = next(p for p in table["bruck-index"]["parameters"] if p["name"] == "radix")
    assert radix["type"] == "unsigned"
    assert radix["min"] == 2
    assert radix["max"] == "p"  # the rank count
    assert radix["default"] == "2"
    collective = table["shift"]["parameters"][0]
    assert collective["name"] == "collective"
    assert collective["values"] == ["alltoall", "allgather"]
    assert table["linear-v"]["alltoallv"] is True
    assert table["shift"]["alltoallv"] is False


def test_generate_and_check_the_shift():
    t = T.fully_connected(8)
    s = phasecheck.generate("shift", t)
    assert isinstance(s, phasecheck.Schedule)
    assert (s.ranks, s.phases, s.algorithm, s.collective) == (8, 8, "shift", "alltoall")
    assert s.topology == t
    assert s.pairs(1).tolist() == [[i, (i + 1) % 8] for i in range(8)]
    verified = phasecheck.verify(s)
    checked = phasecheck.check("shift", t)
    assert checked.source == "shift on fully-connected(p=8, k=1)"
    for report in (verified, checked):
        assert report.verdict == "pass"
        assert [c.id for c in report.checks] == ["delivery", "contention", "invariants",
                                                 "claims", "bounds"]
        assert (report.phases, report.c1, report.c2) == (8, 7, 7)
    assert checked.text().splitlines()[1:] == verified.text().splitlines()[1:]


def test_generate_and_check_bruck_with_a_radix():
    t = T.fully_connected(8, ports=2)
    s = phasecheck.generate("bruck-index", t, radix=3)
    assert s.parameters == {"radix": "3"}
    assert s.phases == 2
    report = phasecheck.check("bruck-index", t, radix=3)
    assert report.verdict == "pass", report.text()
    assert report.check("claims").passed
    assert report.phases == 2
    # the parameter changes the schedule
    assert phasecheck.generate("bruck-index", t, radix=2) != s
    # str values as the command line's --set takes them
    assert phasecheck.generate("bruck-index", t, radix="3") == s


def test_generate_allgather_and_boolean_parameter():
    t = T.ring(6)
    s = phasecheck.generate("ring", t, collective="allgather", bidirectional=True)
    assert s.collective == "allgather"
    assert s.parameters["bidirectional"] == "true"
    assert phasecheck.verify(s).check("delivery").passed


def test_generate_a_buffer_program():
    program = phasecheck.generate("bruck-index", T.fully_connected(8), buffers=True, radix=2)
    assert isinstance(program.buffers, dict)
    assert program.buffers["chunks"] == 1
    assert program.ops(0)  # a program's phases are ops
    report = phasecheck.verify(program)
    assert report.verdict == "pass", report.text()
    assert report.checks[0].id == "placement"
    assert report.check("placement").passed


def test_generate_alltoallv_with_traffic():
    import numpy as np

    m = np.array([[0, 1, 2], [3, 0, 1], [2, 3, 0]])
    t = T.fully_connected(3)
    s = phasecheck.generate("pairwise-v", t, traffic=m)
    assert s.collective == "alltoallv"
    report = phasecheck.check("pairwise-v", t, traffic=m)
    assert report.check("delivery").passed
    assert report.bytes["cost"] > 0
    with pytest.raises(phasecheck.InputError, match="traffic"):
        phasecheck.generate("pairwise-v", t)


def test_check_linear_on_a_tree_fails_contention():
    report = phasecheck.check("linear", T.tree(fanout=[2, 2]))
    assert report.phases == 1
    contention = report.check("contention")
    assert contention.verdict == "fail"
    example = contention.counterexample
    assert example.phase == 0
    assert example.resource.startswith("link ")
    assert len(example.transfers) == 2
    assert example.transfers[0].route[0].startswith("n")
    assert example.explanation in report.text()
    with pytest.raises(phasecheck.CheckFailed) as error:
        report.raise_for_failure()
    assert error.value.report.check("contention").verdict == "fail"


@pytest.mark.parametrize("call, message", [
    (lambda t: phasecheck.generate("bruck-index", t, radix=1),
     "parameter radix=1: expected an integer in [2, 8] (2..p, p = 8)"),
    (lambda t: phasecheck.check("bruck-index", t, radix=99),
     "parameter radix=99: expected an integer in [2, 8]"),
    (lambda t: phasecheck.generate("bruck-index", t, colour=2),
     "bruck-index has no parameter 'colour' (it takes: collective, radix, ports)"),
    (lambda t: phasecheck.generate("bruck-index", t, radix=1.5),
     "parameter radix: float is not an int, bool or str"),
    (lambda t: phasecheck.generate("bruck-index", t, radix="x"), "parameter radix=x"),
    (lambda t: phasecheck.generate("ompi-ring", t, collective="alltoall"),
     "parameter collective=alltoall: expected one of allgather"),
    (lambda t: phasecheck.generate("no-such-algorithm", t),
     "unknown algorithm 'no-such-algorithm'"),
    (lambda t: phasecheck.check("no-such-algorithm", t), "unknown algorithm 'no-such-algorithm'"),
    (lambda t: phasecheck.generate("shift", "fully-connected"),
     "topology: a phasecheck.Topology is needed"),
    (lambda t: phasecheck.check("shift", t, threads=-1), "threads: -1 is negative"),
])
def test_bad_parameters_name_the_parameter(call, message):
    with pytest.raises(phasecheck.InputError) as error:
        call(T.fully_connected(8))
    assert message in str(error.value)
