"""The Trionfetti *comanda*: a card ranking declared in the club's words (spec §10).

:func:`parse` turns a declaration such as ``"più e Napoli"``, ``"manco e cavalli"`` or
``"Componogara"`` into a :class:`Comanda`: the 52 cards of the Trevigiane pack as groups
of equal cards, lowest group first. It follows the building algorithm of §10.2.4: read
the declaration as a sequence of *terms*; each term names cards in an internal order
(lowest first), which are taken out of wherever they were and put on top; cards never
named go to the bottom, in the direction of the base word (ascending after *più*,
descending after *manco*, §10.2.6). The result is then checked against the two
restrictions of §10.5 and anything unreadable is a :class:`BadComanda` naming the word.

Grammar (after folding case, accents and spelling variants, see :data:`CANON`)::

    declaration := term { [e | , | poi] term }
    term        := [più | manco | meno] [suit] body [di|de|a suit] [a rank...] [uguale [a] term]
    body        := al X | fino al X | figure | ponto | scartine | pari | dispari
                 | primiera | Napoli | tutto | rank rank ... | nickname | (nothing, after a suit)

*meno/manco al X* is the king down to X (§10.3). A direction word reverses a named set
(*manco scartine* = 10 9 8) but never a list of ranks the cutter spells out one by one,
which is already in his order (*manco 5 e 4*: 4 beats 5). A named ranking (*Componogara*,
*Bomba*, a club's own) stands for its declaration text and may be combined with more
terms. Clubs add nicknames and named rankings in ``config/comanda.toml`` (format in
:func:`load_vocabulary` and ``docs/rules/trionfetti.md``).

This module imports only the standard library and the card helpers; the ``cardtable
comanda`` command is :func:`main`.
"""
from __future__ import annotations

import argparse
import difflib
import json
import sys
import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Sequence

from controller.rules.cards import normalise
from controller.rules.errors import BadComanda

CONFIG_FILE = Path(__file__).resolve().parents[2] / "config" / "comanda.toml"

SUITS = ("coins", "cups", "swords", "batons")          # deck order of trevigiane-52
RANK_IDS = {1: "ace", 11: "jack", 12: "knight", 13: "king"}
RANK_NUM = {"ace": 1, "jack": 11, "knight": 12, "king": 13, **{str(n): n for n in range(2, 11)}}
RANK_SHORT = {1: "1", 11: "F", 12: "C", 13: "R", **{n: str(n) for n in range(2, 11)}}
ALL = tuple(range(1, 14))


def card_id(suit: str, rank: int) -> str:
    return f"{suit}/{RANK_IDS.get(rank, str(rank))}"


def default_rank(card: str) -> int:
    """1 (ace) … 13 (king): the rank a card has under the default order (§1.4)."""
    return RANK_NUM[card.partition("/")[2]]


CARDS: tuple[str, ...] = tuple(card_id(s, r) for s in SUITS for r in ALL)
_DECK_INDEX = {c: i for i, c in enumerate(CARDS)}
_RANK_OF = {c: default_rank(c) for c in CARDS}
_CARD_SET = frozenset(CARDS)

