"""The ``cardtable`` command: one table of subcommands, each in the module that owns it.

Subcommand modules are imported only when used, so ``cardtable referee`` never loads
OpenCV and ``cardtable --help`` is instant. Each entry point takes its argument list and
returns an exit code; errors a person can fix are printed as one clear line, never a
traceback.
"""
from __future__ import annotations

import importlib
import os
import sys
from typing import Callable, Sequence

# The frame loop is one thread; OpenBLAS's own threads only contend with it (and with the MQTT,
# web and camera threads) on naming's small matrix-vector products. bench/blas_threads.py: a
# stills recognition of three cards at 1280x720 takes 0.49-0.60x the wall time (and ~0.6x the
# CPU) with one BLAS thread on this 2-core machine under load. Set before numpy loads; a user's
# own setting stands.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# name -> (module:function, one-line description)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("controller.demo:main", "run a whole simulated match: camera frames, vision, referee, LEDs, MQTT"),
    "referee": ("controller.rules.referee:main", "judge JSON Lines events from FILE or stdin (CONTRACT §3)"),
    "comanda": ("controller.rules.comanda:main", "resolve a Trionfetti comanda and print the ranking"),
    "enrol": ("vision.cli:enrol_main", "learn a club's physical deck from reference photos"),
    "recognise": ("vision.cli:recognise_main", "find and identify every card in images"),
    "track": ("vision.cli:track_main", "play a table video through the live pipeline, print card events"),
    "calibrate": ("vision.cli:calibrate_main", "calibrate the table plane, seat zones and background"),
    "watch": ("vision.cli:watch_main", "show the camera view with zones, cards and events"),
    "run": ("controller.table:main", "run a table: camera, referee, LEDs, board and MQTT (resumes from the journal)"),
    "replay": ("controller.scoresheet:replay_main", "re-judge a match journal and print it"),
    "export": ("controller.scoresheet:export_main", "export a match record (JSON or a text scoresheet)"),
    "journal": ("controller.journal_cli:main", "check a match journal, or repair one (bad lines kept aside)"),
    "board": ("controller.board.cli:main", "LED/button board tools: selftest against a board or the simulator"),
    "mqtt-users": ("controller.mqtt_users:main", "create the Mosquitto users and password file for a table"),
}


def _load(target: str) -> Callable[[Sequence[str]], int]:
    module, _, func = target.partition(":")
    return getattr(importlib.import_module(module), func)


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("cardtable")
    except PackageNotFoundError:     # run from a source tree that was never installed
        return "unknown (not installed)"


def _log_level(args: list[str]) -> tuple[str, list[str]]:
    """Take ``--log-level L`` / ``--log-level=L`` out of the arguments, wherever it stands."""
    from controller.logs import DEFAULT_LEVEL

    level, rest, i = DEFAULT_LEVEL, [], 0
    while i < len(args):
        a = args[i]
        if a == "--log-level":
            if i + 1 >= len(args):
                raise ValueError("--log-level needs a value: debug, info, warning or error")
            level, i = args[i + 1], i + 2
            continue
        if a.startswith("--log-level="):
            level = a.partition("=")[2]
        else:
            rest.append(a)
        i += 1
    return level, rest


def usage() -> str:
    width = max(len(n) for n in COMMANDS)
    lines = ["usage: cardtable [--version] [--log-level debug|info|warning|error] COMMAND [ARGS...]", "",
             "commands:"]
    lines += [f"  {name:<{width}}  {desc}" for name, (_, desc) in COMMANDS.items()]
    lines += ["", "'cardtable COMMAND --help' for a command's options."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    import os

    from controller import logs

    # OpenCV's own warnings (a camera that is not there, ...) repeat what our one line says;
    # set before anything imports cv2 (OpenCV reads it once)
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["--version"], ["-V"]):
        print(f"cardtable {version()}")
        return 0
    try:
        level, args = _log_level(args)
        logs.setup(level)
    except ValueError as exc:
        print(f"cardtable: {exc}", file=sys.stderr)
        return 2
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"cardtable: unknown command {name!r}\n\n{usage()}", file=sys.stderr)
        return 2
    try:
        entry = _load(COMMANDS[name][0])
    except (ImportError, AttributeError) as exc:
        print(f"cardtable {name}: not available in this installation ({exc})", file=sys.stderr)
        return 2
    try:
        return int(entry(rest) or 0)
    except KeyboardInterrupt:
        print(f"cardtable {name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
