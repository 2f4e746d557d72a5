"""The demo's log lines (no terminal): who won each hand and game, and each new smazzata."""
from __future__ import annotations

from types import SimpleNamespace

from controller.demo import News
from controller.sim import simulator
from controller.tablestate import TableState


def news_of(game: str, seed: int, options: dict) -> list[str]:
    script = simulator(game)(seed, None, options)
    ts = TableState("t1", ["Anna", "Bruno", "Carla", "Dario"])
    driver = SimpleNamespace(table=SimpleNamespace(ts=ts), accepted=0, script=script)
    news, out = News(driver), []
    for i, ev in enumerate(script):
        ts.apply({"n": i + 1, "r": "event", "src": "test", "event": ev})
        driver.accepted = i + 1
        out += news.lines(driver)
    return out


def test_trionfetti_news_names_games_and_smazzate():
    out = news_of("trionfetti", 1, {"points_to_win": 20, "games_to_win": 1})
    hands = [ln for ln in out if " hand " in ln]
    assert hands and all(("Anna & Carla +" in ln) or ("Bruno & Dario +" in ln) or ("nobody" in ln) for ln in hands)
    assert any(ln.startswith("t1 smazzata 2: the next four hands") for ln in out), out
    assert any(ln.startswith("t1 GAME won by ") and "score starts again" in ln for ln in out)
    assert not any("None" in ln for ln in out)