# ----- vocabulary: every spelling folds to one canonical token -------------------------
_NUMBER_WORDS = {
    "1": ["1", "asso", "assi", "aso", "uno", "ace", "aces"],
    "2": ["2", "due", "dui", "two", "twos"],
    "3": ["3", "tre", "three", "threes"],
    "4": ["4", "quattro", "quatro", "four", "fours"],
    "5": ["5", "cinque", "cinqe", "five", "fives"],
    "6": ["6", "sei", "six", "sixes"],
    "7": ["7", "sette", "sete", "seven", "sevens"],
    "8": ["8", "otto", "oto", "eight", "eights"],
    "9": ["9", "nove", "nine", "nines"],
    "10": ["10", "dieci", "diese", "dies", "ten", "tens"],
    "11": ["11", "undici", "fante", "fanti", "fanto", "jack", "jacks"],
    "12": ["12", "dodici", "cavallo", "cavalli", "caval", "cavai", "knight", "knights", "horse", "horses"],
    "13": ["13", "tredici", "re", "rei", "king", "kings"],
}
_WORDS = {
    "piu": ["piu", "more"],
    "manco": ["manco", "amanco", "meno", "less"],
    "figure": ["figure", "figura", "figuri", "pictures", "picture", "faces"],
    "ponto": ["ponto", "ponti", "punto", "punti", "numerals", "numbers"],
    "scartine": ["scartine", "scartina", "scartini", "scraps"],
    "pari": ["pari", "even", "evens"],
    "dispari": ["dispari", "odd", "odds"],
    "primiera": ["primiera", "premiera"],
    "napoli": ["napoli", "napoletana", "napule"],
    "tutto": ["tutto", "tutti", "tutte", "default", "normale"],
    "coins": ["denari", "denaro", "danari", "dinari", "ori", "oro", "coins", "coin"],
    "cups": ["coppe", "coppa", "cope", "cups", "cup"],
    "swords": ["spade", "spada", "strette", "swords", "sword"],
    "batons": ["bastoni", "bastone", "baston", "batons", "baton"],
    "di": ["di", "de", "del", "dei", "delle", "della", "dello", "degli", "d", "of", "in"],
    "al": ["al", "all", "alla", "allo", "up to"],
    "ai": ["ai", "agli", "alle", "to"],
    "a": ["a", "ad"],
    "fino": ["fino", "fin", "sino", "until"],
    "e": ["e", "ed", "et", "and", ",", ";", "poi", "then", "+", "&", "."],
    "uguale": ["uguale", "uguali", "eguale", "eguali", "equal", "equals", "=", "come", "same"],
    "": ["il", "lo", "la", "i", "gli", "le", "l", "un", "una", "the", "con", "col", "coi", "with",
         "tutto il", "cards", "card", "carte"],
}
# §10.5.2: words that make a rule depend on the trick (the suit led, which cards are in it)
SITUATIONAL = {"quando", "se", "tranne", "eccetto", "salvo", "ma", "pero", "uscita", "seme",
               "when", "if", "except", "unless", "but", "led", "lead", "leads", "batte", "battono",
               "beats", "beat", "both", "entrambi", "ambedue", "presenti", "present", "depends",
               "dipende", "circolare", "circular", "otherwise", "altrimenti"}
CANON: dict[str, str] = {}
for _canon, _variants in (*_NUMBER_WORDS.items(), *_WORDS.items()):
    for _v in _variants:
        CANON[_v] = _canon
DIRECTIONS = {"piu": 1, "manco": -1}
SUIT_WORDS = set(SUITS)
SETS: dict[str, tuple[int, ...]] = {
    "figure": (11, 12, 13),
    "ponto": tuple(range(1, 11)),
    "scartine": (8, 9, 10),
    "pari": (2, 4, 6, 8, 10, 12),
    "dispari": (1, 3, 5, 7, 9, 11, 13),
    "primiera": (8, 9, 10, 11, 12, 13, 2, 3, 4, 5, 1, 6, 7),
    "napoli": (1, 2, 3),
    "tutto": ALL,
}
RANK_TOKENS = {str(n) for n in ALL}

# ----- built-in nicknames (§10.3) and the catalogue (§10.4) ------------------------------
BUILTIN_NICKNAMES: dict[str, list[list[str]]] = {
    "strette col palo": [["swords/ace"], ["swords/3"], ["swords/5"], ["swords/7"], ["swords/9"]],
    "donne veneziane": [["swords/4"], ["swords/6"]],
    "meneghello": [["swords/2"]],
}

