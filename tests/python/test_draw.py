"""phasecheck.draw, and the one writer every output goes through (core/files.hpp write_output):
no directory, FIFO or link leading out of the current directory is written over."""

import os

import pytest

import phasecheck
from helpers import FC8_SHIFT, FIG1_LINEAR, rotation

T = phasecheck.topology


def is_svg(path):
    text = path.read_text()
    assert text.startswith("<svg") or text.startswith("<?xml"), text[:80]
    assert text.rstrip().endswith("</svg>")
    return text


def test_draw_the_phase_grid(tmp_path):
    s = phasecheck.generate("shift", T.fully_connected(8))
    drawn = phasecheck.draw(s, tmp_path / "grid.svg")
    assert drawn == "8 ranks x 8 phases in 8 x 8 cells, one per rank and phase"
    is_svg(tmp_path / "grid.svg")


def test_draw_a_file(tmp_path):
    drawn = phasecheck.draw(FIG1_LINEAR, str(tmp_path / "linear.svg"))
    assert drawn.startswith("6 ranks x 1 phases")
    is_svg(tmp_path / "linear.svg")


def test_draw_links_on_a_tree(tmp_path):
    tree = T.tree(fanout=[2, 4])
    drawn = phasecheck.draw(phasecheck.generate("shift", tree), tmp_path / "links.svg", links=True)
    assert drawn == "link loads of 22 directed links x 8 phases; bottleneck link s1.0 -> s0.0 " \
                    "(load 16)"
    assert "s1.0" in is_svg(tmp_path / "links.svg")


def test_draw_links_needs_a_routed_machine(tmp_path):
    with pytest.raises(phasecheck.InputError, match="routed machine"):
        phasecheck.draw(rotation(4), tmp_path / "links.svg", links=True)
    assert not (tmp_path / "links.svg").exists()


def test_draw_a_counterexample(tmp_path):
    s = phasecheck.Schedule.load(FC8_SHIFT)
    report = phasecheck.verify(s, T.tree(fanout=[2, 4]))
    drawn = phasecheck.draw(s, tmp_path / "conflict.svg", report=report)
    assert drawn == "the counterexample of contention in phase 2"
    text = is_svg(tmp_path / "conflict.svg")
    assert "s1.0" in text
    # from the file too
    assert phasecheck.draw(FC8_SHIFT, tmp_path / "conflict2.svg", report=report) == drawn
    is_svg(tmp_path / "conflict2.svg")


def test_draw_a_report_with_nothing_to_draw(tmp_path):
    passing = phasecheck.verify(rotation(4))
    assert phasecheck.draw(rotation(4), tmp_path / "none.svg", report=passing) is None
    # a block that never arrives lies in no phase
    lost = rotation(4, drop=(1, 0))
    report = phasecheck.verify(lost)
    assert report.failures[0].counterexample.phase is None
    assert phasecheck.draw(lost, tmp_path / "none.svg", report=report) is None
    assert not (tmp_path / "none.svg").exists()


def test_draw_bad_arguments(tmp_path):
    with pytest.raises(phasecheck.InputError, match="report: a phasecheck.Report is needed"):
        phasecheck.draw(rotation(4), tmp_path / "x.svg", report="report")
    with pytest.raises(phasecheck.InputError, match="path: a path .* is needed, not int"):
        phasecheck.draw(rotation(4), 3)
    with pytest.raises(phasecheck.InputError, match="schedule: .* not list"):
        phasecheck.draw([(0, 1)], tmp_path / "x.svg")


def writers(tmp_path):
    """Every call that writes a file of the caller's naming."""
    s = rotation(4)
    return {
        "draw": lambda path: phasecheck.draw(s, path),
        "save json": lambda path: s.save(path),
        "save binary": lambda path: s.save(path, format="binary"),
        "save msccl": lambda path: s.save(path, format="msccl"),
        "topology save": lambda path: T.ring(4).save(path),
    }


@pytest.mark.parametrize("writer", ["draw", "save json", "save binary", "save msccl",
                                    "topology save"])
def test_refuses_a_directory(writer, tmp_path):
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(phasecheck.InputError, match="is a directory, not a file"):
        writers(tmp_path)[writer](target)
    assert os.listdir(target) == []


def test_refuses_a_fifo_with_no_reader(tmp_path):
    # (the writer waits 2 s for a reader: one case only; every writer is the same function)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(phasecheck.InputError, match="cannot write to a FIFO"):
        writers(tmp_path)["draw"](fifo)


@pytest.mark.parametrize("writer", ["draw", "save json", "save binary", "topology save"])
def test_refuses_a_link_leading_out_of_the_current_directory(writer, tmp_path, monkeypatch):
    inside = tmp_path / "checkout"
    outside = tmp_path / "home"
    inside.mkdir()
    outside.mkdir()
    victim = outside / "bashrc"
    victim.write_text("keep me\n")
    (inside / "out.svg").symlink_to(victim)
    monkeypatch.chdir(inside)
    with pytest.raises(phasecheck.InputError) as error:
        writers(tmp_path)[writer]("out.svg")
    assert "out.svg" in str(error.value)
    assert "outside the current directory" in str(error.value)
    assert victim.read_text() == "keep me\n"
    assert (inside / "out.svg").is_symlink()


def test_refuses_a_dangling_link(tmp_path):
    (tmp_path / "dangling.svg").symlink_to(tmp_path / "missing" / "x.svg")
    with pytest.raises(phasecheck.InputError, match="refusing to create a file through it"):
        phasecheck.draw(rotation(4), tmp_path / "dangling.svg")
    assert not (tmp_path / "missing").exists()


def test_follows_a_link_that_stays_inside(tmp_path, monkeypatch):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "real.svg").write_text("old")
    (tmp_path / "out.svg").symlink_to(tmp_path / "build" / "real.svg")
    monkeypatch.chdir(tmp_path)
    phasecheck.draw(rotation(4), "out.svg")
    assert (tmp_path / "out.svg").is_symlink()
    is_svg(tmp_path / "build" / "real.svg")


def test_replaces_a_regular_file(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("old")
    rotation(3).save(path)
    assert phasecheck.Schedule.load(path) == rotation(3)
