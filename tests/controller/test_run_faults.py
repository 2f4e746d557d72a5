"""`cardtable run` with a real Mosquitto under hostile input and an unexpected failure:
a 988-deep and a 10 MB command are answered and the table goes on (export still reads the
journal); an exception nobody expected stops it with retained `offline`, never `stopped`."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from controller.journal import export_record, read_records
from .mqtt_helpers import Watcher


def config(tmp_path, url: str) -> str:
    cfg = tmp_path / "t.toml"
    cfg.write_text(f'[table]\nid = "f1"\n[game]\nname = "vitou"\ndealer = 3\n[mqtt]\nurl = "{url}"\n'
                   f'[journal]\npath = "{tmp_path / "f1.journal"}"\n[web]\nport = 0\n')
    return str(cfg)


def online(w: Watcher) -> bool:
    return bool(w.wait(lambda m: any(t.endswith("/status") and p == b"online" for t, p, _ in m), 120))


def test_hostile_commands_are_answered_and_the_table_goes_on(tmp_path, mosquitto):
    w = Watcher(mosquitto.port, "cardtable/v1/tables/f1/#")
    assert w.connected.wait(5)
    p = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config", config(tmp_path, mosquitto.url)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert online(w)
        w.publish("cardtable/v1/tables/f1/cmd/event", '{"id":"d1","event":' + '{"a":' * 988 + "1" + "}" * 989)
        w.publish("cardtable/v1/tables/f1/cmd/event", '{"id":"d2","event":' + "[" * 900 + "]" * 900 + "}")
        w.publish("cardtable/v1/tables/f1/cmd/event", json.dumps({"id": "h1", "event": {"card": "x" * 10_000_000}}))
        w.publish("cardtable/v1/tables/f1/cmd/event",
                  json.dumps({"id": "ok", "event": {"event": "card", "seat": 0, "card": "hearts/king"}}))
        assert w.wait(lambda m: len(w.json_of("cmd_result")) >= 4, 60)
        res = w.json_of("cmd_result")
        assert [r["ok"] for r in res] == [False, False, False, True]
        assert all(len(json.dumps(r)) < 300 for r in res)                 # nothing echoed in full
        assert p.poll() is None and w.last("status") == b"online"
        p.terminate()
        assert p.wait(30) == 0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    w.close()
    recs, _ = read_records(tmp_path / "f1.journal")
    assert max(len(json.dumps(r)) for r in recs) < 1000
    assert export_record(str(tmp_path / "f1.journal"))["final"]["detail"]["current_trick"] == [
        {"seat": 0, "card": "hearts/king"}]


def test_an_unexpected_exception_stops_the_table_offline(tmp_path, mosquitto):
    """A bug injected into the real process (a command handler that raises) is a fault:
    one line on stderr, a non-zero exit, retained status `offline`."""
    code = textwrap.dedent(f"""
        import sys
        import controller.table as table
        real = table.Table.on_command
        def on_command(self, verb, payload):
            if verb == "boom":
                raise ZeroDivisionError("injected")
            return real(self, verb, payload)
        table.Table.on_command = on_command
        sys.exit(table.main(["--config", {config(tmp_path, mosquitto.url)!r}]))
    """)
    w = Watcher(mosquitto.port, "cardtable/v1/tables/f1/#")
    assert w.connected.wait(5)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert online(w)
        w.publish("cardtable/v1/tables/f1/cmd/boom", '{"id": "b1"}')
        assert p.wait(60) == 4
        err = p.stderr.read()
        assert err.count("\n") == 1 and "internal error (ZeroDivisionError: injected)" in err, err
        assert w.wait(lambda m: w.last("status") == b"offline", 10)
        assert b"stopped" not in [pl for t, pl, _ in w.messages if t.endswith("/status")]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    w.close()