# Named rankings that are not plain compositions of the vocabulary. The value is the
# declaration they stand for; #20 depends on the club's reading of "a asso" (§10.6).
BUILTIN_NAMED: dict[str, str] = {
    "componogara": "più ponto, denari al tredici, coppe all'otto, spade al dieci",
    "bomba": "più ponto, 1 2 3 4, più figure di spade",
    "amanco ponto re figure de bastoni": "manco ponto e figure de bastoni",
}
A_ASSO_TITLE = "manco 5 e 4 più figure de coppe a asso"
A_ASSO_READINGS = {
    "body": "manco 5 e 4 più figure de coppe",
    "top": "manco 5 e 4 più figure de coppe e asso di coppe",
}

# (#, title as the club says it) — every title parses to the order listed in §10.4.
CATALOGUE: tuple[tuple[int, str], ...] = (
    (1, "Più"),
    (2, "Manco"),
    (3, "Manco ponto"),
    (4, "Più ponto"),
    (5, "Più ponto e più figure"),
    (5, "Tutto al tredici"),
    (6, "Manco e cavalli"),
    (7, "Più figure, assi e due"),
    (8, "Manco e manco scartine"),
    (9, "Più e Napoli"),
    (10, "Più figure e Napoli"),
    (11, "Primiera"),
    (12, "Manco primiera"),
    (13, "Primiera a fanti"),
    (14, "Tutto al tredici e denari al tredici"),
    (15, "Manco ponto e figure de bastoni"),
    (16, "Primiera e manco primiera a spade"),
    (17, "Manco sette e otto e coppe all'otto"),
    (18, "Più dispari e meno pari"),
    (19, "Più fino al cinque e meno fino al sei"),
    (20, "Manco 5 e 4 più figure de coppe a asso"),
    (21, "Componogara"),
    (22, "Bomba"),
)

OPTION_CHOICES = {"bare_piu": ("ponto", "all"), "a_asso": ("body", "top"), "meno_al": ("manco", "king_top")}
DEFAULTS = {"bare_piu": "ponto", "a_asso": "body", "meno_al": "manco"}

# What the ranking judgment says about a choice the spec leaves open (§10.2.7, §10.3), so the
# table sees how the declaration was read and which club option reads it the other way.
READINGS = {
    ("meno_al", "manco"): "{said}: the king lowest up to the {x} highest ({order}), the manco "
                          "direction, as in the §10.3 table read lowest first; club option "
                          "meno_al=king_top puts the king on top",
    ("meno_al", "king_top"): "{said}: the {x} lowest up to the king highest ({order}), club option "
                             "meno_al=king_top (the default reads it in the manco direction)",
    ("bare_piu", "ponto"): "bare più first: the numerals only, ace to 10, pictures lowest (the "
                           "seed's Più e Napoli, §10.2.7); club option bare_piu=all puts the "
                           "pictures above the 10",
    ("bare_piu", "all"): "bare più first: all 13 ranks, ace to king (the glossary, §10.3), club "
                         "option bare_piu=all (the default follows the Più e Napoli example)",
}


# ----- tokens -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Tok:
    canon: str
    word: str                     # as the cutter wrote it (folded), for messages


def _split(text: str) -> list[str]:
    t = normalise(text)
    for ch in "'’`/()[]\"":
        t = t.replace(ch, " ")
    for ch in ",;+&.=":
        t = t.replace(ch, f" {ch} ")
    return t.split()


def tokens(text: str) -> list[Tok]:
    """Fold ``text`` to canonical tokens; fillers dropped, unknown words kept as they are."""
    words = _split(text)
    out: list[Tok] = []
    i = 0
    while i < len(words):
        two = " ".join(words[i:i + 2])
        if i + 1 < len(words) and two in CANON:
            c, w, i = CANON[two], two, i + 2
        else:
            w = words[i]
            c, i = CANON.get(w, w), i + 1
        if c:
            out.append(Tok(c, w))
    return out


def phrase_key(text: str) -> tuple[str, ...]:
    """The canonical form of a nickname or name: connectors (e, commas) ignored."""
    return tuple(t.canon for t in tokens(text) if t.canon != "e")


