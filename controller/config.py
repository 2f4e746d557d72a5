"""The table config: one TOML file, validated at start (``cardtable run --check-config``).

Typed with pydantic models that forbid unknown keys (a typo is an error, not a silent
default). :func:`load_config` raises :class:`ConfigError` whose message lists every problem
as ``key.path: what is wrong (got value)``, so the command line prints it and stops.
``config/table.example.toml`` documents every key.
"""
from __future__ import annotations

import importlib.util
import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

GAMES = ("vitou", "truco", "trionfetti", "troccas")
POSITIONS = ("south", "west", "north", "east")


class ConfigError(ValueError):
    """The table config cannot be used; the message names each key and its problem."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableSection(_Section):
    id: str = Field("table1", description="table id in MQTT topics: [a-z0-9_-], 1-32 characters")
    name: str = Field("", description="a human name for scoreboards")
    # the table's geometry, for `cardtable calibrate` (measured between marker centres)
    width_mm: float | None = Field(None, gt=0, description="marker 0 -> 1, mm")
    height_mm: float | None = Field(None, gt=0, description="marker 1 -> 2, mm")
    card_mm: tuple[float, float] = Field((59.0, 91.0), description="the deck's card size, mm")
    clockwise: bool = Field(False, description="seat numbering direction in the image")

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9_-]{1,32}", v):
            raise ValueError("must be 1-32 characters of a-z, 0-9, '_' or '-'")
        return v


class GameSection(_Section):
    name: Literal["vitou", "truco", "trionfetti", "troccas"] = "vitou"
    dealer: int = Field(0, ge=0)
    players: int | None = Field(None, ge=2, le=6)
    options: dict[str, Any] = Field(default_factory=dict)


class Seat(_Section):
    name: str = ""
    position: Literal["south", "west", "north", "east"] | None = None
    polygon_mm: list[tuple[float, float]] | None = Field(None, min_length=3,
                                                         description="the seat's zone on the table, mm")


class Area(_Section):
    polygon_mm: list[tuple[float, float]] = Field(min_length=3)


class CameraSection(_Section):
    source: str = Field("none", description="picamera2 | opencv:N | video:PATH | folder:DIR | synthetic:NAME | none")
    calibration: str = ""
    profile: str = ""
    min_confidence: float = Field(0.8, ge=0.0, le=1.0)
    still_frames: int = Field(8, ge=1, le=120)
    fps: float = Field(30.0, gt=0, le=240)


class StatusPins(_Section):
    ok: int | None = Field(None, ge=0, le=27)
    confirm: int | None = Field(None, ge=0, le=27)
    fault: int | None = Field(None, ge=0, le=27)


class GpioSection(_Section):
    enabled: bool = False
    factory: Literal["", "mock", "lgpio", "rpigpio", "pigpio", "native"] = ""
    turn_leds: list[int] = Field(default_factory=list)
    buttons: list[int] = Field(default_factory=list)
    status: StatusPins = StatusPins()
    long_press: float = Field(0.8, gt=0.05, le=10)
    flash_seconds: float = Field(1.5, gt=0, le=30)
    blink_seconds: float = Field(0.25, gt=0.01, le=5)

    @field_validator("turn_leds", "buttons")
    @classmethod
    def _pins(cls, v: list[int]) -> list[int]:
        for p in v:
            if not 0 <= p <= 27:
                raise ValueError(f"GPIO pin {p} does not exist (BCM 0-27)")
        if len(set(v)) != len(v):
            raise ValueError("a pin is listed twice")
        return v


class BoardSection(_Section):
    url: str = Field("", description="pyserial URL of the LED/button board: /dev/ttyACM0, sim://, '' = none")


class MqttSection(_Section):
    url: str = Field("", description="mqtt://host:1883, mqtts://host:8883, ws://host:9001; '' = embedded broker; off")
    username: str = ""
    password: str = ""
    ca_file: str = ""
    embedded_host: str = "127.0.0.1"
    embedded_port: int = Field(1883, ge=0, le=65535)
    embedded_ws_port: int = Field(9001, ge=0, le=65535)
    embedded_ws_host: str = Field("", description="where the embedded broker's websockets listener binds; "
                                  "'' = [web] host while the web server runs (TVs on the LAN), else embedded_host")
    keepalive: int = Field(15, ge=5, le=600)
    display_username: str = ""
    display_password: str = ""
    ha_discovery: bool = Field(False, description="publish Home Assistant MQTT discovery for this table")
    ha_prefix: str = Field("homeassistant", pattern=r"^[A-Za-z0-9_/-]{1,64}$",
                           description="Home Assistant's discovery prefix")

    @field_validator("url")
    @classmethod
    def _url(cls, v: str) -> str:
        if v and v != "off" and not re.fullmatch(r"(mqtt|mqtts|ws|wss)://[^/:]+(:\d+)?/?.*", v):
            raise ValueError("must look like mqtt://host:1883 (schemes: mqtt, mqtts, ws, wss), 'off', or be empty")
        return v

    @model_validator(mode="after")
    def _creds(self) -> "MqttSection":
        if self.password and not self.username:
            raise ValueError("password given without a username")
        return self


class JournalSection(_Section):
    path: str = "cardtable.journal"


class EvidenceSection(_Section):
    """The camera's pictures of each card event (controller/evidence.py)."""

    enabled: bool = True
    dir: str = Field("", description="'' = <journal path>.evidence, one folder per match inside")
    max_mb: float = Field(50.0, gt=0, le=100000, description="per match; its oldest pictures go first")
    keep_matches: int = Field(20, ge=1, le=10000, description="match folders kept; the oldest go first")


