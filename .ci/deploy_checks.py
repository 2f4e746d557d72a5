"""What .ci/deploy-lane checks on the table that docs/deploy.md installed, under a real systemd
(in the lane's namespaces) with Debian's stock Mosquitto started by its own unit.

    deploy_checks.py wait-online WORK   the service is active and the table says `online`
    deploy_checks.py after WORK         everything below, in order

After the doc's steps: the stock broker lets each account do what docs/mqtt.md says (checked on
table2 and on a table added later, whose commands reach no running table); the table judges the cards laid in its camera folder; `systemd-analyze
verify` accepts the installed unit; `systemctl stop` ends it cleanly (`stopped`); a config
mistake exits 2 and systemd does not restart it (RestartPreventExitStatus=2) while the log has
the one line naming the key; a broker down at start exits 1, systemd retries, and the table
comes back `online` once the broker is back. Exit 0: all good; else the first failure.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import paho.mqtt.client as mqtt

CI = Path(__file__).resolve().parent
UNIT, CONFIG, JOURNAL = "cardtable", Path("/etc/cardtable/table.toml"), Path("/var/lib/cardtable/table1.journal")
TOPIC = "cardtable/v1/tables/table1/status"
START_S = 60.0      # a table starts in a few seconds on a loaded machine; this only bounds a failure
RESTART_SEC = 5     # the unit's RestartSec=: a restart, had there been one, comes within this


def sh(*cmd: str, check: bool = True) -> str:
    p = subprocess.run(cmd, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise SystemExit(f"deploy lane: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout


def unit(*props: str) -> dict[str, str]:
    out = sh("systemctl", "show", UNIT, *(f"--property={p}" for p in props))
    return dict(ln.split("=", 1) for ln in out.splitlines() if "=" in ln)


def status() -> str | None:
    """The table's retained status as the display account reads it (None: no broker or none yet)."""
    got: list[str] = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"deploy-lane-{time.monotonic_ns()}")
    c.username_pw_set("display", "display")
    c.on_message = lambda _c, _u, m: got.append(m.payload.decode())
    try:
        c.connect("127.0.0.1", 1883, 5)
    except OSError:
        return None
    c.subscribe(TOPIC, 1)
    end = time.monotonic() + 2
    while not got and time.monotonic() < end:
        c.loop(0.1)
    c.disconnect()
    return got[-1] if got else None


def wait(what: str, ok, timeout: float = START_S, detail=None) -> None:
    """Wait for ``ok()``; on time out, fail with the unit's state, its log and ``detail()``."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ok():
            print(f"deploy lane: {what}")
            return
        time.sleep(0.3)
    log = sh("journalctl", "-u", UNIT, "--no-pager", "-n", "15", check=False)
    more = f"\n{detail()}" if detail is not None else ""
    raise SystemExit(f"deploy lane: not within {timeout:.0f} s: {what}\n{unit('ActiveState', 'Result', 'ExecMainStatus', 'NRestarts')}\n{log}{more}")


def wait_online() -> None:
    wait("the service is active and the table says online",
         lambda: unit("ActiveState")["ActiveState"] == "active" and status() == "online")


def journal_records() -> list[dict]:
    sys.path.insert(0, "/opt/cardtable/src")
    from controller.journal import read_records

    return read_records(JOURNAL)[0] if JOURNAL.exists() else []


def judged_cards() -> list[tuple[int, str]]:
    return [(r["event"]["seat"], r["event"]["card"]) for r in journal_records() if r.get("src") == "vision"]


def restart_clean() -> None:
    sh("systemctl", "reset-failed", UNIT, check=False)     # forget earlier starts (StartLimitBurst)
    sh("systemctl", "start", UNIT)


def after(work: str) -> None:
    users = f"{work}/users.txt"
    # table2 has its account but no table running: the check's referee `undo` must not reach
    # table1, which may already have judged the camera folder's first card (CI, stop 20).
    sh(sys.executable, str(CI / "stock_mosquitto.py"), users, "table2")
    print("deploy lane: the stock broker's accounts and ACL are as docs/mqtt.md says (table2)")
    with open(users, "a", encoding="utf-8") as f:        # a table added later (deploy.md step 3)
        f.write(sh("cardtable", "mqtt-users", "--tables", "table3"))
    sh("systemctl", "restart", "mosquitto")
    sh(sys.executable, str(CI / "stock_mosquitto.py"), users, "table3")
    print("deploy lane: table3 added; the other accounts kept their passwords")
    wait_online()          # the table reconnected to the restarted broker
    wait("the log says the broker connection came back",
         lambda: "reconnected" in sh("journalctl", "-u", UNIT, "--no-pager", check=False))

    wait("the table judged the two cards laid in its camera folder",
         lambda: judged_cards() == [(0, "hearts/king"), (1, "spades/ace")],
         detail=lambda: "the journal, but its first records:\n" + "\n".join(map(str, journal_records()[2:])))

    print(sh("systemd-analyze", "verify", f"/etc/systemd/system/{UNIT}.service").strip()
          or "deploy lane: systemd-analyze verify accepts the installed unit")

    sh("systemctl", "stop", UNIT)
    u = unit("ActiveState", "Result", "ExecMainStatus")
    if (u["ActiveState"], u["Result"], u["ExecMainStatus"]) != ("inactive", "success", "0") or status() != "stopped":
        raise SystemExit(f"deploy lane: `systemctl stop` did not end the table cleanly: {u}, status {status()!r}")
    print("deploy lane: systemctl stop: exit 0, status stopped")

    good = CONFIG.read_text(encoding="utf-8")
    CONFIG.write_text(good.replace('name = "vitou"', 'name = "vitoo"'), encoding="utf-8")
    restart_clean()
    wait("a config mistake: exit 2, failed", lambda: unit("ActiveState")["ActiveState"] == "failed")
    time.sleep(RESTART_SEC + 2)
    u = unit("ActiveState", "ExecMainStatus", "NRestarts")
    if (u["ActiveState"], u["ExecMainStatus"], u["NRestarts"]) != ("failed", "2", "0"):
        raise SystemExit(f"deploy lane: a config mistake is restarted or exits other than 2: {u}")
    log = sh("journalctl", "-u", UNIT, "--no-pager", "-n", "5")
    if "game.name" not in log or "Traceback" in log:
        raise SystemExit(f"deploy lane: the log does not name the key game.name in one line:\n{log}")
    print(f"deploy lane: a config mistake exits 2 and is not restarted ({RESTART_SEC + 2} s later: NRestarts 0)")
    CONFIG.write_text(good, encoding="utf-8")

    sh("systemctl", "stop", "mosquitto")
    restart_clean()
    wait("the broker down at start: exit 1, restarted by systemd",
         lambda: int(unit("NRestarts")["NRestarts"]) >= 1, timeout=START_S)
    sh("systemctl", "start", "mosquitto")
    wait_online()
    print(f"deploy lane: after the broker came back: {unit('NRestarts')}")


if __name__ == "__main__":
    {"wait-online": lambda _w: wait_online(), "after": after}[sys.argv[1]](sys.argv[2])
