"""Input edges a club meets on match night (issue 17 point 5): byte-order marks, lone CRs,
Unicode line separators, suit-first card names, huge bad input, nonsensical options."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.rules import cards
from controller.rules.errors import QUOTE_LIMIT, MESSAGE_LIMIT
from controller.rules.referee import Referee
from tests.rules.helpers import feed, kinds

START = '{"event":"start","game":"vitou","dealer":3}'
CARD = '{"event":"card","seat":0,"card":"hearts/9"}'


def run_cli(data: bytes, *args: str) -> list[dict]:
    done = subprocess.run([sys.executable, "-m", "controller.cli", "referee", *args], input=data,
                          capture_output=True, timeout=60)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    return [json.loads(x) for x in done.stdout.decode().splitlines()]


def both(data: bytes, tmp_path: Path) -> list[dict]:
    """The judgments from stdin and from a file, which must agree."""
    f = tmp_path / "events.jsonl"
    f.write_bytes(data)
    from_stdin, from_file = run_cli(data), run_cli(b"", str(f))
    assert from_stdin == from_file
    return from_stdin


def test_a_utf8_bom_before_the_first_line_is_dropped(tmp_path: Path) -> None:
    out = both(b"\xef\xbb\xbf" + f"{START}\n{CARD}\n".encode(), tmp_path)
    assert [j["judgment"] for j in out] == ["score", "turn", "turn"]


def test_a_lone_cr_ends_a_line_from_a_file_and_from_stdin(tmp_path: Path) -> None:
    out = both(f"{START}\r{CARD}\r\n".encode(), tmp_path)
    assert [(j["after"], j["judgment"]) for j in out] == [(0, "score"), (0, "turn"), (1, "turn")]


@pytest.mark.parametrize("char", ["\x1f", "\x85", "\u2028", "\x1c", "\u2029"])
def test_lines_of_only_a_unicode_separator_are_errors_not_blank(char: str, tmp_path: Path) -> None:
    out = both(f"{START}\n{char}\n \t\n{CARD}\n".encode(), tmp_path)
    assert [(j["after"], j["judgment"]) for j in out] == [(0, "score"), (0, "turn"), (1, "error"), (3, "turn")]
    assert out[2]["code"] == "bad_event"


@pytest.mark.parametrize("text", ["♣4", "4♣", "♣ 4", "c4", "4c"])
def test_suit_first_card_names_are_accepted(text: str) -> None:
    assert cards.parse_card(text, "french-40") == "clubs/4"


def test_suit_first_forms_do_not_make_rank_first_forms_ambiguous() -> None:
    """An alias naming two cards is dropped, so suit-first forms must not collide with the
    rank-first compact forms ("kc", "10h", "ch" for the knight of hearts...)."""
    for deck_id in ("french-32", "french-40", "french-52", "tarot-1jj", "trevigiane-52"):
        table, d = cards._alias_table(deck_id), cards.deck(deck_id)
        for s in d.suits:
            for r in d.ranks:
                card = f"{s}/{r}"
                assert table.get(cards.normalise(f"{r}/{s}".replace("/", " "))) == card
                assert table.get(cards.normalise(f"{s} {r}")) == card


def test_the_quote_limit_covers_the_longest_card_spelling() -> None:
    longest = max(len(k) for d in ("french-32", "french-40", "french-52", "tarot-1jj", "trevigiane-52")
                  for k in cards._alias_table(d))
    assert longest <= QUOTE_LIMIT


@pytest.mark.parametrize("line", [
    json.dumps({"event": "card", "seat": 0, "card": "x" * 100_000}),
    json.dumps({"event": "x" * 100_000}),
    json.dumps({"event": "card", "seat": "9" * 100_000, "card": "hearts/9"}),
    json.dumps({"event": "start", "game": "g" * 100_000, "dealer": 0}),
    json.dumps({"event": "start", "game": "vitou", "dealer": 0, "options": {"partners_tie": "y" * 100_000}}),
    json.dumps({"event": "start", "game": "vitou", "dealer": 0, "options": {"o" * 100_000: 1}}),
    "{" + "x" * 100_000,
])
def test_error_messages_quote_only_a_short_prefix_of_bad_input(line: str) -> None:
    ref = Referee()
    feed(ref, event="start", game="vitou", dealer=3)
    out = ref.feed_line(line)
    assert kinds(out) == ["error"]
    assert len(out[0]["message"]) <= MESSAGE_LIMIT + 1, len(out[0]["message"])


@pytest.mark.parametrize("game,options,words", [
    ("vitou", {"points_to_win": 0}, "'points_to_win' must be an integer from 2 to 1000, not 0"),
    ("vitou", {"points_to_win": 1}, "'points_to_win' must be an integer from 2 to 1000, not 1"),
    ("vitou", {"games_to_win": 0}, "'games_to_win' must be an integer from 1 to 1000, not 0"),
    ("truco", {"games_to_win": 0}, "'games_to_win' must be an integer from 1 to 1000"),
    ("trionfetti", {"points_to_win": 1}, "'points_to_win' must be an integer from 2 to 1000"),
    ("vitou", {"points_to_win": 10 ** 30}, "'points_to_win' must be an integer from 2 to 1000, not 1000000"),
    ("vitou", {"penalty_points": 10 ** 12}, "'penalty_points' must be an integer from 0 to 1000"),
    ("troccas", {"games_per_match": 0}, "'games_per_match' must be an integer from 1 to 1000"),
    ("troccas", {"hands_per_game": 99999}, "'hands_per_game' must be an integer from 0 to 1000"),
])
def test_nonsensical_option_values_are_bad_event_naming_option_and_range(game: str, options: dict,
                                                                         words: str) -> None:
    out = feed(Referee(), event="start", game=game, dealer=0, options=options)
    assert kinds(out) == ["error"] and out[0]["code"] == "bad_event", out
    assert words in out[0]["message"], out[0]["message"]


@pytest.mark.parametrize("name", ["vitou ", " vitou", "vitou\t"])
def test_a_game_name_with_blanks_around_it_is_bad_event(name: str) -> None:
    out = feed(Referee(), event="start", game=name, dealer=0)
    assert kinds(out) == ["error"] and out[0]["code"] == "bad_event"
    assert f"unknown game {name!r}" in out[0]["message"] and "vitou, truco" in out[0]["message"]


def test_the_smallest_sensible_options_still_play() -> None:
    from controller.sim import simulator
    events = simulator("vitou")(3, options={"points_to_win": 2, "games_to_win": 1})
    ref = Referee()
    assert all("error" not in kinds(ref.feed_object(e)) for e in events) and ref.game.finished
