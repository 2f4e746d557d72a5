"""Decks and card ids (CONTRACT §1), defined once from the data in ``config/decks/``.

A card is its canonical id string (``"hearts/king"``, ``"trump/21"``, ``"fool"``): ids are
what the journal, MQTT and every judgment carry, so the engine works on them directly.
Aliases (``"KH"``, ``"re di coppe"``, ``"XXI"``) exist only in :func:`parse_card`.
"""
from __future__ import annotations

import tomllib
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from controller.rules.errors import NotInDeck, UnknownCard, quote

DECKS_DIR = Path(__file__).resolve().parents[2] / "config" / "decks"

ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII",
         "XIV", "XV", "XVI", "XVII", "XVIII", "XIX", "XX", "XXI"]


@dataclass(frozen=True)
class Deck:
    """One physical pack: its suits, ranks and the cards outside the suits."""

    id: str
    name: str
    suits: tuple[str, ...]
    ranks: tuple[str, ...]
    extra: tuple[str, ...]
    cards: tuple[str, ...] = field(init=False)
    index: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        cards = tuple(f"{s}/{r}" for s in self.suits for r in self.ranks) + self.extra
        object.__setattr__(self, "cards", cards)
        object.__setattr__(self, "index", {c: i for i, c in enumerate(cards)})

    def __contains__(self, card: object) -> bool:
        return card in self.index

    def __len__(self) -> int:
        return len(self.cards)

    def parse(self, text: str) -> str:
        """The canonical id of ``text`` in this deck; see :func:`parse_card`."""
        return parse_card(text, self.id)


def suit_of(card: str) -> str | None:
    """``"hearts"`` for ``"hearts/king"``, ``"trump"`` for trumps, None for the Fool."""
    suit, sep, _ = card.partition("/")
    return suit if sep else None


def rank_of(card: str) -> str | None:
    """``"king"`` for ``"hearts/king"``, ``"21"`` for ``"trump/21"``, None for the Fool."""
    _, sep, rank = card.partition("/")
    return rank if sep else None


def _read(path: Path) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


@cache
def decks() -> dict[str, Deck]:
    """Every deck of ``config/decks/``, by id."""
    out: dict[str, Deck] = {}
    for path in sorted(DECKS_DIR.glob("*.toml")):
        if path.name == "aliases.toml":
            continue
        d = _read(path)
        out[d["id"]] = Deck(d["id"], d.get("name", d["id"]), tuple(d["suits"]),
                            tuple(d["ranks"]), tuple(d.get("extra", ())))
    return out


def deck(deck_id: str) -> Deck:
    """The deck with this id; ``KeyError`` names the known ids."""
    try:
        return decks()[deck_id]
    except KeyError:
        raise KeyError(f"unknown deck {deck_id!r}; known decks: {', '.join(sorted(decks()))}") from None


def normalise(text: str) -> str:
    """Lower case, accents stripped, runs of blanks/underscores/hyphens folded to one space."""
    text = unicodedata.normalize("NFKD", text.strip().lower())
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    for ch in "_-\t":
        text = text.replace(ch, " ")
    return " ".join(text.split())


_TEMPLATES = ("{r}{s}", "{s}{r}", "{r} {s}", "{r} of {s}", "{r} di {s}", "{r} de {s}", "{r} d {s}",
              "{r} da {s}", "{r} del {s}", "{s} {r}")


@cache
def _alias_table(deck_id: str) -> dict[str, str]:
    """All alias spellings of this deck's cards → canonical id; ambiguous ones dropped."""
    d = deck(deck_id)
    a = _read(DECKS_DIR / "aliases.toml")
    table: dict[str, set[str]] = {}

    def add(alias: str, card: str) -> None:
        table.setdefault(normalise(alias), set()).add(card)

    for card in d.cards:
        add(card, card)
        add(card.replace("/", " "), card)
    for s in d.suits:
        for r in d.ranks:
            card = f"{s}/{r}"
            for sa in a["suits"].get(s, [s]) + [s]:
                for ra in a["ranks"].get(r, [r]) + [r]:
                    for t in _TEMPLATES:
                        add(t.format(r=ra, s=sa), card)
    for card in d.extra:
        if card.startswith("trump/"):
            n = int(card.split("/")[1])
            for form in (ROMAN[n - 1], f"trump {n}", f"t{n}", f"trionfo {n}", f"trump {ROMAN[n - 1]}",
                         f"{n}t", f"tarock {n}", f"troccas {n}"):
                add(form, card)
        for alias in a.get("extra", {}).get(card, []):
            add(alias, card)
    return {k: next(iter(v)) for k, v in table.items() if len(v) == 1}


def parse_card(text: str, deck_id: str) -> str:
    """The canonical id of ``text`` in deck ``deck_id``.

    Raises :class:`UnknownCard` when no deck has such a card, :class:`NotInDeck` when the
    card exists but in another deck (a ``clubs/8`` at a Truco table is an error, never a
    guess).
    """
    if not isinstance(text, str):
        raise UnknownCard(f"card must be a string, not {type(text).__name__}")
    d = deck(deck_id)
    if text in d.index:
        return text
    key = normalise(text)
    found = _alias_table(deck_id).get(key)
    if found is not None:
        return found
    for other in decks():
        if other != deck_id and (text in decks()[other].index or key in _alias_table(other)):
            name = text if text in decks()[other].index else _alias_table(other)[key]
            raise NotInDeck(f"{name} is not a card of the {deck_id} deck")
    raise UnknownCard(f"{quote(text)} is not a card id")
