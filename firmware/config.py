# The board's pin map and strip layout, read from board_config.json on the board.
#
# MicroPython and CPython alike. Missing keys get defaults; segments that are not given
# are cut from the strip in order: one per seat, then the status segment, then (if at
# least 2 LEDs per score remain) the score segment.

try:
    import json
except ImportError:  # pragma: no cover - very old MicroPython ports
    import ujson as json

DEFAULTS = {
    "seats": 4,
    "led_pin": 16,
    "leds": 30,
    "buttons": None,
    "active_low": True,
    "brightness": 0.25,
    "debounce_ms": 20,
    "long_press_ms": 700,
    "host_timeout_ms": 2000,
    "seat_segments": None,
    "status_segment": None,
    "score_segment": None,
}


class ConfigError(ValueError):
    """board_config.json is unusable (a segment outside the strip, say)."""


def _segment(seg, leds, name):
    if seg is None:
        return None
    if len(seg) != 2 or seg[0] < 0 or seg[1] < 1 or seg[0] + seg[1] > leds:
        raise ConfigError("%s %r does not fit a strip of %d LEDs" % (name, seg, leds))
    return (int(seg[0]), int(seg[1]))


def normalise(raw):
    """A complete, checked config dict from a possibly partial one."""
    cfg = {}
    for k in DEFAULTS:
        cfg[k] = raw.get(k, DEFAULTS[k])
    for k in raw:
        if k not in DEFAULTS:
            raise ConfigError("unknown key %r" % k)
    seats = int(cfg["seats"])
    leds = int(cfg["leds"])
    if seats < 1 or seats > 8:
        raise ConfigError("seats must be 1..8")
    if leds < seats + 1:
        raise ConfigError("need at least one LED per seat plus one for status")
    if cfg["seat_segments"] is None:
        status_len = 2 if leds >= seats + 2 else 1
        per = min(6, (leds - status_len) // seats)
        cfg["seat_segments"] = [[i * per, per] for i in range(seats)]
        used = seats * per
        if cfg["status_segment"] is None:
            cfg["status_segment"] = [used, status_len]
        used += status_len
        if cfg["score_segment"] is None and leds - used >= 4:
            cfg["score_segment"] = [used, leds - used]
    if cfg["status_segment"] is None:
        raise ConfigError("status_segment is required when seat_segments are given")
    if len(cfg["seat_segments"]) != seats:
        raise ConfigError("seat_segments needs one segment per seat")
    cfg["seat_segments"] = [_segment(s, leds, "seat segment") for s in cfg["seat_segments"]]
    cfg["status_segment"] = _segment(cfg["status_segment"], leds, "status_segment")
    cfg["score_segment"] = _segment(cfg["score_segment"], leds, "score_segment")
    buttons = cfg["buttons"]
    if buttons is None:
        buttons = [[2 + i] for i in range(seats)]
    if len(buttons) > seats:
        raise ConfigError("more button groups than seats")
    cfg["buttons"] = [[int(g) for g in group] for group in buttons]
    return cfg


def load(path="board_config.json"):
    """Read and check the config file; a missing file means all defaults."""
    try:
        f = open(path)
    except OSError:
        return normalise({})
    try:
        raw = json.load(f)
    finally:
        f.close()
    return normalise(raw)
