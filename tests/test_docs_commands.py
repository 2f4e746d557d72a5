"""Every shell command shown in README.md and docs/*.md runs (issue 18, item 3).

Commands are taken from fenced ``sh`` blocks: one per line (``\\`` continues a line, ``#``
starts a comment outside quotes). In a block whose lines start with ``$ `` only those are
commands and the lines after each are its expected output, compared exactly. ``cardtable``
is this checkout's CLI; a few commands run in a short form (a tiny match, no web port, a
broker of the test's own) and the ones that need a Raspberry Pi, root or a Pico are listed
in ``EXEMPT`` with the reason. A command that is neither runnable here nor exempt fails the
test: add it to ``EXEMPT`` (with a reason) or make it runnable.
"""
from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUN_S = 400          # a tiny match takes seconds; only a hang reaches this

# (regex on the command, why it is not run here) — keep this short
EXEMPT: list[tuple[str, str]] = [
    (r"^sudo(edit)?\b", "changes a Raspberry Pi's system as root (CI runs docs/deploy.md's steps: .ci/deploy-lane)"),
    (r"^journalctl\b", "needs systemd and the installed unit"),
    (r"^/opt/cardtable/", "the Pi's installed venv (docs/deploy.md step 1)"),
    (r"^cd /opt/cardtable/src$", "the Pi's checkout (docs/deploy.md step 1)"),
    (r"^mpremote\b", "needs a Raspberry Pi Pico on USB"),
    (r"^bash \.ci/run$", "is CI itself"),
    (r"^\.venv/bin/python -m pytest\b", "is the test command CI runs (checked against .ci/run below)"),
    (r"^mosquitto_(sub|pub)\b", "a client of a club's broker on the LAN"),
]
# runnable programs besides `cardtable` (anything else must be exempt)
PROGRAMS = {"cardtable", "cp", "printf", "echo", "cat", "ls", "mkdir", "python3"}
TINY = {"vitou": ["--option", "points_to_win=3", "--option", "games_to_win=1"],
        "truco": ["--option", "games_to_win=1"],
        "trionfetti": ["--option", "points_to_win=3", "--option", "games_to_win=1"],
        "troccas": ["--option", "hands_per_game=1"]}


@dataclass
class Command:
    where: str
    text: str
    output: list[str] | None = None      # expected stdout lines, for `$ ` blocks


def _strip_comment(line: str) -> str:
    lex = shlex.shlex(line, posix=True, punctuation_chars=False)
    lex.whitespace_split, lex.commenters = True, "#"
    try:
        words = list(lex)
    except ValueError:        # unbalanced quotes: keep the line as written
        return line.strip()
    if not words:
        return ""
    # cut the raw line where the comment starts: after the last word's text
    cut = line.find(" #")
    while cut != -1 and len(shlex.split(line[:cut], posix=True) if _balanced(line[:cut]) else []) < len(words):
        cut = line.find(" #", cut + 2)
    return (line[:cut] if cut != -1 and _balanced(line[:cut]) else line).strip()


def _balanced(text: str) -> bool:
    try:
        shlex.split(text)
        return True
    except ValueError:
        return False


def commands() -> list[Command]:
    found: list[Command] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in re.finditer(r"^```(?:sh|bash|shell)[ \t]*\n(.*?)^```", text, re.S | re.M):
            line_no = text[:m.start()].count("\n") + 2
            lines = m.group(1).splitlines()
            prompt = any(ln.startswith("$ ") for ln in lines)
            joined: list[str] = []
            for ln in lines:
                if joined and joined[-1].endswith("\\"):
                    joined[-1] = joined[-1][:-1].rstrip() + " " + ln.strip()
                else:
                    joined.append(ln)
            where = f"{doc.relative_to(ROOT)}:{line_no}"
            for ln in joined:
                if prompt:
                    if ln.startswith("$ "):
                        found.append(Command(where, _strip_comment(ln[2:]), []))
                    elif found and found[-1].output is not None and ln.strip():
                        found[-1].output.append(ln)
                    continue
                cmd = _strip_comment(ln)
                if cmd:
                    found.append(Command(where, cmd))
    return found


