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


def existing_users(passwd: Path) -> list[str]:
    """Account names already in a Mosquitto password file (``user:hash`` lines), in file order."""
    try:
        lines = passwd.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    return [ln.split(":", 1)[0] for ln in lines if ":" in ln and not ln.startswith("#")]


def write_users(directory: Path, tables: Sequence[str], passwords: dict[str, str] | None = None,
                mosquitto_passwd: str | None = None) -> dict[str, str]:
    """Add the accounts ``tables`` need to ``directory``'s passwd and rewrite its acl.

    Accounts already in passwd keep their passwords (adding a table must not log every other
    table out); ``passwords`` sets (or resets) the named ones. Returns user -> password for the
    accounts created or reset, the only passwords anyone can still be shown."""
    tool = mosquitto_passwd or shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if not Path(tool).exists():
        raise FileNotFoundError("mosquitto_passwd not found: apt-get install mosquitto")
    passwd = directory / "passwd"
    have = existing_users(passwd)
    wanted = ["display", "referee"] + [f"table-{t}" for t in tables]
    new = {u: ("display" if u == "display" else secrets.token_urlsafe(12)) for u in wanted if u not in have}
    new.update(passwords or {})
    every_table = [u.removeprefix("table-") for u in have if u.startswith("table-")]
    every_table += [t for t in tables if t not in every_table]
    directory.mkdir(parents=True, exist_ok=True)
    tmp = directory / "passwd.tmp"
    tmp.write_bytes(passwd.read_bytes() if passwd.exists() else b"")
    os.chmod(tmp, 0o600)
    for user, pw in new.items():
        subprocess.run([tool, "-b", str(tmp), user, pw], check=True, capture_output=True)
    os.replace(tmp, passwd)
    (directory / "acl").write_text(acl_text(every_table))
    _let_mosquitto_read(passwd)
    return new


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
    ap.add_argument("--tables", required=True, help="comma-separated table ids, e.g. table1,table2; tables "
                    "already in the password file keep their accounts")
    ap.add_argument("--dir", default="/etc/mosquitto/cardtable", help="where passwd and acl go "
                    "(default: %(default)s, where config/mosquitto/mosquitto.conf looks)")
    ap.add_argument("--display-password", default=None, help="set the read-only display account's password "
                    "(default on creation: display)")
    ap.add_argument("--new-password", action="append", default=[], metavar="USER",
                    help="give this existing account a new password (e.g. table-table1, referee)")
    args = ap.parse_args(argv)
    tables = [t.strip() for t in args.tables.split(",") if t.strip()]
    bad = [t for t in tables if not re.fullmatch(r"[a-z0-9_-]{1,32}", t)]
    if not tables or bad:
        print(f"cardtable mqtt-users: bad table id(s) {bad or '(none)'}: use 1-32 of a-z 0-9 _ -", file=sys.stderr)
        return 2
    directory = Path(args.dir)
    known = set(existing_users(directory / "passwd")) | {"display", "referee"} | {f"table-{t}" for t in tables}
    unknown = [u for u in args.new_password if u not in known]
    if unknown:
        print(f"cardtable mqtt-users: --new-password {unknown[0]}: no such account "
              f"(accounts: {', '.join(sorted(known))})", file=sys.stderr)
        return 2
    reset = {u: secrets.token_urlsafe(12) for u in args.new_password}
    if args.display_password is not None:
        reset["display"] = args.display_password
    print(f"writing {directory / 'passwd'} and {directory / 'acl'} "
          f"({'adding to' if (directory / 'passwd').exists() else 'new'}); other --dir to write elsewhere",
          file=sys.stderr, flush=True)
    try:
        users = write_users(directory, tables, reset)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = exc.stderr.decode(errors="replace").strip() if isinstance(exc, subprocess.CalledProcessError) \
            and exc.stderr else str(exc)
        print(f"cardtable mqtt-users: {detail}", file=sys.stderr)
        return 2
    print(f"wrote {directory}/passwd and {directory}/acl; reload Mosquitto (systemctl reload mosquitto).",
          file=sys.stderr)
    if users:
        print("new passwords (shown once; put each table's into its [mqtt] username/password):")
        for user, pw in users.items():
            print(f"  {user:<20} {pw}")
    else:
        print("no new accounts: every one asked for exists (--new-password USER to change one)")
    return 0
