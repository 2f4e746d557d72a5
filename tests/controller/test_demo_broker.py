"""`cardtable demo` and its broker (issue #16 item 14), with a real Mosquitto.

The demo's referee client used to subscribe once, outside ``on_connect``: after a broker
restart it never heard a ``cmd_result`` again and the demo gave up. And SIGTERM (systemd's
stop) left the broker to publish the last will ``offline`` instead of ``stopped``.
"""
from __future__ import annotations

import signal
import subprocess
import sys
import time

from controller.journal import read_records
from .mqtt_helpers import Watcher
from .test_demo import FAST

# Not in the Pi lane: the demo's frames go through OpenCV exactly as test_demo's do there.
NOT_IN_PI_LANE = "broker restarts and SIGTERM: nothing OpenCV-version specific beyond tests/controller/test_demo.py"


def demo(tmp_path, url: str, *extra: str) -> subprocess.Popen:
    # Truco: calls (envido, truco, ...) go over MQTT as the referee's commands
    return subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", *FAST, "--game", "truco", "--seed", "3",
                             "--option", "games_to_win=1",        # one game: commands enough either side
                             "--journal", str(tmp_path / "d.journal"), "--mqtt", url, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def commands_in(path) -> int:
    return sum(1 for r in read_records(path)[0] if "cmd" in r)


def test_demo_carries_on_after_a_broker_restart(tmp_path, mosquitto):
    w = Watcher(mosquitto.port, "cardtable/v1/tables/demo1/cmd_result")
    assert w.connected.wait(5)
    p = demo(tmp_path, mosquitto.url)
    try:
        assert w.wait(lambda m: len(m) >= 2, 120), "the demo's referee sent commands before the restart"
        before = commands_in(tmp_path / "d.journal")
        mosquitto.restart()                       # SIGTERM, then the same port again
        out, err = p.communicate(timeout=400)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    after = commands_in(tmp_path / "d.journal")
    print(f"\ndemo across a broker restart: exit {p.returncode}, referee commands {before} before, "
          f"{after - before} after")
    assert p.returncode == 0, err
    assert "final score" in out and "Traceback" not in err
    assert after > before, "the referee's commands were answered after the restart"
    w.close()


def test_sigterm_mid_match_publishes_stopped(tmp_path, mosquitto):
    w = Watcher(mosquitto.port, "cardtable/v1/tables/demo1/#")
    assert w.connected.wait(5)
    p = demo(tmp_path, mosquitto.url)
    try:
        assert w.wait(lambda m: any(t.endswith("/events") for t, _, _ in m), 120)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    late = Watcher(mosquitto.port, "cardtable/v1/tables/demo1/status")
    assert late.wait(lambda m: m, 10)
    statuses = [pl for t, pl, _ in w.messages if t.endswith("/status")]
    print(f"\ndemo SIGTERM mid-match: exit {p.returncode}, statuses seen {statuses}, "
          f"retained status {late.last('status')!r}")
    assert late.last("status") == b"stopped"
    assert b"offline" not in statuses, err
    assert "Traceback" not in err
    time.sleep(0.1)
    late.close()
    w.close()
