"""A TV elsewhere on the club's network: the page is loaded through a non-loopback address
and must reach the broker through the URL that ``config.json`` gives it.

The address is on a veth interface made by the test (as root; traffic stays on this
machine), else one of the machine's own non-loopback addresses. A broker listening on
127.0.0.1 only is unreachable through it: exactly the bug of a TV on the LAN.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

from controller.web.server import WebServer, broker_config, lan_address
from tests.conftest import Mosquitto, free_port, wait_port
from tests.web.standin import StandIn
from tests.web.test_demo import kill

ROOT = Path(__file__).resolve().parents[2]
SHIPPED_CONF = ROOT / "config" / "mosquitto" / "mosquitto.conf"
DUMMY = f"ctlan{os.getpid() % 100000}"
DUMMY_ADDR = f"10.213.{os.getpid() % 250 + 1}.1"


@pytest.fixture(scope="module")
def lan_address() -> Iterator[str]:
    # a veth pair (a dummy interface needs a kernel module some machines lack); the address
    # is local, so the traffic never leaves this machine
    made = subprocess.run(f"ip link add {DUMMY} type veth peer name {DUMMY}p && "
                          f"ip addr add {DUMMY_ADDR}/32 dev {DUMMY} && ip link set {DUMMY}p up && "
                          f"ip link set {DUMMY} up", shell=True, capture_output=True).returncode == 0
    try:
        addr = DUMMY_ADDR if made else lan_address()
        if addr is None:
            pytest.skip("no non-loopback address: run as root (a veth pair) or on a machine with a network")
        yield addr
    finally:
        if made:
            subprocess.run(["ip", "link", "del", DUMMY], capture_output=True)


def _config_json(url: str) -> dict:
    with urllib.request.urlopen(url + "config.json", timeout=5) as r:
        return json.loads(r.read())



def _serving_port(asked: int, log_path: Path, timeout: float = 60.0) -> int:
    """The port the demo serves on: the one asked for, or the free one it names when another
    test took that port between free_port() and the demo's bind (xdist workers race)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", asked)) == 0 and "is busy" not in log_path.read_text():
                return asked
        m = re.search(r"web port \d+ is busy; the scoreboard is on http://[^:]+:(\d+)/", log_path.read_text())
        if m:
            wait_port(int(m.group(1)), timeout)
            return int(m.group(1))
        time.sleep(0.05)
    raise TimeoutError(f"the demo serves on no port; log: {log_path.read_text()[-300:]}")

def test_demo_embedded_broker_reaches_a_tv_on_the_lan(page, lan_address):
    """`cardtable demo` as the README runs it: a browser loading http://<lan address>:port/
    is sent to the embedded broker's websockets listener on that address, which accepts it."""
    web_port = free_port()
    logs = ROOT / "artifacts" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"demo-lan-{web_port}.log"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--headless", "--speed", "0",
                             "--web-port", str(web_port), "--linger", "60", "--seed", "4",
                             "--journal-dir", str(logs / f"journals-{web_port}")],
                            cwd=ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        web_port = _serving_port(web_port, log_path)
        base = f"http://{lan_address}:{web_port}/"
        ws_url = _config_json(base)["ws_url"]
        assert re.fullmatch(rf"ws://{re.escape(lan_address)}:\d+/", ws_url), ws_url
        page.d.get(base)
        page.wait("return document.body.dataset.conn === 'connected'", timeout=20,
                  what=f"page at {base} connected to {ws_url}; log: {log_path.read_text()[-500:]}")
        page.wait("return document.querySelectorAll('[id^=score-]').length === 2", timeout=20, what="scores shown")
        assert page.js("return location.hostname") == lan_address
    finally:
        kill(proc)


def test_demo_with_mqtt_and_ws_url_flags(page, lan_address, mosquitto_factory):
    """`demo --mqtt mqtt://…` (TCP) with `--ws-url`: config.json carries the given URL (not
    port 9001 of the demo), and the page follows the match through it."""
    broker = mosquitto_factory(websockets=True)
    web_port = free_port()
    logs = ROOT / "artifacts" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    given = f"ws://127.0.0.1:{broker.ws_port}/"
    log_path = logs / f"demo-wsurl-{web_port}.log"
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "demo", "--mqtt", broker.url, "--ws-url", given,
                             "--headless", "--speed", "0", "--web-port", str(web_port), "--linger", "60",
                             "--journal-dir", str(logs / f"journals-{web_port}")],
                            cwd=ROOT, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    try:
        web_port = _serving_port(web_port, log_path)
        assert _config_json(f"http://127.0.0.1:{web_port}/")["ws_url"] == given
        # the same URL whatever host the page came from: it was configured
        assert _config_json(f"http://{lan_address}:{web_port}/")["ws_url"] == given
        page.d.get(f"http://127.0.0.1:{web_port}/")
        page.wait("return document.body.dataset.conn === 'connected'", timeout=20, what="page connected")
        page.wait("return document.querySelectorAll('[id^=score-]').length === 2", timeout=20, what="scores shown")
    finally:
        kill(proc)


def _shipped_broker(tmp: Path, tables: list[str]) -> tuple[Mosquitto, dict[str, str]]:
    """Mosquitto with config/mosquitto/mosquitto.conf as shipped, only its ports and file
    paths moved into ``tmp``, and the accounts `cardtable mqtt-users` writes."""
    from controller.mqtt_users import write_users

    port, ws_port = free_port(), free_port()
    users = write_users(tmp, tables)
    text = SHIPPED_CONF.read_text()
    text = re.sub(r"(?m)^listener 1883\b.*$", f"listener {port}", text)
    text = re.sub(r"(?m)^listener 9001\b.*$", f"listener {ws_port}", text)
    text = re.sub(r"(?m)^password_file .*$", f"password_file {tmp / 'passwd'}", text)
    text = re.sub(r"(?m)^acl_file .*$", f"acl_file {tmp / 'acl'}", text)
    text = re.sub(r"(?m)^persistence(_location|_file)? .*$", "", text)
    assert f"listener {ws_port}" in text and "protocol websockets" in text
    conf = tmp / "mosquitto.conf"
    conf.write_text("user root\n" + text + "\npersistence false\n")
    b = Mosquitto(conf, port, ws_port)
    b.start()
    return b, users


def test_shipped_mosquitto_websockets_and_display_account_off_loopback(page, lan_address):
    """The shipped Mosquitto config's websockets listener with the display account, reached
    through a non-loopback address, as the controller's web server tells the page."""
    d = Path(tempfile.mkdtemp(prefix="ct-web-lan-"))
    os.chmod(d, 0o755)
    broker, users = _shipped_broker(d, ["lan1"])
    web = None
    try:
        pub = StandIn(broker.port, "lan1", "vitou", seed=2, username="table-lan1", password=users["table-lan1"])
        scores, _ = next(pub.hands_iter())
        web = WebServer(0, broker_config(f"ws://127.0.0.1:{broker.ws_port}/", "display", users["display"], ["lan1"]),
                        host="0.0.0.0").start()
        base = f"http://{lan_address}:{web.port}/"
        assert _config_json(base)["ws_url"] == f"ws://{lan_address}:{broker.ws_port}/"
        page.d.get(base)
        page.wait_scores(scores, timeout=15)
        assert page.js("return document.body.dataset.conn") == "connected"
        pub.stop()
    finally:
        if web is not None:
            web.stop()
        broker.stop()
        shutil.rmtree(d, ignore_errors=True)
