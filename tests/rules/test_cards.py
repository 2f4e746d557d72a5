"""Card ids and decks (CONTRACT §1): deck contents, alias parsing, clear errors."""
from __future__ import annotations

import pytest

from controller.rules.cards import deck, decks, parse_card, rank_of, suit_of
from controller.rules.errors import NotInDeck, UnknownCard


def test_five_decks_with_the_contract_sizes() -> None:
    assert {d: len(decks()[d]) for d in decks()} == {
        "trevigiane-52": 52, "tarot-1jj": 78, "french-40": 40, "french-32": 32, "french-52": 52}


def test_canonical_ids() -> None:
    assert "coins/knight" in deck("trevigiane-52")
    assert "trump/21" in deck("tarot-1jj") and "fool" in deck("tarot-1jj")
    assert "cups/queen" in deck("tarot-1jj") and "cups/queen" not in deck("trevigiane-52")
    assert "clubs/8" not in deck("french-40") and "spades/7" in deck("french-32")
    assert deck("french-32").cards[:8] == tuple(f"clubs/{r}" for r in
                                                ["7", "8", "9", "10", "jack", "queen", "king", "ace"])


@pytest.mark.parametrize("text,deck_id,card", [
    ("10C", "french-32", "clubs/10"),
    ("KH", "french-32", "hearts/king"),
    ("kh", "french-40", "hearts/king"),
    ("7 of clubs", "french-40", "clubs/7"),
    ("re di coppe", "trevigiane-52", "cups/king"),
    ("Re di Denari", "trevigiane-52", "coins/king"),
    ("cavallo di bastoni", "trevigiane-52", "batons/knight"),
    ("fante de spade", "trevigiane-52", "swords/jack"),
    ("asso di coppe", "trevigiane-52", "cups/ace"),
    ("XXI", "tarot-1jj", "trump/21"),
    ("xiv", "tarot-1jj", "trump/14"),
    ("trump 1", "tarot-1jj", "trump/1"),
    ("fool", "tarot-1jj", "fool"),
    ("Sküs", "tarot-1jj", "fool"),
    ("regina da cuppas", "tarot-1jj", "cups/queen"),
    ("hearts_queen", "french-32", "hearts/queen"),
    ("hearts/queen", "french-32", "hearts/queen"),
])
def test_aliases(text: str, deck_id: str, card: str) -> None:
    assert parse_card(text, deck_id) == card


def test_card_of_another_deck_is_not_in_deck() -> None:
    with pytest.raises(NotInDeck, match="clubs/8 is not a card of the french-40 deck"):
        parse_card("8C", "french-40")
    with pytest.raises(NotInDeck):
        parse_card("trump/21", "french-32")
    # an Italian canonical id never silently maps to a French card and back
    with pytest.raises(NotInDeck):
        parse_card("cups/king", "french-32")


@pytest.mark.parametrize("text", ["zz", "", "11H", "hearts/11", "trump/22", "XXII", "queen of cups and"])
def test_unknown_cards(text: str) -> None:
    with pytest.raises(UnknownCard):
        parse_card(text, "french-52")


def test_ambiguous_letters_are_deck_aware() -> None:
    # "C" is clubs in French decks and cups in Italian ones; "CC" is the knight of cups.
    assert parse_card("KC", "french-52") == "clubs/king"
    assert parse_card("KC", "trevigiane-52") == "cups/king"
    assert parse_card("CC", "trevigiane-52") == "cups/knight"


def test_suit_and_rank() -> None:
    assert suit_of("hearts/king") == "hearts" and rank_of("hearts/king") == "king"
    assert suit_of("trump/21") == "trump" and rank_of("trump/21") == "21"
    assert suit_of("fool") is None and rank_of("fool") is None
