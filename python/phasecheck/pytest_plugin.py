"""pytest plugin of phasecheck (docs/python.md): `pytest -p phasecheck.pytest_plugin`, or loaded
by the `pytest11` entry point when the package is installed with pip.

- The fixture `phasecheck_assert`: `phasecheck_assert(target, topology=None)` verifies a Schedule,
  a schedule file or every schedule file of a directory (MSCCL XML, MSCCL++ plans, JSON, binary)
  and fails the test with the counterexample text unless each passes;
  `phasecheck_assert.generator(fn, cases=100, seed=1)` fuzzes a generator function on the
  fuzzing machines (phasecheck.fuzz) and fails with the smallest failing case.
- `pytest --phasecheck-manifest gate.json`: every case of a gate manifest (docs/ci.md) is a test,
  failing with the case's comparison against its baseline; with no other paths given, only the
  manifests are collected. Items carry the marker `phasecheck` (select them with -m phasecheck).
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

import pytest

import phasecheck


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("phasecheck", "phasecheck schedules (docs/python.md)")
    group.addoption("--phasecheck-manifest", action="append", default=[], metavar="GATE_JSON",
                    help="run every case of this gate manifest as a test (repeatable)")
    group.addoption("--phasecheck-allow", action="append", default=[], metavar="REGRESSION",
                    help="a regression the manifest's cases may show (as `phasecheck gate "
                         "--allow`; repeatable)")
    group.addoption("--phasecheck-allow-outside", action="append", default=[], metavar="DIR",
                    help="a directory outside the manifest's own that its paths may lead into "
                         "(as `phasecheck gate --allow-outside`; repeatable)")
    group.addoption("--phasecheck-no-generators", action="store_true", default=False,
                    help="refuse the manifest's cases that run an external generator "
                         "(pull requests)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "phasecheck: a schedule check of phasecheck's")
    manifests = [os.path.abspath(m) for m in config.getoption("--phasecheck-manifest")]
    if manifests:
        # The manifests are collected like files given on the command line; alone when no
        # other path was given.
        if not config.option.file_or_dir:
            config.args = manifests
        else:
            config.args = list(config.args) + manifests


def pytest_collect_file(file_path: Any, parent: pytest.Collector) -> Optional[pytest.Collector]:
    manifests = {os.path.abspath(m) for m in parent.config.getoption("--phasecheck-manifest")}
    if os.path.abspath(str(file_path)) in manifests:
        return GateManifest.from_parent(parent, path=file_path)
    return None


class GateManifest(pytest.File):
    """A gate manifest: one test per case. The gate runs once, when its first case runs."""

    def collect(self):
        for name in phasecheck.gate_cases(str(self.path)):
            item = GateCase.from_parent(self, name=name)
            item.add_marker("phasecheck")
            yield item

    def results(self) -> dict:
        """Each case's (verdict, text); the gate's InputError (a case that cannot run, a path
        outside the manifest's directory) is every case's error."""
        if not hasattr(self, "_results"):
            config = self.config
            try:
                _, cases, _ = phasecheck.gate(
                    str(self.path), allow=config.getoption("--phasecheck-allow"),
                    generators=not config.getoption("--phasecheck-no-generators"),
                    allow_outside=config.getoption("--phasecheck-allow-outside"))
                self._results = {name: (verdict, text) for name, verdict, text in cases}
            except phasecheck.InputError as error:
                self._results = error
        if isinstance(self._results, Exception):
            raise self._results
        return self._results


class GateCaseFailed(Exception):
    """A gate case that regressed: its comparison's text."""


class GateCase(pytest.Item):
    def runtest(self) -> None:
        verdict, text = self.parent.results()[self.name]
        if verdict != "pass":
            raise GateCaseFailed(text)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (GateCaseFailed, phasecheck.InputError)):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"gate case {self.name}"


class Assert:
    """What the fixture `phasecheck_assert` gives a test."""

    def __call__(self, target: Any, topology: Any = None, *, threads: int = 0) -> list:
        """Verifies a Schedule, a schedule file or a directory of them; fails the test with the
        first failing report's text (its counterexample). Returns the reports."""
        try:
            return phasecheck.assert_verifies(target, topology, threads=threads)
        except phasecheck.CheckFailed as failed:
            message = str(failed)
        # Outside the except block, so that pytest shows the report once, not chained.
        pytest.fail(message, pytrace=False)

    def generator(self, function: Callable, *, cases: int = 100, seed: int = 1,
                  max_size: int = 40, contention_free: bool = False,
                  out: Any = None) -> "phasecheck.FuzzResult":
        """Fuzzes `function` (phasecheck.fuzz); fails the test with the smallest failing case,
        or when the function declined too many machines to judge it."""
        result = phasecheck.fuzz(function, cases=cases, seed=seed, max_size=max_size,
                                 contention_free=contention_free, out=out)
        if not result.passed:
            pytest.fail(result.text(), pytrace=False)
        return result


@pytest.fixture
def phasecheck_assert() -> Assert:
    """Asserts that schedules verify and that generators keep producing valid ones."""
    return Assert()