# ----- the vocabulary a table uses ----------------------------------------------------------
@dataclass(frozen=True)
class Vocabulary:
    """Nicknames (card groups) and named rankings (declaration text), by canonical key."""

    nicknames: dict[tuple[str, ...], tuple[frozenset[str], ...]] = field(default_factory=dict)
    named: dict[tuple[str, ...], str] = field(default_factory=dict)
    source: str = "built-in"
    labels: dict[tuple[str, ...], str] = field(default_factory=dict)   # key -> name as written
    _tables: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def phrases(self) -> list[tuple[str, ...]]:
        return sorted({*self.nicknames, *self.named}, key=len, reverse=True)

    def tables(self, a_asso: str) -> tuple[list[tuple[str, ...]], dict[tuple[str, ...], str]]:
        """(phrases longest first, named rankings) with #20 read as the club reads it."""
        if a_asso not in self._tables:
            named = dict(self.named)
            named.setdefault(phrase_key(A_ASSO_TITLE), A_ASSO_READINGS[a_asso])
            phrases = sorted({*self.nicknames, *named}, key=len, reverse=True)
            self._tables[a_asso] = (phrases, named)
        return self._tables[a_asso]


def _card_groups(name: str, groups: Any, where: str) -> tuple[frozenset[str], ...]:
    from controller.rules.cards import parse_card
    if not isinstance(groups, list) or not groups:
        raise BadComanda(f"{where}: nickname {name!r} must be a list of cards (lowest first)")
    out = []
    for g in groups:
        members = g if isinstance(g, list) else [g]
        try:
            out.append(frozenset(parse_card(str(c), "trevigiane-52") for c in members))
        except ValueError as exc:
            raise BadComanda(f"{where}: nickname {name!r}: {exc}") from None
    return tuple(out)


def build_vocabulary(nicknames: dict[str, Any], named: dict[str, str], source: str) -> Vocabulary:
    nick = {phrase_key(k): _card_groups(k, v, source) for k, v in nicknames.items()}
    nm: dict[tuple[str, ...], str] = {}
    for k, v in named.items():
        if not isinstance(v, str):
            raise BadComanda(f"{source}: named ranking {k!r} must be a declaration string")
        nm[phrase_key(k)] = v
    labels = {phrase_key(k): k for k in (*nicknames, *named)}
    return Vocabulary(nick, nm, source, labels)


BUILTIN = build_vocabulary(BUILTIN_NICKNAMES, BUILTIN_NAMED, "built-in")


def load_vocabulary(path: str | Path | None = None) -> Vocabulary:
    """The built-in vocabulary plus a club file (default ``config/comanda.toml``).

    Format (TOML)::

        [nicknames]            # a name for cards; a list is lowest first,
        settebello = ["coins/7"]                 # an inner list is a group of equal cards
        "re neri" = [["swords/king", "batons/king"]]

        [named]                # a name for a whole declaration, in the usual words
        "la nostra" = "manco ponto e denari al tredici"

    Card names accept every alias of ``config/decks/aliases.toml`` (``"7 di denari"``). A
    club entry with the same name as a built-in one replaces it. A missing default file
    is not an error; a missing explicit file, bad TOML or a bad entry is a BadComanda.
    """
    p = Path(path) if path else CONFIG_FILE
    if not p.exists():
        if path:
            raise BadComanda(f"comanda config {p} does not exist")
        return BUILTIN
    return _load_file(str(p.resolve()), p.stat().st_mtime_ns)


@cache
def _load_file(path: str, _mtime: int) -> Vocabulary:
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BadComanda(f"comanda config {path}: {exc}") from None
    unknown = sorted(set(data) - {"nicknames", "named"})
    if unknown:
        raise BadComanda(f"comanda config {path}: unknown section(s) {', '.join(unknown)} "
                         "(known: nicknames, named)")
    club = build_vocabulary(data.get("nicknames", {}), data.get("named", {}), path)
    return Vocabulary({**BUILTIN.nicknames, **club.nicknames}, {**BUILTIN.named, **club.named}, path,
                      {**BUILTIN.labels, **club.labels})


