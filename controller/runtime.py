"""Wiring a table from its config: broker, MQTT link, panels, camera, web, journal.

``cardtable run`` and ``cardtable demo`` share this, so the demo is the product with
simulated edges, not a separate program. Each edge is chosen by config (gpiozero pin
factory, board URL, camera source, broker URL); the table loop never learns which.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable

from controller.journal import Journal
from controller.table import Table, build_link, build_panels, meta_for


class RuntimeError_(RuntimeError):
    """A part of the table could not be started (one-line message)."""


class Runtime:
    def __init__(self, cfg, *, journal: str | None = None, mqtt_url: str | None = None,
                 clock: Callable[[], float] = time.monotonic, vision: Any = None, panels: list | None = None,
                 broker: Any = None, web: bool = True, table_ids: list[str] | None = None,
                 web_fallback: bool = False) -> None:
        self.cfg = cfg
        self.clock = clock
        self.journal_path = journal or cfg.journal.path
        self.mqtt_url = mqtt_url if mqtt_url is not None else cfg.mqtt.url
        self.broker = broker
        self.want_web = web
        self.web_fallback = web_fallback      # busy web port: any free one (the demo) or fail (a table)
        self.web = None
        self._vision = vision
        self._panels = panels
        self.table_ids = table_ids or [cfg.table.id]
        self.table: Table
        self.evidence: Any = None

    def evidence_store(self, table: Table) -> Any:
        """The camera's pictures of card events (``[evidence]``), one folder per match; None if off."""
        from controller.evidence import EvidenceStore

        e = self.cfg.evidence
        if not e.enabled:
            return None
        root = Path(e.dir) if e.dir else Path(f"{self.journal_path}.evidence")
        return EvidenceStore(root, match=lambda: table.ts.match, max_bytes=int(e.max_mb * 1024 * 1024),
                             keep_matches=e.keep_matches)

    def start(self) -> None:
        from controller.broker import BrokerError, EmbeddedBroker

        if not self.mqtt_url and self.broker is None:
            try:
                m = self.cfg.mqtt
                self.broker = EmbeddedBroker(m.embedded_host, m.embedded_port, m.embedded_ws_port,
                                             ws_host=m.embedded_ws_host or self.lan_ws_host()).start()
            except BrokerError as exc:
                raise RuntimeError_(str(exc)) from None
        if self.broker is not None and not self.mqtt_url:
            self.mqtt_url = self.broker.url
        elif self.mqtt_url and self.mqtt_url != "off":
            from controller.reach import BrokerUnreachable, check_broker

            try:
                check_broker(self.mqtt_url)        # down at start-up: say so (later losses reconnect)
            except BrokerUnreachable as exc:
                raise RuntimeError_(str(exc)) from None
        link = build_link(self.cfg, self.mqtt_url)
        panels = self._panels if self._panels is not None else build_panels(self.cfg, self.clock)
        table = Table(Journal(self.journal_path), link, table_id=self.cfg.table.id, names=self.cfg.names(),
                      start_event=self.cfg.start_event(), meta=meta_for(self.cfg), panels=panels,
                      vision=None, min_confidence=self.cfg.camera.min_confidence, clock=self.clock)
        if self._vision is None:
            from controller.camera import CameraError, from_config

            try:
                self._vision = from_config(self.cfg.camera, table.ts.candidates)
            except CameraError as exc:
                raise RuntimeError_(str(exc)) from None
        table.vision = self._vision
        self.table = table
        self.evidence = self.evidence_store(table) if self._vision is not None else None
        if self.evidence is not None and hasattr(self._vision, "evidence"):
            self._vision.evidence = self.evidence
        if self.cfg.mqtt.ha_discovery:
            from controller.ha_discovery import publish_discovery

            publish_discovery(link, meta_for(self.cfg), self.cfg.mqtt.ha_prefix)
        link.start()
        try:
            table.open()
        except Exception:       # a journal refused (corrupt, another match's): leave as a fault, not online
            table.close("offline")
            if self.broker is not None:
                self.broker.stop()
            raise
        if self.want_web and self.cfg.web.port:
            self.start_web()

    def start_web(self) -> None:
        from controller.web.server import WebServer, broker_config

        ws = self.ws_url()
        m = self.cfg.mqtt
        try:
            self.web = WebServer(self.cfg.web.port, broker_config(ws, m.display_username, m.display_password,
                                                                   self.table_ids, self.cfg.web.public_ws_url),
                                 host=self.cfg.web.host, evidence=self.evidence_roots()).start()
        except OSError as exc:
            if not self.web_fallback:
                raise RuntimeError_(f"web port {self.cfg.web.port} on {self.cfg.web.host} cannot be used "
                                    f"({exc.strerror or exc}); set [web] port (0: no scoreboard)") from None
            self.web = WebServer(0, broker_config(ws, m.display_username, m.display_password, self.table_ids,
                                                  self.cfg.web.public_ws_url), host=self.cfg.web.host,
                                 evidence=self.evidence_roots()).start()

    def evidence_roots(self) -> dict[str, Path]:
        """table id -> its evidence folder, for the web server (another table's may be added)."""
        return {self.cfg.table.id: self.evidence.root} if self.evidence is not None else {}

    def lan_ws_host(self) -> str:
        """The embedded broker's websockets host: the web server's while it serves pages."""
        return self.cfg.web.host if self.want_web and self.cfg.web.port else self.cfg.mqtt.embedded_host

    def ws_url(self) -> str:
        from controller.web.server import ws_url_for

        return ws_url_for(self.broker.ws_url if self.broker is not None else self.mqtt_url)

    def banner(self) -> str:
        parts = [f"cardtable: table {self.cfg.table.id} ({self.cfg.game.name})", f"journal {Path(self.journal_path)}",
                 f"MQTT {self.mqtt_url}" + (" (embedded)" if self.broker is not None else "")]
        if self.web is not None:
            lan = self.web.lan_url
            parts.append(f"scoreboard {self.web.url}" + (f" (LAN {lan})" if lan else ""))
        return " · ".join(parts)

    def close(self, status: str = "stopped") -> None:
        try:
            self.table.close(status)
        finally:
            if self.evidence is not None:
                self.evidence.close()          # the last pictures written (bounded wait)
            if self.web is not None:
                self.web.stop()
            if self.broker is not None:
                self.broker.stop()