class WebSection(_Section):
    port: int = Field(8080, ge=0, le=65535, description="0: no web server")
    host: str = "0.0.0.0"
    public_ws_url: str = Field("", description="the broker's websocket URL as a browser on the LAN reaches it; "
                               "'' = derived from the broker URL, with the page's own host for a local broker")

    @field_validator("public_ws_url")
    @classmethod
    def _ws(cls, v: str) -> str:
        if v and not re.fullmatch(r"wss?://[^/:]+(:\d+)?(/.*)?", v):
            raise ValueError("must look like ws://pi.local:9001/ (schemes: ws, wss) or be empty")
        return v


class TableConfig(_Section):
    table: TableSection = TableSection()
    game: GameSection = GameSection()
    seats: list[Seat] = Field(default_factory=list)
    camera: CameraSection = CameraSection()
    gpio: GpioSection = GpioSection()
    board: BoardSection = BoardSection()
    mqtt: MqttSection = MqttSection()
    journal: JournalSection = JournalSection()
    evidence: EvidenceSection = EvidenceSection()
    web: WebSection = WebSection()
    trick_area: Area | None = None

    @model_validator(mode="after")
    def _cross(self) -> "TableConfig":
        from controller.rules import find_game

        try:
            cls = find_game(self.game.name)
        except ImportError:
            raise ValueError(f"game.name: {self.game.name} is not available in this installation") from None
        players = self.game.players or cls.default_players
        if players not in cls.player_counts:
            raise ValueError(f"game.players: {cls.name} is played by "
                             f"{', '.join(map(str, cls.player_counts))} players, not {players}")
        if self.game.dealer >= players:
            raise ValueError(f"game.dealer: seat {self.game.dealer} does not exist (seats 0-{players - 1})")
        try:
            cls.resolve_options(dict(self.game.options))
        except ValueError as exc:
            raise ValueError(f"game.options: {exc}") from None
        if self.seats and len(self.seats) != players:
            raise ValueError(f"seats: {len(self.seats)} seats listed for {players} players")
        zoned = [s.polygon_mm is not None for s in self.seats]
        if any(zoned) and not all(zoned):
            raise ValueError("seats: give polygon_mm for every seat or for none")
        g = self.gpio
        if g.enabled:
            if g.turn_leds and len(g.turn_leds) != players:
                raise ValueError(f"gpio.turn_leds: {len(g.turn_leds)} pins for {players} seats")
            if g.buttons and len(g.buttons) != players:
                raise ValueError(f"gpio.buttons: {len(g.buttons)} pins for {players} seats")
            used = g.turn_leds + g.buttons + [p for p in (g.status.ok, g.status.confirm, g.status.fault) if p is not None]
            if len(set(used)) != len(used):
                raise ValueError("gpio: a pin is used twice (turn_leds, buttons, status)")
        return self

    # ----- derived -----------------------------------------------------------------
    @property
    def players(self) -> int:
        from controller.rules import find_game

        return self.game.players or find_game(self.game.name).default_players

    def names(self) -> list[str]:
        if not self.seats:
            return [f"Seat {i}" for i in range(self.players)]
        return [s.name or f"Seat {i}" for i, s in enumerate(self.seats)]

    def geometry(self) -> dict[str, Any]:
        """The table's geometry in ``vision.table``'s terms (``parse_table_config``): one file
        configures both the table and its calibration."""
        t = self.table
        geo: dict[str, Any] = {"table": {"card_mm": list(t.card_mm), "clockwise": t.clockwise}}
        if t.width_mm is not None:
            geo["table"]["width_mm"] = t.width_mm
        if t.height_mm is not None:
            geo["table"]["height_mm"] = t.height_mm
        if self.seats and self.seats[0].polygon_mm is not None:
            geo["seat"] = [{"polygon_mm": [list(p) for p in s.polygon_mm or []]} for s in self.seats]
        if self.trick_area is not None:
            geo["trick_area"] = {"polygon_mm": [list(p) for p in self.trick_area.polygon_mm]}
        return geo

    @property
    def has_size(self) -> bool:
        return self.table.width_mm is not None and self.table.height_mm is not None

    def start_event(self) -> dict[str, Any]:
        ev: dict[str, Any] = {"event": "start", "game": self.game.name, "dealer": self.game.dealer,
                              "players": self.players}
        if self.game.options:
            ev["options"] = dict(self.game.options)
        return ev