# ----- terms and the building algorithm -----------------------------------------------------
Group = frozenset[str]


@dataclass
class Term:
    groups: list[Group]                # lowest first
    words: str                         # what the cutter said, for messages
    direction: int | None = None       # the direction word the term began with
    bare: bool = False                 # a lone più / manco


@dataclass(frozen=True)
class Comanda:
    """A resolved ranking: groups of equal cards, lowest first, covering all 52 cards."""

    text: str
    order: tuple[tuple[str, ...], ...]
    readings: tuple[str, ...] = ()     # how open points of the spec were read (READINGS)

    @property
    def level(self) -> dict[str, int]:
        return {c: i for i, g in enumerate(self.order) for c in g}

    def to_json(self) -> list[list[str]]:
        return [list(g) for g in self.order]

    def describe(self) -> str:
        return describe(self.order)


class _Parser:
    def __init__(self, text: str, vocab: Vocabulary, options: dict[str, str]) -> None:
        self.vocab, self.options = vocab, options
        self.readings: list[str] = []
        self.items: list[Tok | Term] = self._expand(tokens(text), 0)
        self.i = 0

    # named rankings and nicknames are matched first, longest first, ignoring connectors
    def _expand(self, toks: list[Tok], depth: int) -> list[Tok | Term]:
        if depth > 8:
            raise BadComanda("named rankings refer to each other in a circle")
        phrases, named = self.vocab.tables(self.options["a_asso"])
        out: list[Tok | Term] = []
        i = 0
        while i < len(toks):
            hit = None
            for key in phrases:
                end = _match(toks, i, key)
                if end is not None:
                    hit = (key, end)
                    break
            if hit is None:
                out.append(toks[i])
                i += 1
                continue
            key, end = hit
            said = " ".join(t.word for t in toks[i:end])
            if key in named:
                sub = self._expand(tokens(named[key]), depth + 1)
                out += [Tok("e", ",")] + sub + [Tok("e", ",")]
            else:
                out.append(Term(list(self.vocab.nicknames[key]), said))
            i = end
        return out

    # ----- reading ---------------------------------------------------------------------
    def peek(self, k: int = 0) -> Tok | Term | None:
        j = self.i + k
        return self.items[j] if j < len(self.items) else None

    def peek_canon(self, k: int = 0) -> str | None:
        t = self.peek(k)
        return t.canon if isinstance(t, Tok) else None

    def take(self) -> Tok | Term:
        t = self.items[self.i]
        self.i += 1
        return t

    def parse(self) -> list[Term]:
        for it in self.items:
            if isinstance(it, Tok) and it.canon in SITUATIONAL:
                raise BadComanda(
                    f"{it.word!r}: restriction 2 (§10.5.2, one straight list) — a comanda is one "
                    "fixed list of cards, lowest to highest; it may not depend on the suit led or "
                    "on which cards are in the trick")
        terms: list[Term] = []
        while self.peek() is not None:
            if self.peek_canon() == "e":
                self.i += 1
                continue
            terms.extend(self.term())
        if not terms:
            raise BadComanda("empty comanda: name at least one term (e.g. 'più', 'manco', 'componogara')")
        return terms

    def _unexpected(self, tok: Tok | Term | None, after: str) -> BadComanda:
        if tok is None:
            return BadComanda(f"the comanda ends too early after {after!r}")
        if isinstance(tok, Term):
            return BadComanda(f"{tok.words!r} cannot follow {after!r}")
        if tok.canon == tok.word and tok.canon not in CANON.values() and tok.canon not in SITUATIONAL:
            known = sorted({*CANON, *(" ".join(k) for k in self.vocab.phrases())})
            near = difflib.get_close_matches(tok.word, known, n=3, cutoff=0.75)
            hint = f" (did you mean {', '.join(repr(n) for n in near)}?)" if near else ""
            return BadComanda(f"unknown word {tok.word!r} in the comanda{hint}")
        return BadComanda(f"{tok.word!r} cannot follow {after!r} here")

    def _number(self, after: str) -> int:
        t = self.peek()
        if isinstance(t, Tok) and t.canon in RANK_TOKENS:
            self.i += 1
            return int(t.canon)
        if isinstance(t, Tok) and t.canon.isdigit():
            raise BadComanda(f"{after} {t.word}: ranks run from 1 (ace) to 13 (king)")
        raise self._unexpected(t, after)

    def term(self) -> list[Term]:
        start = self.i
        direction = None
        c = self.peek_canon()
        if c in DIRECTIONS:
            direction = DIRECTIONS[c]
            self.i += 1
        nxt = self.peek_canon()
        if direction is not None and (self.peek() is None or nxt == "e" or nxt in DIRECTIONS):
            return [Term([], self._said(start), direction, bare=True)]
        suits: tuple[str, ...] = SUITS
        if nxt in SUIT_WORDS:
            suits = (nxt,)
            self.i += 1
        ranks, reversible, groups = self._body(direction, suits != SUITS)
        # suffix: "di spade", "a spade", or a bare suit word
        c = self.peek_canon()
        if (c in ("di", "a") and self.peek_canon(1) in SUIT_WORDS
                or c in SUIT_WORDS and self.peek_canon(1) not in ("al", "fino", "a")):
            if c in ("di", "a"):
                self.i += 1
            s = self.take()
            assert isinstance(s, Tok)
            if suits != SUITS and suits != (s.canon,):
                raise BadComanda(f"{self._said(start)!r} names two different suits")
            suits = (s.canon,)
        if ranks is not None:
            if direction == -1 and reversible:
                ranks = tuple(reversed(ranks))
            groups = [frozenset(card_id(s, r) for s in suits) for r in ranks]
        elif suits != SUITS:
            groups = [g & frozenset(card_id(s, r) for s in suits for r in ALL) for g in groups]
            groups = [g for g in groups if g]
        out = [Term(groups, self._said(start), direction)]
        # "a fanti" / "a asso": that rank (in the same suits) on top
        if self.peek_canon() == "a" and self.peek_canon(1) in RANK_TOKENS:
            s0 = self.i
            self.i += 1
            tops = []
            while self.peek_canon() in RANK_TOKENS:
                tops.append(int(self.take().canon))  # type: ignore[union-attr]
            out.append(Term([frozenset(card_id(s, r) for s in suits) for r in tops], self._said(s0)))
        # "assi uguali ai re": one group (the restriction check will judge it)
        if self.peek_canon() == "uguale":
            self.i += 1
            if self.peek_canon() in ("a", "ai", "al"):
                self.i += 1
            if self.peek() is None:
                raise self._unexpected(None, self._said(start))
            other = self.term()
            merged = frozenset().union(*(g for t in out for g in t.groups), *(g for t in other for g in t.groups))
            return [Term([merged], self._said(start))]
        return out

    def _said(self, start: int) -> str:
        parts = []
        for t in self.items[start:self.i]:
            parts.append(t.word if isinstance(t, Tok) else t.words)
        return " ".join(parts)

    def _body(self, direction: int | None, has_suit: bool) -> tuple[tuple[int, ...] | None, bool, list[Group]]:
        """(ranks lowest first, may a direction reverse them, explicit groups)."""
        t = self.peek()
        if isinstance(t, Term):                       # a nickname
            self.i += 1
            return None, False, t.groups
        c = self.peek_canon()
        if c == "fino":
            self.i += 1
            c = self.peek_canon()
            if c not in ("al", "a"):
                raise self._unexpected(self.peek(), "fino")
        if c == "tutto" and self.peek_canon(1) in ("al", "a"):
            self.i += 1
            c = self.peek_canon()
        nxt1 = self.peek_canon(1) or ""
        if c == "al" or c == "a" and (nxt1 in RANK_TOKENS or nxt1.isdigit()):
            word = self.take()
            x = self._number(word.word if isinstance(word, Tok) else "al")
            if direction == -1:                       # meno al X: king down to X (§10.3)
                way = self.options["meno_al"]
                ranks = tuple(range(13, x - 1, -1)) if way == "manco" else tuple(range(x, 14))
                self.readings.append(READINGS["meno_al", way].format(
                    said=f"meno al {x}", x=RANK_IDS.get(x, str(x)), order=" ".join(RANK_SHORT[r] for r in ranks)))
                return ranks, False, []
            return tuple(range(1, x + 1)), False, []
        if c in SETS:
            self.i += 1
            return SETS[c], True, []
        if c in RANK_TOKENS:
            ranks = []
            while self.peek_canon() in RANK_TOKENS:
                ranks.append(int(self.take().canon))  # type: ignore[union-attr]
            return tuple(ranks), False, []
        if has_suit:                                  # "denari": the whole suit
            return ALL, True, []
        raise self._unexpected(self.peek(), self._said(max(0, self.i - 1)) or "the start")


