"""The referee: an event-sourced wrapper around one game, and ``cardtable referee``.

It owns what is common to every game: ``start`` (a new match), ``undo`` (take back the
last accepted event: replay the accepted events minus the last; a ``start`` is an event
too, so undoing one brings the match it replaced back exactly), ``no_match``, and the promise that a rejected event
changes nothing (the game is restored from a checkpoint and the accepted events after
it). Judgments carry ``"after"``: the index of the input that caused them.
"""
from __future__ import annotations

import argparse
import io
import json
import pickle
import sys
from typing import IO, Any, Iterable, Sequence

from controller.rules import GAMES, find_game
from controller.rules.engine import Game, Judgment, judgment
from controller.rules.errors import BadEvent, NoMatch, RefereeError, quote
from controller.rules.events import Event, parse_event, parse_line


def encode(j: Judgment) -> str:
    """The one JSON Lines encoding of a judgment: compact, key order as built."""
    return json.dumps(j, separators=(",", ":"), ensure_ascii=False)


class Referee:
    """Judges a stream of events; the state is the game plus the accepted events."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.accepted: list[Event] = []   # since (and including) the last start
        self._checkpoint: tuple[bytes, int] | None = None  # (pickled game, len(accepted))
        # What each accepted start replaced, so undoing it restores that exactly.
        self._replaced: list[tuple[Game | None, list[Event], tuple[bytes, int] | None]] = []

    # ----- feeding ----------------------------------------------------------------
    def feed_line(self, line: str) -> list[Judgment]:
        """Judge one JSON line; a bad line gives one ``error`` judgment."""
        try:
            event = parse_line(line)
        except RefereeError as exc:
            return [self._error(exc)]
        return self.feed(event)

    def feed_object(self, obj: Any) -> list[Judgment]:
        """Judge an already decoded JSON object (MQTT commands, journals)."""
        try:
            event = parse_event(obj)
        except RefereeError as exc:
            return [self._error(exc)]
        return self.feed(event)

    def feed(self, event: Event) -> list[Judgment]:
        """Judge a validated event. Never raises for bad input: errors are judgments."""
        try:
            if event.kind == "start":
                return self._start(event)
            if event.kind == "undo":
                return self._undo()
            if self.game is None:
                raise NoMatch("no match in progress: send a start event first")
            if self.game.finished:
                raise NoMatch("the match is over: send start for a new match, or undo")
            self._maybe_checkpoint()
            try:
                out = self.game.apply(event)
            except RefereeError:
                self._restore()
                raise
            except Exception as exc:  # a rules bug must not lose the match
                self._restore()
                raise BadEvent(f"internal error judging {event.kind}: {exc!r}") from exc
            self.accepted.append(event)
            return out
        except RefereeError as exc:
            return [self._error(exc)]

    # ----- start / undo ----------------------------------------------------------
    def _start(self, event: Event) -> list[Judgment]:
        game = self.new_game(event)
        out = game.begin()
        self._replaced.append((self.game, self.accepted, self._checkpoint))
        self.game, self.accepted, self._checkpoint = game, [event], None
        return out

    @staticmethod
    def new_game(event: Event) -> Game:
        assert event.game is not None and event.dealer is not None
        try:
            cls = find_game(event.game)
        except KeyError:
            raise BadEvent(f"unknown game {quote(event.game)}; games: {', '.join(GAMES)}") from None
        players = cls.default_players if event.players is None else event.players
        if players not in cls.player_counts:
            counts = ", ".join(map(str, cls.player_counts))
            raise BadEvent(f"{cls.name} is played by {counts} players, not {players}")
        if not 0 <= event.dealer < players:
            raise BadEvent(f"dealer {event.dealer} does not exist: seats are 0 to {players - 1}")
        return cls(players, event.dealer, dict(event.options))

    def _undo(self) -> list[Judgment]:
        if not self.accepted:
            raise NoMatch("nothing to undo")
        events = self.accepted[:-1]
        if not events:                 # undo of a start: the match it replaced comes back
            self.game, self.accepted, self._checkpoint = self._replaced.pop()
            return [] if self.game is None else [self.game.score_judgment(), *self.game.turn_judgments()]
        self._rebuild(events)
        assert self.game is not None
        return [self.game.score_judgment(), *self.game.turn_judgments()]

    def _rebuild(self, events: list[Event]) -> None:
        """Make the state that ``events`` (a start first) lead to, from the best checkpoint."""
        cp = self._checkpoint
        # events is always a prefix of self.accepted (undo drops the last; restore keeps all)
        if cp is not None and cp[1] <= len(events):
            game, done = pickle.loads(cp[0]), cp[1]
        else:
            game, done = self.new_game(events[0]), 1
            self._checkpoint = None
        for ev in events[done:]:
            game.apply(ev)
        self.game, self.accepted = game, list(events)

    def _maybe_checkpoint(self) -> None:
        """Keep a snapshot every 64 accepted events, so restores replay little."""
        n = len(self.accepted)
        if self._checkpoint is None or n - self._checkpoint[1] >= 64:
            self._checkpoint = (pickle.dumps(self.game, protocol=pickle.HIGHEST_PROTOCOL), n)

    def _restore(self) -> None:
        self._rebuild(list(self.accepted))

    def _error(self, exc: RefereeError) -> Judgment:
        return judgment("error", code=exc.code, message=exc.message)

    # ----- state -------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any] | None:
        return None if self.game is None else self.game.snapshot()


# What JSON itself calls whitespace (RFC 8259): a line of only these is blank and skipped.
# str.strip() would also drop U+001F, U+0085, U+2028..., which are not blank JSON.
JSON_BLANKS = " \t\r\n"
BOM = "\ufeff"


def judge_lines(lines: Iterable[str], out: IO[str]) -> int:
    """Judge JSON Lines, writing judgment lines; returns the number of input lines.

    A UTF-8 byte-order mark before the first line is dropped (editors on Windows add one).
    """
    ref = Referee()
    n = 0
    for i, line in enumerate(lines):
        n = i + 1
        if i == 0 and line.startswith(BOM):
            line = line[len(BOM):]
        if not line.strip(JSON_BLANKS):
            continue
        for j in ref.feed_line(line):
            out.write(encode({"after": i, **j}) + "\n")
    return n


def open_events(path: str | None) -> IO[str]:
    """The events file, or stdin for None / "-", read the same way: UTF-8 (bad bytes
    replaced, so they become a bad_event rather than a crash) with universal newlines, so a
    lone CR ends a line from a file and from a pipe alike."""
    if path in (None, "-"):
        return io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace", newline=None)
    return open(path, encoding="utf-8", errors="replace", newline=None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="cardtable referee",
        description="Judge JSON Lines events (CONTRACT §3) from FILE or stdin; write judgments to stdout.")
    parser.add_argument("file", nargs="?", help="events file (default: standard input)")
    args = parser.parse_args(argv)
    try:
        src = open_events(args.file)
    except OSError as exc:
        print(f"cardtable referee: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    with src:
        judge_lines(src, sys.stdout)
    return 0
