"""The comanda language (spec §10): catalogue, restrictions, vocabulary, club config, CLI.

Expected orders are written from the §10.4 table, lowest → highest, as segments of
(suits, ranks): each rank of a segment is one group of equal cards in those suits.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.rules import comanda as cm
from controller.rules.errors import BadComanda

SHORT = {"co": "coins", "cu": "cups", "sw": "swords", "ba": "batons"}
RANK = {"1": "ace", "F": "jack", "C": "knight", "R": "king"}
ALL4 = "co cu sw ba"


def expand(*segments: tuple[str, str]) -> list[set[str]]:
    out = []
    for suits, ranks in segments:
        ss = [SHORT[s] for s in (ALL4 if suits == "all" else suits).split()]
        for r in ranks.split():
            out.append({f"{s}/{RANK.get(r, r)}" for s in ss})
    cards = [c for g in out for c in g]
    assert len(cards) == 52 == len(set(cards)), "test table itself is wrong"
    return out


def groups(text: str, **kw) -> list[set[str]]:
    return [set(g) for g in cm.parse(text, **kw).order]


FULL = "1 2 3 4 5 6 7 8 9 10 F C R"
CATALOGUE_EXPECTED = {
    "Più": [("all", FULL)],
    "Manco": [("all", "R C F 10 9 8 7 6 5 4 3 2 1")],
    "Manco ponto": [("all", "R C F 10 9 8 7 6 5 4 3 2 1")],
    "Più ponto": [("all", "F C R 1 2 3 4 5 6 7 8 9 10")],
    "Più ponto e più figure": [("all", FULL)],
    "Tutto al tredici": [("all", FULL)],
    "Manco e cavalli": [("all", "R F 10 9 8 7 6 5 4 3 2 1 C")],
    "Più figure, assi e due": [("all", "3 4 5 6 7 8 9 10 F C R 1 2")],
    "Manco e manco scartine": [("all", "R C F 7 6 5 4 3 2 1 10 9 8")],
    "Più e Napoli": [("all", "F C R 4 5 6 7 8 9 10 1 2 3")],
    "Più figure e Napoli": [("all", "4 5 6 7 8 9 10 F C R 1 2 3")],
    "Primiera": [("all", "8 9 10 F C R 2 3 4 5 1 6 7")],
    "Manco primiera": [("all", "7 6 1 5 4 3 2 R C F 10 9 8")],
    "Primiera a fanti": [("all", "8 9 10 C R 2 3 4 5 1 6 7 F")],
    "Tutto al tredici e denari al tredici": [("cu sw ba", FULL), ("co", FULL)],
    "Manco ponto e figure de bastoni": [("co cu sw", "R C F"), ("all", "10 9 8 7 6 5 4 3 2 1"), ("ba", "F C R")],
    "Primiera e manco primiera a spade": [("co cu ba", "8 9 10 F C R 2 3 4 5 1 6 7"),
                                          ("sw", "7 6 1 5 4 3 2 R C F 10 9 8")],
    "Manco sette e otto e coppe all'otto": [("all", "R C F 10 9"), ("co sw ba", "6 5 4 3 2 1 7 8"),
                                            ("cu", "1 2 3 4 5 6 7 8")],
    "Più dispari e meno pari": [("all", "1 3 5 7 9 F R C 10 8 6 4 2")],
    "Più fino al cinque e meno fino al sei": [("all", "1 2 3 4 5 R C F 10 9 8 7 6")],
    "Manco 5 e 4 più figure de coppe a asso": [("co sw ba", "R C F"), ("all", "10 9 8 7 6 3 2 1 5 4"),
                                               ("cu", "F C R")],
    "Componogara": [("cu sw ba", "F C R"), ("ba", "1 2 3 4 5 6 7 8"), ("cu ba", "9 10"), ("co", FULL),
                    ("cu", "1 2 3 4 5 6 7 8"), ("sw", "1 2 3 4 5 6 7 8 9 10")],
    "Bomba": [("co cu ba", "F C R"), ("all", "5 6 7 8 9 10 1 2 3 4"), ("sw", "F C R")],
}


def test_every_catalogue_title_is_tested() -> None:
    assert {t for _, t in cm.CATALOGUE} == set(CATALOGUE_EXPECTED)


@pytest.mark.parametrize("title", list(CATALOGUE_EXPECTED))
def test_catalogue_entry_card_by_card(title: str) -> None:
    assert groups(title) == expand(*CATALOGUE_EXPECTED[title])


@pytest.mark.parametrize("text,title", [
    ("componogara", "Componogara"),
    ("più ponto, denari al tredici, coppe all'otto, spade al dieci", "Componogara"),
    ("BOMBA", "Bomba"),
    ("più ponto, 1 2 3 4, più figure di spade", "Bomba"),
    ("amanco ponto re figure de bastoni", "Manco ponto e figure de bastoni"),   # the seed's spelling
    ("manco ponto e figure di bastoni", "Manco ponto e figure de bastoni"),
    ("piu e napoli", "Più e Napoli"),
    ("PIÙ  E  NAPOLI", "Più e Napoli"),
    ("più e al tre", "Più e Napoli"),
    ("manco e 10 9 8", "Manco e manco scartine"),  # a spelled-out list keeps its order
    ("più fino al 5 e meno fino al 6", "Più fino al cinque e meno fino al sei"),
    ("piu dispari, manco pari", "Più dispari e meno pari"),
    ("manco cinque e quattro più figure di coppe", "Manco 5 e 4 più figure de coppe a asso"),
    ("tutto al 13", "Tutto al tredici"),
    ("più", "Più"),
    ("manco e cavallo", "Manco e cavalli"),
    ("primiera e fanti", "Primiera a fanti"),
    ("tutto al tredici e denari", "Tutto al tredici e denari al tredici"),
])
def test_vocabulary_variants(text: str, title: str) -> None:
    assert groups(text) == expand(*CATALOGUE_EXPECTED[title])


def test_option_bare_piu_all() -> None:
    # §10.2.7: with 'all', bare più covers the pictures, so Più e Napoli = Più figure e Napoli
    assert groups("più e Napoli", options={"bare_piu": "all"}) == expand(*CATALOGUE_EXPECTED["Più figure e Napoli"])


def test_option_a_asso_top() -> None:
    # §10.6: the heading's reading, ace of cups above the cups' pictures
    want = expand(("co sw ba", "R C F"), ("all", "10 9 8 7 6 3 2"), ("co sw ba", "1"), ("all", "5 4"),
                  ("cu", "F C R 1"))
    assert groups("Manco 5 e 4 più figure de coppe a asso", options={"a_asso": "top"}) == want


def test_nicknames() -> None:
    g = groups("manco e Meneghello e Donne veneziane")
    assert g[-3:] == [{"swords/2"}, {"swords/4"}, {"swords/6"}]
    g = groups("più e strette col palo")
    assert g[-5:] == [{"swords/ace"}, {"swords/3"}, {"swords/5"}, {"swords/7"}, {"swords/9"}]
    assert {"coins/2", "cups/2", "swords/2", "batons/2"} in g and {"coins/3", "cups/3", "batons/3"} in g


def test_al_and_meno_al() -> None:
    assert groups("manco e all'otto")[-8:] == expand(("all", "1 2 3 4 5 6 7 8 9 10 F C R"))[:8]
    assert groups("più e meno all'otto")[-6:] == [set(x) for x in expand(("all", "R C F 10 9 8 1 2 3 4 5 6 7"))[:6]]
    assert groups("al tredici") == expand(("all", FULL))
    assert groups("più e al cinque")[-5:] == expand(("all", FULL))[:5]


# ----- §12 worked examples as orderings -------------------------------------------------
def beats(text: str, a: str, b: str) -> bool:
    lv = cm.parse(text).level
    return lv[a] > lv[b]


def test_worked_example_orderings() -> None:
    assert beats("manco", "batons/ace", "swords/jack")                       # §12.2
    assert beats("più ponto", "cups/10", "coins/king")                      # §12.3
    assert beats("tutto al tredici e denari al tredici", "coins/ace", "cups/king")   # §12.4
    assert beats("componogara", "swords/ace", "cups/ace")                   # §12.5
    assert beats("componogara", "cups/ace", "coins/king")
    assert beats("componogara", "coins/ace", "swords/king")
    assert beats("primiera", "batons/7", "cups/6") and beats("primiera", "cups/6", "coins/ace")  # §12.6
    assert beats("più dispari e meno pari", "swords/2", "batons/ace")       # §12.7
    assert beats("bomba", "coins/4", "cups/king") and beats("bomba", "swords/jack", "coins/4")  # §12.8
    lv = cm.parse("più").level
    assert lv["cups/king"] == lv["swords/king"]                              # §12.1: a tie


# ----- §10.5 restrictions and unreadable declarations -------------------------------------
@pytest.mark.parametrize("text", ["più, with aces equal to kings", "più e assi uguali ai re",
                                  "manco, 7 = 8", "figure uguali"])
def test_restriction_1_no_new_ties(text: str) -> None:
    with pytest.raises(BadComanda, match=r"restriction 1|ends too early"):
        cm.parse(text)


def test_restriction_1_message_names_ranks() -> None:
    with pytest.raises(BadComanda, match=r"restriction 1 .*ace and king"):
        cm.parse("più, with aces equal to kings")


def test_same_rank_in_different_suits_may_stay_equal() -> None:
    assert {"coins/7", "cups/7"} <= set(next(g for g in cm.parse("più").order if "coins/7" in g))
    cm.parse("denari 7 uguale a coppe 7")      # equal ranks: no new tie


@pytest.mark.parametrize("text,word", [
    ("default, but an ace beats a king when both are present", "but"),
    ("highest card of the suit led", "led"),
    ("più, ma l'asso batte il re quando ci sono tutti e due", "ma"),
    ("vince il seme di uscita", "seme"),
])
def test_restriction_2_one_straight_list(text: str, word: str) -> None:
    with pytest.raises(BadComanda, match=rf"'{word}': restriction 2"):
        cm.parse(text)


@pytest.mark.parametrize("text,match", [
    ("pippo", "unknown word 'pippo'"),
    ("più e pippo", "unknown word 'pippo'"),
    ("manco e figurre", "unknown word 'figurre'.*'figure'"),
    ("al quattordici", "unknown word 'quattordici'"),
    ("al 14", "ranks run from 1"),
    ("", "empty comanda"),
    ("  , e ", "empty comanda"),
    ("manco al", "ends too early"),
    ("denari al dieci di spade", "two different suits"),
])
def test_unreadable(text: str, match: str) -> None:
    with pytest.raises(BadComanda, match=match):
        cm.parse(text)


def test_bad_comanda_is_a_referee_error() -> None:
    with pytest.raises(ValueError) as info:
        cm.parse("pippo")
    assert info.value.code == "bad_comanda"  # type: ignore[attr-defined]


# ----- club config -------------------------------------------------------------------------
def test_club_config_adds_nickname_and_named_ranking(tmp_path) -> None:
    f = tmp_path / "club.toml"
    f.write_text('[nicknames]\n"re neri" = [["swords/king", "re di bastoni"]]\n"la bella" = ["7 di coppe"]\n'
                 '[named]\n"la nostra" = "manco ponto e denari al tredici"\n', encoding="utf-8")
    vocab = cm.load_vocabulary(f)
    g = [set(x) for x in cm.parse("tutto e re neri", vocab=vocab).order]
    assert g[-1] == {"swords/king", "batons/king"} and g[-2] == {"coins/king", "cups/king"}
    g = [set(x) for x in cm.parse("LA NOSTRA e la bella", vocab=vocab).order]
    assert g == expand(("cu sw ba", "R C F"), ("cu sw ba", "10 9 8"), ("sw ba", "7"), ("cu sw ba", "6 5 4 3 2 1"),
                       ("co", FULL), ("cu", "7"))
    # the built-in catalogue still applies, and other tables are unaffected
    assert [set(x) for x in cm.parse("bomba", vocab=vocab).order] == expand(*CATALOGUE_EXPECTED["Bomba"])
    with pytest.raises(BadComanda, match="unknown word 'nostra'"):
        cm.parse("la nostra")


def test_club_config_errors(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[nicknames]\nx = ['coins/99']\n")
    with pytest.raises(BadComanda, match="nickname 'x'"):
        cm.load_vocabulary(bad)
    bad.write_text("[colours]\n")
    with pytest.raises(BadComanda, match="unknown section"):
        cm.load_vocabulary(bad)
    with pytest.raises(BadComanda, match="does not exist"):
        cm.load_vocabulary(tmp_path / "nope.toml")


def test_shipped_config_loads() -> None:
    vocab = cm.load_vocabulary()
    assert cm.parse("più e settebello", vocab=vocab).order[-1] == ("coins/7",)


# ----- CLI --------------------------------------------------------------------------------
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "controller.cli", "comanda", *args],
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("title", list(CATALOGUE_EXPECTED))
def test_cli_json_every_catalogue_entry(title: str) -> None:
    done = run_cli(title, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["judgment"] == "ranking"
    assert [set(g) for g in out["order"]] == expand(*CATALOGUE_EXPECTED[title])


def test_cli_table_and_errors(tmp_path) -> None:
    done = run_cli("più e Napoli")
    assert done.returncode == 0
    lines = [x for x in done.stdout.splitlines() if not x.startswith("read as: ")]
    assert "lowest" in lines[2] and "jack" in lines[2] and "3" in lines[-1] and "highest" in lines[-1]
    assert "read as: bare più first: the numerals only" in done.stdout        # §10.2.7 as read
    done = run_cli("pippo")
    assert done.returncode == 1 and "unknown word 'pippo'" in done.stderr
    done = run_cli("pippo", "--json")
    assert json.loads(done.stdout)["code"] == "bad_comanda"
    f = tmp_path / "c.toml"
    f.write_text('[named]\n"la nostra" = "manco"\n')
    done = run_cli("la nostra", "--json", "--config", str(f))
    assert json.loads(done.stdout)["order"][0][0] == "coins/king"
    done = run_cli("Manco 5 e 4 più figure de coppe a asso", "--json", "--option", "a_asso=top")
    assert json.loads(done.stdout)["order"][-1] == ["cups/ace"]
    assert run_cli("--list").returncode == 0


# ----- properties -------------------------------------------------------------------------
_WORDS = ["più", "piu", "manco", "meno", "figure", "ponto", "punti", "scartine", "pari", "dispari",
          "primiera", "Napoli", "tutto", "al", "all'", "fino", "assi", "due", "tre", "4", "cinque",
          "sei", "7", "otto", "nove", "dieci", "fanti", "cavalli", "re", "tredici", "denari", "coppe",
          "spade", "bastoni", "de", "di", "a", "e", ",", "Meneghello", "Donne veneziane",
          "strette col palo", "componogara", "bomba", "uguale", "14", "pippo"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), min_size=0, max_size=12))
def test_random_declarations_give_total_preorder_or_bad_comanda(words: list[str]) -> None:
    text = " ".join(words)
    try:
        c = cm.parse(text)
    except BadComanda as exc:
        assert exc.message
        return
    cards = [x for g in c.order for x in g]
    assert sorted(cards) == sorted(cm.CARDS) and len(cards) == 52      # every card once
    assert all(g for g in c.order)
    for g in c.order:                                                   # no new ties
        assert len({cm.default_rank(x) for x in g}) == 1
    lv = c.level                                                        # a total preorder
    assert set(lv) == set(cm.CARDS)


def test_parser_speed() -> None:
    titles = [t for _, t in cm.CATALOGUE]
    memo = cm.BUILTIN._tables.setdefault("parsed", {})
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.5:
        for t in titles:
            memo.clear()                       # cold: every parse resolved from scratch
            cm.parse(t)
        n += len(titles)
    cold = n / (time.perf_counter() - t0)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.2:
        for t in titles:
            cm.parse(t)
        n += len(titles)
    warm = n / (time.perf_counter() - t0)
    print(f"comanda parser: {cold:.0f} parses/s cold, {warm:.0f} parses/s repeated")
    assert cold > 200


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_simulated_declarations_resolve_or_fail_cleanly(seed: int) -> None:
    import random

    from controller.sim.trionfetti import random_declaration
    text = random_declaration(random.Random(seed))
    try:
        c = cm.parse(text, vocab=cm.load_vocabulary())
    except BadComanda:
        return
    assert sorted(x for g in c.order for x in g) == sorted(cm.CARDS)
    assert all(len({cm.default_rank(x) for x in g}) == 1 for g in c.order)


# ----- open points made visible (issue 17 point 6) ----------------------------------------------
def test_meno_al_x_reads_in_the_manco_direction_and_says_so() -> None:
    c = cm.parse("meno all'otto")            # unnamed 1-7 below, in the manco direction (§10.2.6)
    assert [set(g) for g in c.order] == expand(("all", "7 6 5 4 3 2 1 R C F 10 9 8"))   # §10.3 table
    assert any("king lowest up to the 8 highest (R C F 10 9 8)" in r and "meno_al=king_top" in r
               for r in c.readings)


def test_meno_al_x_club_option_king_top() -> None:
    c = cm.parse("meno all'otto", {"meno_al": "king_top"})
    assert [set(g) for g in c.order] == expand(("all", "7 6 5 4 3 2 1 8 9 10 F C R"))
    assert any("the 8 lowest up to the king highest" in r for r in c.readings)


def test_bare_piu_reading_is_stated_only_where_it_matters() -> None:
    assert cm.parse("più").readings == () and cm.parse("manco e cavalli").readings == ()
    (ponto,) = cm.parse("più e Napoli").readings
    assert "numerals only" in ponto and "bare_piu=all" in ponto
    (full,) = cm.parse("più e Napoli", {"bare_piu": "all"}).readings
    assert "all 13 ranks" in full


def test_the_ranking_judgment_carries_the_reading() -> None:
    import json as _json
    from controller.rules.referee import Referee
    for options, words in (({}, "king lowest up to the 8"), ({"meno_al": "king_top"}, "8 lowest up to the king")):
        ref = Referee()
        ref.feed_line(_json.dumps({"event": "start", "game": "trionfetti", "dealer": 3, "options": options}))
        cutter = ref.game.to_act()[0]
        out = ref.feed_line(_json.dumps({"event": "comanda", "seat": cutter, "text": "meno all'otto"}))
        (ranking,) = [j for j in out if j["judgment"] == "ranking"]
        assert any(words in r for r in ranking["reading"]), ranking
    ref = Referee()
    ref.feed_line('{"event":"start","game":"trionfetti","dealer":3}')
    out = ref.feed_line(_json.dumps({"event": "comanda", "seat": ref.game.to_act()[0], "text": "Manco"}))
    assert "reading" not in out[0]                                  # nothing open: the judgment is as before
