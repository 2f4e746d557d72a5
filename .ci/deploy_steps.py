"""docs/deploy.md's own commands, in order, as one bash script for .ci/deploy-lane.

    python .ci/deploy_steps.py WORK > steps.sh

The commands are the doc's fenced ``sh`` blocks, read by the same extractor as
tests/test_docs_commands.py, so the lane cannot drift from the doc. Only the lines that need
a Raspberry Pi (its apt archive, camera, deck photos, an editor, a terminal that follows the
log) are replaced, each by the rule below that names why; a rule that matches no command fails
the script, so a reworded doc line is noticed. WORK holds what stands in for the camera
(.ci/deploy_camera.py) and receives mqtt-users' output (users.txt).
"""
from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.test_docs_commands import commands  # noqa: E402  (one extractor for both)

DOC = "docs/deploy.md"

# (regex on the doc's command, its stand-in here given (command, WORK, python, .ci dir), why)
REPLACE: list[tuple[str, Callable[[str, str, str, str], str], str]] = [
    (r"^sudo apt update$", lambda c, w, py, ci: "true",
     ".ci/run has updated apt's lists and installed Debian's packages"),
    (r"^sudo apt install ", lambda c, w, py, ci: c.replace(" python3-picamera2", "").replace(" python3-lgpio", ""),
     "python3-picamera2 and python3-lgpio are in Raspberry Pi OS's archive only"),
    (r"^sudo useradd .*--groups gpio,", lambda c, w, py, ci: f"sudo groupadd --system gpio && {c}",
     "Raspberry Pi OS has a gpio group; Debian has not"),
    (r"import cv2, numpy, picamera2, gpiozero", lambda c, w, py, ci: c.replace("picamera2, ", ""),
     "no picamera2 off a Pi"),
    (r"^sudo cp -r photos ", lambda c, w, py, ci: "true", "no photos of a real deck (next line)"),
    (r"^sudo -u cardtable cardtable enrol ",
     lambda c, w, py, ci: f"sudo -u cardtable cp -r {w}/cam/profile /var/lib/cardtable/profile",
     "no photos of a real deck: the demo deck's profile"),
    (r"^sudo -u cardtable cardtable calibrate picamera2 ",
     lambda c, w, py, ci: c.replace(" picamera2 ", f" folder:{w}/cam/empty ", 1),
     "no camera: a picture of the rendered empty table"),
    (r"^sudo cardtable mqtt-users ", lambda c, w, py, ci: f"{c} | tee {w}/users.txt",
     "the lane logs in with these accounts"),
    (r"^sudoedit /etc/cardtable/table.toml$", lambda c, w, py, ci: f"sudo {py} {ci}/deploy_steps.py --edit {w}",
     "sets the keys the doc names, as a person would in the editor"),
    (r"^journalctl -u cardtable -f$",
     lambda c, w, py, ci: f"nsenter -t 1 -n {py} {ci}/deploy_checks.py wait-online {w} && "
                        "journalctl -u cardtable --no-pager -n 20",
     "follows the log forever: wait for the table, then print the log"),
]


def script(work: str) -> str:
    lines = ["set -euo pipefail", 'cd "$HOME"']
    used: set[str] = set()
    for c in commands():
        if not c.where.startswith(DOC + ":"):
            continue
        lines.append(f"echo {shlex.quote(f'== {c.where} $ {c.text}')}")
        rule = next(((rx, to, why) for rx, to, why in REPLACE if re.search(rx, c.text)), None)
        if rule is None:
            lines.append(c.text)
            continue
        rx, to, why = rule
        used.add(rx)
        new = to(c.text, work, sys.executable, str(Path(__file__).parent))
        lines.append(f"echo {shlex.quote(f'   here: {new}   ({why})')}")
        lines.append(new)
    unused = [rx for rx, _, _ in REPLACE if rx not in used]
    if unused:
        raise SystemExit(f"deploy lane: no command of {DOC} matches {unused}: update .ci/deploy_steps.py")
    return "\n".join(lines) + "\n"


def _set(text: str, section: str, key: str, value: str) -> str:
    """``key = value`` in [section] of a TOML text, keeping the rest (comments included)."""
    out, here, done = [], None, False
    for ln in text.splitlines():
        m = re.match(r"^\[+([\w.]+)\]+", ln)
        if m:
            if here == section and not done:
                out.append(f"{key} = {value}")
                done = True
            here = m.group(1)
        elif here == section and re.match(rf"^#?\s*{key} = ", ln) and not done:
            ln, done = f"{key} = {value}", True
        out.append(ln)
    if not done:
        out += [f"[{section}]", f"{key} = {value}"] if here != section else [f"{key} = {value}"]
    return "\n".join(out) + "\n"


def edit(work: str) -> None:
    """What deploy.md step 4 says to set, with the camera a folder of frames and no GPIO pins;
    plus what the few rendered frames need to be judged (confidence, frames still, the dealer
    whose left-hand seat leads), the same as tests/controller/test_run_camera.py uses."""
    path = Path("/etc/cardtable/table.toml")
    users = {}
    for line in open(f"{work}/users.txt", encoding="utf-8"):
        m = re.fullmatch(r"  (\S+)\s+(\S+)\n?", line)
        if m:
            users[m.group(1)] = m.group(2)
    text = path.read_text(encoding="utf-8")
    for section, key, value in [
        ("camera", "source", f'"folder:{work}/cam/play"'),
        ("camera", "calibration", '"/var/lib/cardtable/calibration.json"'),
        ("camera", "profile", '"/var/lib/cardtable/profile"'),
        ("camera", "min_confidence", "0.5"),
        ("camera", "still_frames", "6"),
        ("mqtt", "url", '"mqtt://127.0.0.1:1883"'),
        ("mqtt", "username", '"table-table1"'),
        ("mqtt", "password", f'"{users["table-table1"]}"'),
        ("mqtt", "display_username", '"display"'),
        ("mqtt", "display_password", '"display"'),
        ("journal", "path", '"/var/lib/cardtable/table1.journal"'),
        ("game", "dealer", "3"),
    ]:
        text = _set(text, section, key, value)
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1] == "--edit":
        edit(sys.argv[2])
    else:
        sys.stdout.write(script(sys.argv[1]))
