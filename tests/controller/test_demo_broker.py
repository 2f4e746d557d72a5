"""`cardtable demo` and its broker (issue #16 item 14), with a real Mosquitto.

The demo's referee client used to subscribe once, outside ``on_connect``: after a broker
restart it never heard a ``cmd_result`` again and the demo gave up. And SIGTERM (systemd's
stop) left the broker to publish the last will ``offline`` instead of ``stopped``.
"""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
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


class _FirstConnectUnanswered:
    """A TCP relay to ``upstream_port`` that leaves the first CONNECT of client ``client_id`` unanswered
    (the socket stays open, nothing comes back), as the embedded broker (amqtt 0.12.1) was seen to
    do for about one demo start in eight."""

    def __init__(self, upstream_port: int, client_id: bytes) -> None:
        self.upstream_port, self.client_id, self.swallowed = upstream_port, client_id, 0
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn) -> None:
        first = conn.recv(65536)
        if self.client_id in first and not self.swallowed:
            self.swallowed += 1
            while conn.recv(65536):            # read and never answer, until the client gives up
                pass
            return
        up = socket.create_connection(("127.0.0.1", self.upstream_port))
        up.sendall(first)

        def pump(a, b) -> None:
            try:
                while data := a.recv(65536):
                    b.sendall(data)
            except OSError:
                pass
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        threading.Thread(target=pump, args=(up, conn), daemon=True).start()
        pump(conn, up)

    def close(self) -> None:
        self.server.close()


def test_demo_waits_out_a_connect_the_broker_leaves_unanswered(tmp_path, mosquitto):
    # paho gives up on a CONNECT with no CONNACK after one keepalive (15 s) and connects again;
    # the demo used to give up after 10 s ("cannot reach the MQTT broker")
    relay = _FirstConnectUnanswered(mosquitto.port, b"cardtable-demo1")
    try:
        p = demo(tmp_path, f"mqtt://127.0.0.1:{relay.port}")
        out, err = p.communicate(timeout=400)
    finally:
        relay.close()
    assert relay.swallowed == 1
    assert p.returncode == 0, err
    assert "final score" in out and "Traceback" not in err