def _format(err: ValidationError) -> str:
    lines = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            msg = "unknown key (a typo?)"
        got = e.get("input")
        shown = "" if e["type"] in ("missing",) or isinstance(got, dict) else f" (got {got!r})"
        lines.append(f"{loc}: {msg}{shown}" if loc else f"{msg}")
    return "; ".join(lines)


def parse_config(data: dict[str, Any], source: str = "<config>") -> TableConfig:
    try:
        return TableConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"{source}: {_format(exc)}") from None


def _writable_dir(path: Path) -> bool:
    """Can ``path`` (a directory, perhaps not made yet) be created or written to?"""
    p = path.resolve()
    while not p.exists():
        p = p.parent
    return p.is_dir() and os.access(p, os.W_OK)


def check_runnable(cfg: TableConfig, source: str = "<config>") -> None:
    """What ``cardtable run`` needs beyond a well-formed file: the files it names exist and the
    camera can be driven. ``run`` and ``run --check-config`` both call this (through
    :func:`load_config`), so a config that passes the check does not stop the table later."""
    problems = []
    cam = cfg.camera
    if cam.source not in ("", "none"):
        for key, value, want in (("calibration", cam.calibration, "cardtable calibrate"),
                                 ("profile", cam.profile, "cardtable enrol")):
            if not value:
                problems.append(f"camera.{key}: needed when camera.source is {cam.source!r} (made by `{want}`)")
            elif not Path(value).exists():
                problems.append(f"camera.{key}: {value} does not exist (made by `{want}`)")
        kind, _, rest = cam.source.partition(":")
        if kind in ("video", "folder") and rest and not Path(rest).exists():
            problems.append(f"camera.source: {rest} does not exist")
        if kind == "picamera2" and importlib.util.find_spec("picamera2") is None:
            problems.append("camera.source: picamera2 is not installed (sudo apt install python3-picamera2; "
                            "the venv needs --system-site-packages)")
    if cfg.mqtt.ca_file and not Path(cfg.mqtt.ca_file).is_file():
        problems.append(f"mqtt.ca_file: {cfg.mqtt.ca_file} does not exist")
    journal = Path(cfg.journal.path)
    if journal.is_dir():
        problems.append(f"journal.path: {journal} is a directory; name a file in it")
    elif not _writable_dir(journal.parent):
        problems.append(f"journal.path: cannot create or write {journal.parent}")
    if problems:
        raise ConfigError(f"{source}: {'; '.join(problems)}")


def load_config(path: str | Path | None, *, check: bool = True) -> TableConfig:
    """Read and validate a TOML table config; ``None`` gives the defaults. With ``check`` (as
    ``cardtable run`` loads it) also :func:`check_runnable`."""
    if path is None:
        return TableConfig()
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the config: {exc.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    cfg = parse_config(data, str(p))
    if check:
        check_runnable(cfg, str(p))
    return cfg
