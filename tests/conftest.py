"""Shared fixtures: a real Mosquitto broker per test that needs one.

Tests talk to real parts (DEVELOPERS.md): ``mosquitto_factory`` starts ``mosquitto`` on a
free loopback port with a config written to tmp_path (optionally a websockets listener,
password file and ACL), and can stop and restart it to test reconnects.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # as controller/cli.py, for in-process vision too

import shutil  # noqa: E402
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.02)
    raise TimeoutError(f"nothing listens on port {port}")


@dataclass
class Mosquitto:
    """A running mosquitto; ``restart()`` keeps the port and config (and persistence)."""

    conf: Path
    port: int
    ws_port: int | None = None
    proc: subprocess.Popen | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start it and wait until *this* broker listens: with two test workers, a port found
        free may be taken before mosquitto binds it, and another broker answering there would
        pass for this one (BrokerNotStarted then)."""
        path = self.conf.with_suffix(".log")
        seen = path.stat().st_size if path.exists() else 0
        with open(path, "ab") as log:
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=log)
        deadline = time.monotonic() + 10.0
        while b" running" not in path.read_bytes()[seen:]:
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise BrokerNotStarted(path.read_bytes()[seen:].decode(errors="replace").strip())
            time.sleep(0.01)
        wait_port(self.port)
        if self.ws_port:
            wait_port(self.ws_port)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
BROKER_TRIES = 3        # ports tried for one broker (see Mosquitto.start)


class BrokerNotStarted(RuntimeError):
    """mosquitto exited (or never said it was running); the message is its log."""


@pytest.fixture
def mosquitto_factory(tmp_path: Path) -> Iterator:
    """Make brokers: ``mosquitto_factory(websockets=False, password_file=None, acl_file=None)``."""
    if not Path(MOSQUITTO).exists():
        pytest.fail("mosquitto is not installed: apt-get install -y mosquitto (.ci/run does this)")
    started: list[Mosquitto] = []

    def make(websockets: bool = False, password_file: Path | None = None,
             acl_file: Path | None = None) -> Mosquitto:
        for attempt in range(BROKER_TRIES):
            try:
                broker = _configured(len(started), websockets, password_file, acl_file)
                broker.start()
                break
            except BrokerNotStarted:
                if attempt == BROKER_TRIES - 1:
                    raise
        started.append(broker)
        return broker

    def _configured(n: int, websockets: bool, password_file: Path | None, acl_file: Path | None) -> Mosquitto:
        port = free_port()
        ws_port = free_port() if websockets else None
        # `user root`: as root, mosquitto would otherwise drop to its own user and could not
        # write its persistence file (or read password/ACL files) in pytest's private tmp_path.
        lines = ["user root", "per_listener_settings false", f"listener {port} 127.0.0.1", "protocol mqtt"]
        if ws_port:
            lines += [f"listener {ws_port} 127.0.0.1", "protocol websockets"]
        if password_file:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        else:
            lines += ["allow_anonymous true"]
        if acl_file:
            lines += [f"acl_file {acl_file}"]
        lines += ["persistence true", f"persistence_location {tmp_path}/", f"persistence_file m{n}.db"]
        conf = tmp_path / f"mosquitto{n}.conf"
        conf.write_text("\n".join(lines) + "\n")
        return Mosquitto(conf, port, ws_port)

    yield make
    for b in started:
        b.stop()


@pytest.fixture
def mosquitto(mosquitto_factory) -> Mosquitto:
    """One plain anonymous broker on a free port."""
    return mosquitto_factory()


OPENCV_DIRS = ("vision", "vision_live")     # every test here goes through OpenCV and numpy


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the vision tests ``opencv`` (the Pi lane selects by it; controller tests mark themselves)."""
    root = Path(__file__).parent
    for item in items:
        rel = Path(item.path).relative_to(root) if Path(item.path).is_relative_to(root) else None
        if rel is not None and rel.parts[0] in OPENCV_DIRS:
            item.add_marker(pytest.mark.opencv)
