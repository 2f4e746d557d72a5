"""Connect to the stock Mosquitto (started by its own unit in .ci/deploy-lane) with the accounts that
``cardtable mqtt-users`` printed, and check what the ACL lets each one do.

usage: stock_mosquitto.py MQTT_USERS_OUTPUT [TABLE]   (exit 0: all good; else one line per failure)
"""
from __future__ import annotations

import re
import socket
import sys
import threading
import time

import paho.mqtt.client as mqtt

HOST, PORT, WS_PORT = "127.0.0.1", 1883, 9001
WAIT_S = 10.0    # a local broker answers in milliseconds; this only bounds a failure


def accounts(path: str) -> dict[str, str]:
    """user -> password from mqtt-users' output (later lines win: a re-run prints only new accounts)."""
    found: dict[str, str] = {}
    for line in open(path, encoding="utf-8"):
        m = re.fullmatch(r"  (\S+)\s+(\S+)\n?", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def wait_port(port: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex((HOST, port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"stock mosquitto: nothing listens on {HOST}:{port}")


class Client:
    def __init__(self, user: str, password: str, ws: bool = False) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.rc = None
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, transport="websockets" if ws else "tcp")
        self.c.username_pw_set(user, password)
        self.c.on_connect = self._on_connect
        self.c.on_message = lambda c, u, m: self.got.append((m.topic, m.payload))
        self.c.connect(HOST, WS_PORT if ws else PORT)
        self.c.loop_start()

    def _on_connect(self, c, u, flags, rc, props=None) -> None:
        self.rc = rc
        self.ready.set()

    def ok(self) -> bool:
        self.ready.wait(WAIT_S)
        return self.rc is not None and not self.rc.is_failure

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def main(argv: list[str]) -> int:
    users = accounts(argv[1])
    table = argv[2] if len(argv) > 2 else "table1"
    wait_port(PORT)
    wait_port(WS_PORT)
    failures = []
    base = f"cardtable/v1/tables/{table}"
    tab = Client(f"table-{table}", users[f"table-{table}"])
    ref = Client("referee", users["referee"])
    disp = Client("display", users["display"], ws=True)        # browsers: websockets
    bad = Client(f"table-{table}", "wrong-password")
    for name, c, want in (("table", tab, True), ("referee", ref, True), ("display (ws)", disp, True),
                          ("wrong password", bad, False)):
        if c.ok() != want:
            failures.append(f"{name}: connect {'refused' if want else 'accepted'} (rc {c.rc})")
    if not failures:
        tab.c.subscribe(f"{base}/cmd/#", 1)
        disp.c.subscribe("cardtable/v1/#", 1)
        time.sleep(0.3)
        tab.c.publish(f"{base}/status", "online", 1, retain=True).wait_for_publish(WAIT_S)
        ref.c.publish(f"{base}/cmd/undo", '{"id":"ci"}', 1).wait_for_publish(WAIT_S)
        disp.c.publish(f"{base}/cmd/undo", '{"id":"display"}', 1)       # the ACL must drop this
        tab.c.publish("cardtable/v1/tables/other/status", "online", 1)   # and this (not its tree)
        time.sleep(1.0)
        if (f"{base}/status", b"online") not in disp.got:
            failures.append("display did not receive the table's status")
        cmds = [p for t, p in tab.got if t == f"{base}/cmd/undo"]
        if cmds != [b'{"id":"ci"}']:
            failures.append(f"table's commands: want only the referee's, got {cmds}")
        if any(t.endswith("/other/status") for t, _ in disp.got):
            failures.append("a table wrote outside its own tree")
        tab.c.publish(f"{base}/status", b"", 1, retain=True).wait_for_publish(WAIT_S)
    others = [Client(u, pw) for u, pw in users.items() if u.startswith("table-") and u != f"table-{table}"]
    for c in others:                       # accounts made by an earlier run still log in
        if not c.ok():
            failures.append(f"an earlier account no longer logs in (rc {c.rc})")
    for c in (tab, ref, disp, bad, *others):
        c.close()
    for f in failures:
        print(f"stock mosquitto: {f}", file=sys.stderr)
    if not failures:
        print(f"stock mosquitto: {len(users)} accounts from `cardtable mqtt-users` work as the ACL says ({table})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