def _match(toks: list[Tok], i: int, key: tuple[str, ...]) -> int | None:
    """End index if ``key`` matches the tokens from ``i`` (connectors skipped), else None."""
    if not key:
        return None
    j = i
    for k, want in enumerate(key):
        while k and j < len(toks) and toks[j].canon == "e":
            j += 1
        if j >= len(toks) or toks[j].canon != want:
            return None
        j += 1
    return j


def build(terms: list[Term], options: dict[str, str],
          readings: list[str] | None = None) -> tuple[tuple[str, ...], ...]:
    """§10.2.4: each term's cards move on top in its order; unnamed cards at the bottom.
    How an open point was read is appended to ``readings``."""
    base = next((t.direction for t in terms[:1] if t.direction is not None), 1)
    order: list[set[str]] = []
    for n, t in enumerate(terms):
        groups = t.groups
        if t.bare:
            full = len(terms) == 1 or t.direction == -1 or options["bare_piu"] == "all" or n > 0
            if n == 0 and len(terms) > 1 and t.direction == 1 and readings is not None:
                readings.append(READINGS["bare_piu", options["bare_piu"]])
            ranks = ALL if full else tuple(range(1, 11))
            if t.direction == -1:
                ranks = tuple(reversed(ranks))
            groups = [frozenset(card_id(s, r) for s in SUITS) for r in ranks]
        named = frozenset().union(*groups) if groups else frozenset()
        order = [g - named for g in order]
        order = [g for g in order if g]
        order += [set(g) for g in groups if g]
    seen = set().union(*order) if order else set()
    by_rank: dict[int, set[str]] = {}
    for c in CARDS:
        if c not in seen:
            by_rank.setdefault(_RANK_OF[c], set()).add(c)
    bottom = [by_rank[r] for r in sorted(by_rank, reverse=base == -1)]
    full = bottom + order
    return tuple(tuple(sorted(g, key=_DECK_INDEX.__getitem__)) for g in full)


