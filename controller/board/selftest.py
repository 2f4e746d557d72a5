"""An end-to-end check of a board (or the simulator) that a person can read.

Each check drives the board only through the public panel (plus the simulator's buttons
when there is one), so a pass means the whole path works: port, framing, firmware,
LED model and buttons.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

from controller.panel import ButtonPress, Status

from .errors import BoardError, BoardTimeout
from .host import BoardPanel, BoardState, open_board


@dataclass
class Check:
    name: str
    outcome: str  # PASS, FAIL or SKIP
    detail: str


@dataclass
class Report:
    url: str
    checks: list[Check] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(c.outcome != "FAIL" for c in self.checks)

    def add(self, name: str, ok: bool | None, detail: str) -> None:
        self.checks.append(Check(name, "SKIP" if ok is None else "PASS" if ok else "FAIL", detail))

    def render(self) -> str:
        lines = [f"cardtable board selftest: {self.url}"]
        lines += [f"  {c.outcome:<4}  {c.name:<13} {c.detail}" for c in self.checks]
        if self.stats:
            s = self.stats
            lines.append(
                f"  link: {s.get('frames', 0)} frames received, {s.get('bad_frames', 0)} bad frames "
                f"dropped, {s.get('retransmits', 0)} retransmissions, {s.get('duplicates', 0)} "
                f"duplicates suppressed, {s.get('disconnects', 0)} disconnects")
        lines.append(f"result: {'PASS' if self.ok else 'FAIL'}")
        return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _check_commands(panel: BoardPanel, seats: int, report: Report) -> None:
    sent = 0
    for seat in range(seats):
        panel.show_turn(seat)
        panel.ask_confirmation(seat)
        panel.flash_winner(seat)
        sent += 3
    statuses: tuple[Status, ...] = ("confirm", "fault", "offline", "ok")
    for status in statuses:
        panel.set_status(status)
        sent += 1
    scores = tuple(range(7, 7 + min(seats, 4)))
    panel.show_turn(seats - 1)
    panel.ask_confirmation(None)
    panel.show_scores(scores)
    sent += 3
    if not panel.wait_idle(10):
        report.add("LED commands", False, f"{panel.link.pending()} of {sent} commands never acknowledged")
        return
    want = BoardState(seats - 1, seats - 1, None, "ok", scores)
    got = panel.query_state(5)
    ok = got == want
    detail = (f"{sent} commands acknowledged; board shows turn={got.turn} winner={got.winner} "
              f"confirm={got.confirm} status={got.status} scores={list(got.scores)}")
    if not ok:
        detail += f"; expected turn={want.turn} winner={want.winner} confirm=None status=ok scores={list(scores)}"
    report.add("LED commands", ok, detail)


def _check_latency(panel: BoardPanel, n: int, report: Report) -> None:
    rtts = sorted(panel.echo(2.0) for _ in range(n))
    med = statistics.median(rtts)
    p95 = rtts[min(len(rtts) - 1, int(0.95 * len(rtts)))]
    report.figures.update(rtt_median_ms=med * 1000, rtt_p95_ms=p95 * 1000)
    report.add("latency", True, f"{n} round trips: median {_ms(med)}, p95 {_ms(p95)}, max {_ms(rtts[-1])}")


def _check_throughput(panel: BoardPanel, n: int, report: Report) -> None:
    start = time.monotonic()
    for i in range(n):
        panel.set_status("ok" if i % 2 else "confirm")
    panel.set_status("ok")
    ok = panel.wait_idle(30)
    elapsed = time.monotonic() - start
    rate = (n + 1) / elapsed
    report.figures["messages_per_s"] = rate
    report.add("throughput", ok, f"{n + 1} commands acknowledged in {elapsed:.2f} s: {rate:.0f} messages/s"
               if ok else f"{panel.link.pending()} commands still unacknowledged after {elapsed:.1f} s")


def _wait_presses(panel: BoardPanel, n: int, timeout: float) -> list[ButtonPress]:
    got: list[ButtonPress] = []
    end = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < end:
        got += panel.presses()
        time.sleep(0.01)
    time.sleep(0.1)
    return got + panel.presses()


def _check_sim_buttons(panel: BoardPanel, seats: int, report: Report) -> None:
    sim = panel.simulator
    want: list[ButtonPress] = []
    t = 0.0
    for seat in range(seats):
        t = sim.press(seat, after_s=t) + 0.05
        want.append(ButtonPress(seat, "short"))
    t = sim.press(0, long=True, after_s=t)
    want.append(ButtonPress(0, "long"))
    got = _wait_presses(panel, len(want), t + 5)
    ok = got == want
    detail = f"{len(want)} presses driven on the simulator, {len(got)} received"
    detail += ", each once, in order" if ok else f": {got} (expected {want})"
    report.add("buttons", ok, detail)


def _check_real_buttons(panel: BoardPanel, seats: int, report: Report,
                        prompt: Callable[[str], None]) -> None:
    missing = []
    for seat in range(seats):
        panel.presses()
        panel.ask_confirmation(seat)
        prompt(f"press seat {seat}'s button (its light blinks amber) ...")
        got = _wait_presses(panel, 1, 15)
        if [p.seat for p in got] != [seat]:
            missing.append(f"seat {seat}: got {[(p.seat, p.kind) for p in got]}")
    panel.ask_confirmation(None)
    report.add("buttons", not missing, "; ".join(missing) or f"{seats} seats pressed, each press received once")


def run_selftest(url: str, *, timeout: float = 5.0, echoes: int = 50, burst: int = 200,
                 buttons: bool = False, prompt: Callable[[str], None] = print) -> Report:
    """Run every check against the board at ``url``; never raises for board faults."""
    report = Report(url)
    start = time.monotonic()
    panel = open_board(url, connect_timeout=0)  # BoardPortError propagates: nothing to test
    try:
        try:
            info = panel.wait_ready(timeout)
        except BoardTimeout as exc:
            report.add("handshake", False, str(exc))
            return report
        report.add("handshake", True, f"board v{info.version}, {info.seats} seats, {info.leds} LEDs, "
                   f"buttons per seat {''.join(map(str, info.buttons))} ({_ms(time.monotonic() - start)})")
        seats = max(1, info.seats)
        steps: Sequence[tuple[str, Callable[[], None]]] = [
            ("LED commands", lambda: _check_commands(panel, seats, report)),
            ("latency", lambda: _check_latency(panel, echoes, report)),
            ("throughput", lambda: _check_throughput(panel, burst, report)),
        ]
        for name, step in steps:
            try:
                step()
            except BoardError as exc:
                report.add(name, False, str(exc))
        try:
            if panel.simulator is not None:
                _check_sim_buttons(panel, seats, report)
            elif buttons:
                _check_real_buttons(panel, seats, report, prompt)
            else:
                report.add("buttons", None, "not checked on a real board: add --buttons and press each seat's button")
        except BoardError as exc:
            report.add("buttons", False, str(exc))
        report.stats = panel.stats()
        return report
    finally:
        panel.close()
