"""``cardtable board``: the selftest against the simulator, and one-line errors."""
from __future__ import annotations

import pytest

from controller.board.cli import main


def test_selftest_against_the_simulator_passes(capsys) -> None:
    assert main(["selftest", "--port", "sim://", "--quick"]) == 0
    out = capsys.readouterr().out
    for line in ("PASS  handshake", "PASS  LED commands", "PASS  latency", "PASS  throughput",
                 "PASS  buttons", "result: PASS"):
        assert line in out


def test_selftest_against_a_faulty_simulator_passes(capsys) -> None:
    assert main(["selftest", "--port", "sim://?faults=flip:0.01,drop:0.005&seed=4", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "result: PASS" in out and "bad frames dropped" in out


def test_selftest_via_the_cardtable_dispatcher(capsys) -> None:
    from controller.cli import main as cardtable

    assert cardtable(["board", "selftest", "--port", "sim://?seats=2", "--quick"]) == 0
    assert "2 seats" in capsys.readouterr().out


@pytest.mark.parametrize("url, words", [
    ("/dev/ttyDOES_NOT_EXIST", "cannot open /dev/ttyDOES_NOT_EXIST"),
    ("sim://?faults=bogus:1", "bad fault 'bogus:1'"),
    ("sim://?colour=red", "unknown simulator option 'colour'"),
    ("sim://?seats=0", "bad simulated board"),
    ("nosuchscheme://x", "cannot open nosuchscheme://x"),
])
def test_bad_ports_are_one_line_errors(capsys, url: str, words: str) -> None:
    assert main(["selftest", "--port", url]) == 2
    captured = capsys.readouterr()
    assert words in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert "Traceback" not in captured.err


def test_a_silent_port_fails_the_handshake_cleanly(capsys, tmp_path) -> None:
    import os

    master, slave = os.openpty()  # a tty nobody answers on
    try:
        assert main(["selftest", "--port", os.ttyname(slave), "--timeout", "0.5"]) == 1
    finally:
        os.close(master)
        os.close(slave)
    out = capsys.readouterr().out
    assert "FAIL  handshake" in out and "result: FAIL" in out