def exemption(cmd: str) -> str | None:
    return next((why for rx, why in EXEMPT if re.search(rx, cmd)), None)


ALL = commands()


def test_the_extractor_finds_the_documented_commands():
    texts = [c.text for c in ALL]
    assert "cardtable demo --game troccas --players 3" in texts
    assert any(t.startswith("printf ") and t.endswith("| cardtable referee") for t in texts)
    assert "cardtable run --config table.toml --check-config" in texts


def test_ci_runs_the_readme_test_command_exactly():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    test_cmd = re.search(r"The test command itself.*?```sh\n(.*?)\n```", readme, re.S).group(1).strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert test_cmd in [ln.strip() for ln in ci], f"{test_cmd!r} is not a line of .ci/run"
    first = next(c.text for c in ALL if c.text.startswith("python3 -m venv .venv"))
    for part in first.split(" && ")[:-1]:           # the venv and the install: .ci/run does the same
        assert part.replace("'.[wheels]'", "'.[wheels,test]'") in "\n".join(ci), part


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("bin")
    exe = d / "cardtable"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m controller.cli "$@"\n')
    exe.chmod(0o755)
    return d


def short_form(cmd: str, tmp: Path, broker_url: str) -> str:
    """The command as it runs in a test: a tiny match, no web port, the test's broker."""
    if cmd.startswith("python3 -m venv .venv && "):
        return cmd.split(" && ")[-1].replace(".venv/bin/cardtable", "cardtable").strip() and \
            short_form("cardtable demo", tmp, broker_url)
    words = shlex.split(cmd)
    if words[:2] == ["cardtable", "demo"]:
        game = words[words.index("--game") + 1] if "--game" in words else "vitou"
        words = [("mqtt" if w == "--mqtt" else w) for w in words]
        words = [broker_url if w == "mqtt://localhost:1883" else w for w in words]
        words = [("--mqtt" if w == "mqtt" else w) for w in words]
        words += ["--headless", "--speed", "0", "--web-port", "0", "--journal-dir", str(tmp / "journals"),
                  *TINY[game]]
        return shlex.join(words)
    return cmd


@pytest.mark.parametrize("cmd", ALL, ids=[f"{c.where} {c.text[:50]}" for c in ALL])
def test_documented_command_runs(cmd: Command, tmp_path, bin_dir, request):
    why = exemption(cmd.text)
    if why is not None:
        assert why                      # listed on purpose; nothing to run here
        return
    # a broker only for the commands that name one (starting and stopping one for each of the
    # 40-odd commands cost up to 5 s apiece on a loaded machine)
    broker_url = request.getfixturevalue("mosquitto").url if "--mqtt" in cmd.text else "mqtt://127.0.0.1:1"
    program = shlex.split(cmd.text)[0]
    assert program in PROGRAMS, f"{cmd.where}: {cmd.text!r}: not runnable here; add it to EXEMPT with a reason"
    (tmp_path / "config").symlink_to(ROOT / "config")
    (tmp_path / "table.toml").write_bytes((ROOT / "config" / "table.example.toml").read_bytes())
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    text = short_form(cmd.text, tmp_path, broker_url)
    long_running = re.fullmatch(r"cardtable run --config \S+", text) is not None
    p = subprocess.Popen(["bash", "-c", text], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        if long_running:        # a table runs until stopped: wait for its banner, then SIGTERM it
            banner = p.stdout.readline()
            assert banner.startswith("cardtable: table"), (banner, p.stderr.read() if p.poll() is not None else "")
            os.killpg(p.pid, signal.SIGTERM)
        out, err = p.communicate(timeout=RUN_S)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 0, f"{cmd.where}: {text}\n{err}"
    assert "Traceback" not in err
    if cmd.output:
        assert out.splitlines() == cmd.output, f"{cmd.where}: output differs from the documented one"
