"""Fixtures of the Python module's tests (docs/testing.md, "The Python module's tests").

Run: PYTHONPATH=build/python/package /usr/bin/python3 -m pytest -q tests/python
The schedules the tests share are in helpers.py; the hand-written files in data/. (pytester, for
the plugin's tests, is requested by test_plugin.py itself: pytest_plugins in a conftest below the
top directory is refused when pytest is run on tests/.)"""

import pytest

import phasecheck


@pytest.fixture
def restore_limits():
    """Puts the process's limits back after a test that changes them."""
    saved = phasecheck.limits()
    yield saved
    phasecheck.set_limits(**saved)
    assert phasecheck.limits() == saved
