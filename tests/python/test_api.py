"""The package as a whole: every public name, a light import (no NumPy, Z3, SimGrid or MPI
loaded by `import phasecheck`; its time is bench/python_verify.py's figure, not a test's), and
type stubs for every native name."""

import ast
import os
import pathlib
import subprocess

import phasecheck
import phasecheck._native as native


def test_every_public_name_exists():
    for name in phasecheck.__all__:
        assert hasattr(phasecheck, name), name
    for name in phasecheck.topology.__all__:
        assert callable(getattr(phasecheck.topology, name)), name
    assert issubclass(phasecheck.InputError, ValueError)
    assert issubclass(phasecheck.CheckFailed, Exception)
    report = phasecheck.check("shift", phasecheck.topology.fully_connected(4))
    assert isinstance(report, phasecheck.Report)
    assert all(isinstance(c, phasecheck.Check) for c in report.checks)
    assert all(isinstance(b, phasecheck.Bound) for b in report.bounds)
    assert repr(report.checks[0]) == "<Check delivery: pass>"


IMPORT = """
import sys
import phasecheck
maps = open("/proc/self/maps").read().lower()
print("phasecheck._native" in sys.modules, "numpy" in sys.modules,
      *(name in maps for name in ("libz3", "simgrid", "libmpi")))
"""


def test_import_is_light():
    out = subprocess.run(["/usr/bin/python3", "-c", IMPORT], env=dict(os.environ), check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[0] == "True", "the native module was not imported"
    assert out[1:] == ["False", "False", "False", "False"], "numpy, z3, simgrid, mpi loaded"


def stub_names(path):
    tree = ast.parse(path.read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            names.update((t.id, node) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):  # from . import topology as topology
            names.update((a.asname or a.name, node) for a in node.names)
    return names


def test_type_stubs_cover_the_native_module():
    package = pathlib.Path(phasecheck.__file__).parent
    assert (package / "py.typed").exists()
    stubs = stub_names(package / "_native.pyi")
    public = [name for name in dir(native) if not name.startswith("__")]
    assert [name for name in public if name not in stubs] == []
    for name in public:
        obj = getattr(native, name)
        if not isinstance(obj, type) or issubclass(obj, BaseException):
            continue
        members = {m.name for m in stubs[name].body if isinstance(m, ast.FunctionDef)}
        members |= {m.target.id for m in stubs[name].body if isinstance(m, ast.AnnAssign)}
        missing = [m for m in dir(obj) if not m.startswith("_") and m not in members]
        assert missing == [], f"{name}: {missing}"
    topology = {n.name for n in ast.parse((package / "topology.pyi").read_text()).body
                if isinstance(n, ast.FunctionDef)}
    assert [n for n in phasecheck.topology.__all__ if n != "Topology" and n not in topology] == []
