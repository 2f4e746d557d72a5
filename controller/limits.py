"""Bounds on every input that can become a journal record (MQTT commands, presses, frames).

One place for them, so the MQTT link, the table loop and the benches agree. The largest
legitimate command is a cmd/start with a game's options or a cmd/event with a CONTRACT
event: 203-400 bytes and 3 levels of nesting (``bench/mqtt_sizes.py`` prints the figures
from the games' own simulators; ``test_table.py::test_bounds_leave_room_for_real_commands``
measures every verb). 10x the bytes and twice the depth leave room, and a hostile 10 MB or
988-deep payload is answered with an error, never parsed, stored or echoed.
"""
from __future__ import annotations

MAX_COMMAND_BYTES = 4096   # a command's payload, in bytes
MAX_INPUT_DEPTH = 6        # how deeply a command may nest arrays and objects
MAX_ID = 64                # a command id's length, in characters
ECHO_CHARS = 40            # how much of a bad payload, verb or field an answer repeats


def json_depth(data: bytes) -> int:
    """How deeply ``data`` nests ``[`` and ``{`` outside strings, without parsing it
    (``json.loads`` of ~990 levels raises RecursionError; this never recurses)."""
    depth = deepest = 0
    in_string = escaped = False
    for b in data:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:                    # backslash
                escaped = True
            elif b == 0x22:                    # closing quote
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x5D, 0x7D):
            depth -= 1
    return deepest
