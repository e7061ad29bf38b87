"""phasecheck.limits and set_limits: the memory and input-size limits of docs/limits.md for the
interpreter's process (each test puts them back)."""

import pytest

import phasecheck
from helpers import FC8_SHIFT

T = phasecheck.topology


def test_limits_are_reported():
    limits = phasecheck.limits()
    assert set(limits) == {"max_memory", "max_input_size"}
    assert limits["max_input_size"] == 1 << 30
    assert limits["max_memory"] > 0


def test_the_input_size_limit(restore_limits):
    phasecheck.set_limits(max_input_size=100)
    assert phasecheck.limits() == {"max_memory": restore_limits["max_memory"],
                                   "max_input_size": 100}
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.verify(FC8_SHIFT)
    assert str(error.value) == f"{FC8_SHIFT}: larger than the input limit of 100 bytes " \
                               "(raise it with --max-input-size)"
    with pytest.raises(phasecheck.InputError, match="larger than the input limit"):
        phasecheck.Schedule.load(FC8_SHIFT)
    phasecheck.set_limits(max_input_size=restore_limits["max_input_size"])
    assert phasecheck.verify(FC8_SHIFT).verdict == "pass"


def test_the_memory_limit(restore_limits):
    phasecheck.set_limits(max_memory=1000)
    assert phasecheck.limits()["max_memory"] == 1000
    assert phasecheck.limits()["max_input_size"] == restore_limits["max_input_size"]
    with pytest.raises(phasecheck.InputError) as error:
        phasecheck.generate("shift", T.fully_connected(512))
    assert "more than the memory limit of 1000 bytes" in str(error.value)
    phasecheck.set_limits(max_memory=restore_limits["max_memory"])
    assert phasecheck.generate("shift", T.fully_connected(512)).phases == 512


def test_none_keeps_a_limit(restore_limits):
    phasecheck.set_limits()
    assert phasecheck.limits() == restore_limits
    phasecheck.set_limits(max_memory=None, max_input_size=12345)
    assert phasecheck.limits() == {"max_memory": restore_limits["max_memory"],
                                   "max_input_size": 12345}