def check(order: tuple[tuple[str, ...], ...]) -> None:
    """The two restrictions of §10.5; BadComanda names the one broken."""
    if sum(map(len, order)) != 52 or set().union(*order) != _CARD_SET:
        raise BadComanda("restriction 2 (§10.5.2, one straight list): the ranking must hold "
                         "each of the 52 cards exactly once")
    for g in order:
        ranks = sorted({_RANK_OF[c] for c in g})
        if len(ranks) > 1:
            names = " and ".join(RANK_IDS.get(r, str(r)) for r in ranks)
            raise BadComanda(f"restriction 1 (§10.5.1, no new ties): {names} would be equal; "
                             "cards of different ranks may never be made equal")


def parse(text: str, options: dict[str, str] | None = None, vocab: Vocabulary | None = None) -> Comanda:
    """Resolve a declaration; :class:`BadComanda` when it is unreadable or illegal."""
    opts = dict(DEFAULTS)
    for k, v in (options or {}).items():
        if k not in OPTION_CHOICES or v not in OPTION_CHOICES[k]:
            raise BadComanda(f"comanda option {k}={v!r} unknown (known: "
                             + "; ".join(f"{n}: {'/'.join(c)}" for n, c in OPTION_CHOICES.items()) + ")")
        opts[k] = v
    if not isinstance(text, str) or not text.strip():
        raise BadComanda("empty comanda: name at least one term (e.g. 'più', 'manco', 'componogara')")
    if len(text) > 500:
        raise BadComanda("a comanda of more than 500 characters is not a declaration")
    vocab = vocab or BUILTIN
    # a table repeats its favourite comande: remember the last few resolved ones per vocabulary
    memo: dict[tuple[str, str, str, str], Comanda] = vocab._tables.setdefault("parsed", {})
    key = (text, opts["bare_piu"], opts["a_asso"], opts["meno_al"])
    if key in memo:
        return memo[key]
    p = _Parser(text, vocab, opts)
    order = build(p.parse(), opts, p.readings)
    check(order)
    if len(memo) >= 256:
        memo.clear()
    memo[key] = result = Comanda(text, order, tuple(dict.fromkeys(p.readings)))
    return result


