"""The GIL is released while the module works, and Ctrl-C stops a long call."""

import os
import signal
import subprocess
import textwrap
import threading
import time

import pytest

import phasecheck
from helpers import SLOW

T = phasecheck.topology


@pytest.fixture(scope="module")
def large_schedule():
    # 2048 ranks, 4 M transfers: about 0.1 s to verify on one thread (0.5 s under ASan)
    return phasecheck.generate("shift", T.fully_connected(2048))


def run_beside_the_main_thread(work):
    """Runs work() in a thread while the main thread stamps the time as fast as it can; the
    stamps taken while work() ran, and work()'s start and end."""
    span = {}

    def worker():
        span["start"] = time.perf_counter()
        span["result"] = work()
        span["end"] = time.perf_counter()

    stamps = []
    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        stamps.append(time.perf_counter())
    thread.join()
    start, end = span["start"], span["end"]
    # Only the middle half counts: with the GIL held throughout, the main thread could still run
    # for a switch interval (5 ms) at either end.
    quarter = (end - start) / 4
    middle = [t for t in stamps if start + quarter < t < end - quarter]
    return span["result"], end - start, middle


@pytest.mark.parametrize("call", ["verify", "check", "generate"])
def test_the_gil_is_released(call, large_schedule):
    work = {
        "verify": lambda: phasecheck.verify(large_schedule, threads=1),
        "check": lambda: phasecheck.check("shift", T.fully_connected(2048), threads=1),
        "generate": lambda: phasecheck.generate("shift", T.fully_connected(2048)),
    }[call]
    result, seconds, middle = run_beside_the_main_thread(work)
    if call == "generate":
        assert result == large_schedule
    else:
        assert result.verdict == "pass"
        assert result.transfers == 2048 * 2048
    assert seconds > 0.02, "too fast to tell"
    # the main thread ran while the call was in its middle half: the counter advanced
    assert len(middle) > 100, f"{len(middle)} main-thread steps in {seconds:.3f} s"


INTERRUPTED = textwrap.dedent("""
    import sys, time
    import phasecheck
    machine = phasecheck.topology.fully_connected(16384)  # 268 M transfers: ~7 s unless stopped
    print("started", flush=True)
    report = phasecheck.check("shift", machine)
    print("finished", report.verdict, flush=True)
""")


def test_ctrl_c_stops_a_long_check(tmp_path):
    script = tmp_path / "interrupted.py"
    script.write_text(INTERRUPTED)
    # /usr/bin/python3 (the module's interpreter), with this environment: PYTHONPATH, and under
    # the sanitizers the preloaded ASan runtime.
    process = subprocess.Popen(["/usr/bin/python3", str(script)], env=dict(os.environ),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        if line != "started\n":
            process.kill()
            pytest.fail(f"the script did not start: {line!r}\n{process.communicate()[1]}")
        time.sleep(1.0)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30 * SLOW)
        stopped_after = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "KeyboardInterrupt" in err, err
    assert 'phasecheck.check("shift", machine)' in err  # raised from inside the call
    assert "finished" not in out
    assert process.returncode != 0
    assert stopped_after < 2.0 * SLOW, f"{stopped_after:.2f} s after SIGINT"
