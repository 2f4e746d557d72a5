"""``cardtable mqtt-users``: the Mosquitto accounts and ACL for a club's tables.

Writes ``passwd`` (hashed by ``mosquitto_passwd``) and ``acl`` into a directory (default
``/etc/mosquitto/cardtable``) and prints each generated password once. Accounts: one
``table-<id>`` per table, ``referee`` (the only role that may publish commands) and
``display`` (read-only; its password is served to browsers, so it is no secret).
"""
from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

LEAVES = ("status", "meta", "state", "events", "alerts", "cmd_result")


def acl_text(tables: Sequence[str]) -> str:
    lines = ["# written by `cardtable mqtt-users`", "",
             "user display", "topic read cardtable/v1/#",
             "topic read homeassistant/#", "",      # Home Assistant may log in as display
             "user referee", "topic read cardtable/v1/#", "topic write cardtable/v1/tables/+/cmd/#", ""]
    for t in tables:
        lines.append(f"user table-{t}")
        lines += [f"topic write cardtable/v1/tables/{t}/{leaf}" for leaf in LEAVES]
        lines += [f"topic read cardtable/v1/tables/{t}/cmd/#",
                  f"topic write homeassistant/+/cardtable_{t}/#", ""]     # [mqtt] ha_discovery
    return "\n".join(lines)


def write_users(directory: Path, tables: Sequence[str], passwords: dict[str, str] | None = None,
                mosquitto_passwd: str | None = None) -> dict[str, str]:
    """Create passwd and acl in ``directory``; returns user -> password."""
    tool = mosquitto_passwd or shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if not Path(tool).exists():
        raise FileNotFoundError("mosquitto_passwd not found: apt-get install mosquitto")
    users = {"display": "display", "referee": secrets.token_urlsafe(12)}
    users.update({f"table-{t}": secrets.token_urlsafe(12) for t in tables})
    users.update(passwords or {})
    directory.mkdir(parents=True, exist_ok=True)
    passwd = directory / "passwd"
    tmp = directory / "passwd.tmp"
    tmp.write_text("")
    os.chmod(tmp, 0o600)
    for user, pw in users.items():
        subprocess.run([tool, "-b", str(tmp), user, pw], check=True, capture_output=True)
    os.replace(tmp, passwd)
    (directory / "acl").write_text(acl_text(tables))
    _let_mosquitto_read(passwd)
    return users


def _let_mosquitto_read(path: Path) -> None:
    """Mosquitto started as root reads its files as user ``mosquitto``: group-readable for it."""
    import grp

    try:
        gid = grp.getgrnam("mosquitto").gr_gid
        os.chown(path, -1, gid)
        os.chmod(path, 0o640)
    except (KeyError, PermissionError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="cardtable mqtt-users", description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", required=True, help="comma-separated table ids, e.g. table1,table2")
    ap.add_argument("--dir", default="/etc/mosquitto/cardtable", help="where passwd and acl go")
    ap.add_argument("--display-password", default="display", help="the read-only display account's password")
    args = ap.parse_args(argv)
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    bad = [t for t in tables if not re.fullmatch(r"[a-z0-9_-]{1,32}", t)]
    if not tables or bad:
        print(f"cardtable mqtt-users: bad table id(s) {bad or '(none)'}: use 1-32 of a-z 0-9 _ -", file=sys.stderr)
        return 2
    try:
        users = write_users(Path(args.dir), tables, {"display": args.display_password})
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"cardtable mqtt-users: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.dir}/passwd and {args.dir}/acl; reload Mosquitto (systemctl reload mosquitto).")
    print("accounts (shown once; put each table's into its [mqtt] username/password):")
    for user, pw in users.items():
        print(f"  {user:<20} {pw}")
    return 0