# ----- display ------------------------------------------------------------------------------
def describe(order: Sequence[Sequence[str]]) -> str:
    """A readable table, lowest first: one line per group of equal cards."""
    lines = []
    for n, g in enumerate(order, 1):
        ranks = sorted({default_rank(c) for c in g})
        suits = [c.partition("/")[0] for c in g]
        name = " ".join(RANK_IDS.get(r, str(r)) for r in ranks)
        where = "all suits" if len(suits) == 4 else ", ".join(suits)
        tag = "  (lowest)" if n == 1 else "  (highest)" if n == len(order) else ""
        lines.append(f"{n:>3}  {RANK_SHORT[ranks[0]]:>2}  {name:<7} {where}{tag}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="cardtable comanda",
        description="Resolve a Trionfetti comanda (spec §10) and print the ranking, lowest first.")
    ap.add_argument("text", nargs="*", help="the declaration, e.g. \"più e Napoli\"")
    ap.add_argument("--json", action="store_true", help="print the ranking judgment as JSON")
    ap.add_argument("--config", help="club vocabulary file (default: config/comanda.toml)")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="bare_piu=ponto|all, a_asso=body|top")
    ap.add_argument("--list", action="store_true", help="list the named catalogue and nicknames")
    args = ap.parse_args(argv)
    try:
        vocab = load_vocabulary(args.config)
        opts = dict(o.split("=", 1) for o in args.option if "=" in o)
        if len(opts) != len(args.option):
            raise BadComanda("--option needs NAME=VALUE")
        if args.list:
            for num, title in CATALOGUE:
                print(f"#{num:<3} {title}")
            name = lambda key: vocab.labels.get(key, " ".join(key))  # noqa: E731
            print("named rankings:")
            for key, text in sorted(vocab.named.items()):
                print(f"  {name(key)} = {text}")
            print("nicknames (lowest first):")
            for key in sorted(vocab.nicknames):
                print(f"  {name(key)}: " + " < ".join("=".join(sorted(g)) for g in vocab.nicknames[key]))
            return 0
        text = " ".join(args.text)
        result = parse(text, opts, vocab)
    except BadComanda as exc:
        if args.json:
            print(json.dumps({"judgment": "error", "code": "bad_comanda", "message": exc.message},
                             ensure_ascii=False))
        else:
            print(f"cardtable comanda: {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        ranking: dict[str, Any] = {"judgment": "ranking", "order": result.to_json()}
        if result.readings:
            ranking["reading"] = list(result.readings)
        print(json.dumps(ranking, separators=(",", ":")))
    else:
        print(f"comanda: {text}\nlowest → highest:")
        print(result.describe())
        for line in result.readings:
            print(f"read as: {line}")
    return 0
