"""Home Assistant MQTT discovery for a table (``[mqtt] ha_discovery = true``; off by default).

Home Assistant finds entities from retained JSON configs under
``<prefix>/<component>/<node_id>/<object_id>/config`` (prefix ``homeassistant``). Each config
points at the table's own retained topics (docs/mqtt.md), so the table publishes nothing
new as the match goes on: HA reads ``state`` and ``status`` like any display.

Entities, one device per table: a score sensor per side (team or solo seat), whose turn,
hand number, game, and the status word. The score, turn, hand and game sensors use
``status`` as availability with ``online`` -> available and ``offline``/``stopped`` (or
anything else) -> unavailable; the status sensor has no availability, so HA shows *why* a
table is unavailable.

Pure: ``discovery(meta, prefix)`` makes the messages; the link publishes them retained.
"""
from __future__ import annotations

import json
import re
from typing import Any

PREFIX = "homeassistant"
ROOT = "cardtable/v1/tables"
STATUSES = ["online", "offline", "stopped"]
# status -> availability: only "online" is available (a clean stop is not a live table)
AVAILABILITY_TEMPLATE = "{{ 'online' if value == 'online' else 'offline' }}"


def node_id(table_id: str) -> str:
    """HA's node id for a table (``[a-zA-Z0-9_-]``; table ids already are, CONTRACT §5)."""
    return "cardtable_" + re.sub(r"[^a-zA-Z0-9_-]", "_", table_id)


def _sides(meta: dict[str, Any]) -> list[tuple[int, str]]:
    """(index, name) per scoring side: teams from meta, each seat alone in solo games."""
    names = {s.get("seat"): s.get("name") for s in meta.get("seats") or [] if isinstance(s, dict)}
    teams = meta.get("teams") or [[s] for s in range(int(meta.get("players") or 0))]
    return [(i, " & ".join(str(names.get(s) or f"Seat {s}") for s in team)) for i, team in enumerate(teams)]


def discovery(meta: dict[str, Any], prefix: str = PREFIX) -> list[tuple[str, dict[str, Any]]]:
    """The retained discovery messages (topic, payload) for the table that ``meta`` describes."""
    tid = str(meta["table"])
    node = node_id(tid)
    base = f"{ROOT}/{tid}"
    device = {"identifiers": [node], "name": str(meta.get("name") or tid), "manufacturer": "cardtable",
              "model": f"card table ({meta.get('game')})", "sw_version": str(meta.get("version") or "")}
    avail = {"availability": [{"topic": f"{base}/status", "value_template": AVAILABILITY_TEMPLATE,
                               "payload_available": "online", "payload_not_available": "offline"}]}

    def sensor(obj: str, name: str, **extra: Any) -> tuple[str, dict[str, Any]]:
        cfg = {"name": name, "unique_id": f"{node}_{obj}", "device": device, "qos": 1, **extra}
        return f"{prefix}/sensor/{node}/{obj}/config", cfg

    out = [sensor(f"score_{i}", f"{name} score", state_topic=f"{base}/state", icon="mdi:cards-playing",
                  value_template=f"{{{{ value_json.scores[{i}] if value_json.scores is defined and "
                                 f"value_json.scores | length > {i} else none }}}}",
                  state_class="measurement", **avail)
           for i, name in _sides(meta)]
    out.append(sensor("turn", "To play", state_topic=f"{base}/state", icon="mdi:account-arrow-right",
                      value_template="{% if value_json.finished %}match over"
                                     "{% elif value_json.turn %}{{ (value_json.names or [])[value_json.turn.seat]"
                                     " | default('seat ' ~ value_json.turn.seat, true) }}"
                                     "{% else %}none{% endif %}", **avail))
    out.append(sensor("hand", "Hand", state_topic=f"{base}/state", icon="mdi:counter",
                      value_template="{{ value_json.detail.hand if value_json.detail is defined and "
                                     "value_json.detail else none }}", **avail))
    out.append(sensor("game", "Game", state_topic=f"{base}/state", icon="mdi:cards",
                      value_template="{{ value_json.game or 'none' }}", **avail))
    out.append(sensor("status", "Status", state_topic=f"{base}/status", device_class="enum",
                      options=STATUSES, icon="mdi:lan-connect"))
    return out


def publish_discovery(link: Any, meta: dict[str, Any], prefix: str = PREFIX) -> int:
    """Publish the table's discovery configs retained (again on every reconnect); how many."""
    msgs = discovery(meta, prefix)
    for topic, payload in msgs:
        link.publish_retained(topic, json.dumps(payload, separators=(",", ":"), ensure_ascii=False))
    return len(msgs)
