"""`cardtable mqtt-users`: says where it writes first; adding a table keeps every other account."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def users(d: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "mqtt-users", "--dir", str(d), *args],
                          capture_output=True, text=True, timeout=60)


def lines(p: Path) -> dict[str, str]:
    return dict(ln.split(":", 1) for ln in p.read_text().splitlines())


def test_adding_a_table_keeps_the_other_accounts(tmp_path):
    d = tmp_path / "mq"
    first = users(d, "--tables", "table1,table2")
    assert first.returncode == 0, first.stderr
    assert first.stderr.splitlines()[0].startswith(f"writing {d / 'passwd'} and {d / 'acl'}")
    shown = [ln.split()[0] for ln in first.stdout.splitlines() if ln.startswith("  ")]
    assert shown == ["display", "referee", "table-table1", "table-table2"]
    before = lines(d / "passwd")

    second = users(d, "--tables", "table3")
    assert second.returncode == 0, second.stderr
    assert [ln.split()[0] for ln in second.stdout.splitlines() if ln.startswith("  ")] == ["table-table3"]
    after = lines(d / "passwd")
    assert {u: after[u] for u in before} == before            # same hashes: nobody logged out
    acl = (d / "acl").read_text()
    assert all(f"user table-{t}" in acl for t in ("table1", "table2", "table3"))

    again = users(d, "--tables", "table1", "--new-password", "table-table1")
    assert again.returncode == 0 and "table-table1" in again.stdout
    assert lines(d / "passwd")["table-table1"] != before["table-table1"]
    assert lines(d / "passwd")["referee"] == before["referee"]


def test_new_password_for_an_unknown_account_changes_nothing(tmp_path):
    d = tmp_path / "mq"
    assert users(d, "--tables", "t1").returncode == 0
    before = (d / "passwd").read_text()
    p = users(d, "--tables", "t1", "--new-password", "table-t9")
    assert p.returncode == 2 and "no such account" in p.stderr and "Traceback" not in p.stderr
    assert (d / "passwd").read_text() == before
