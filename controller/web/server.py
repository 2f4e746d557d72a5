"""Serve the web scoreboard (``controller/web/static/``), ``/config.json`` (docs/mqtt.md) and
the tables' evidence pictures (``/evidence/<table>/<name>``, read-only, nothing outside them).

Standard library only, one daemon thread. ``config.json`` tells the page the broker's
websocket URL (as seen from the browser: the host the page came from, unless configured)
and the read-only display account.
"""
from __future__ import annotations

import json
import socket
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit, urlunsplit

from controller.evidence import safe_path

STATIC = Path(__file__).with_name("static")
# Where the tables' evidence pictures are served: /evidence/<table id>/<name> (controller/evidence.py).
EVIDENCE_PREFIX = "/evidence/"
# The shipped Mosquitto config's websockets listener (config/mosquitto/mosquitto.conf): where
# browsers find a broker that the tables reach over MQTT/TCP.
MOSQUITTO_WS_PORT = 9001
# Hosts that mean "this machine": a browser elsewhere reaches them by the page's own host.
LOCAL_HOSTS = ("127.0.0.1", "localhost", "0.0.0.0", "::1", "::", "")


def ws_url_for(broker_url: str) -> str:
    """The websocket URL of the broker behind ``broker_url`` (ws/wss as given, mqtt(s) ->
    the Mosquitto websockets port), without the credentials a URL may carry."""
    u = urlsplit(broker_url or "mqtt://127.0.0.1")
    host = u.hostname or "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    if u.scheme in ("ws", "wss"):
        netloc = host + (f":{u.port}" if u.port else "")
        return urlunsplit((u.scheme, netloc, u.path or "/", u.query, ""))
    return f"{'wss' if u.scheme == 'mqtts' else 'ws'}://{host}:{MOSQUITTO_WS_PORT}/"


def lan_address() -> str | None:
    """This machine's address on the network (the source address of its default route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))        # TEST-NET-1; a UDP connect sends nothing
            addr = str(s.getsockname()[0])
    except OSError:
        return None
    return None if addr.startswith("127.") else addr


def page_host(host_header: str | None) -> str:
    """The host part of an HTTP ``Host`` header (``pi.local:8080``, ``[fd00::2]:8080``)."""
    u = urlsplit("//" + (host_header or "127.0.0.1"))
    return u.hostname or "127.0.0.1"


def as_seen_from(ws_url: str, host: str) -> str:
    """``ws_url`` with a this-machine host replaced by the host the page was loaded from."""
    u = urlsplit(ws_url)
    if (u.hostname or "") not in LOCAL_HOSTS:
        return ws_url
    h = f"[{host}]" if ":" in host else host
    return urlunsplit((u.scheme, h + (f":{u.port}" if u.port else ""), u.path or "/", u.query, ""))


class _Handler(SimpleHTTPRequestHandler):
    config: Callable[[str], dict[str, Any]]

    def __init__(self, *args, config, evidence, **kwargs) -> None:
        self.config = config
        self.evidence = evidence
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0]
        if path.startswith(EVIDENCE_PREFIX):
            self._evidence(path[len(EVIDENCE_PREFIX):])
            return
        if path.endswith("/config.json"):
            body = json.dumps(self.config(page_host(self.headers.get("Host")))).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if not (STATIC / "index.html").exists() and path in ("/", "/index.html"):
            body = b"<!doctype html><title>cardtable</title><p>The web scoreboard is not installed " \
                   b"(controller/web/static/ is empty). <a href='config.json'>config.json</a>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def _evidence(self, rest: str) -> None:
        """``/evidence/<table>/<name>``: a picture the table's evidence store made, read-only.
        The name must be one the store makes (controller.evidence.NAME: no ``..``, no ``%``),
        inside that table's folder; anything else is 404."""
        table, _, name = rest.partition("/")
        root = self.evidence.get(table)
        p = safe_path(root, name) if root is not None else None
        try:
            body = p.read_bytes() if p is not None else None
        except OSError:                      # rotated away, or never written (a failed write)
            body = None
        if body is None:
            self.send_error(404, "no such picture")
            return
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Cache-Control", "max-age=3600")     # a picture never changes under its name
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:   # quiet: the terminal shows the scoreboard
        pass


class WebServer:
    """``WebServer(port, config_for_host).start()``; ``url``; ``stop()``."""

    def __init__(self, port: int, config: Callable[[str], dict[str, Any]], host: str = "0.0.0.0",
                 static: Path = STATIC, evidence: dict[str, Path] | None = None) -> None:
        self.evidence: dict[str, Path] = dict(evidence or {})     # table id -> its evidence folder
        handler = partial(_Handler, directory=str(static), config=config, evidence=self.evidence)
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.host = host
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="cardtable-web", daemon=True)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    @property
    def lan_url(self) -> str | None:
        """The URL a TV elsewhere on the network opens (None if serving localhost only)."""
        if self.host not in ("0.0.0.0", ""):
            return None if self.host in LOCAL_HOSTS else self.url
        addr = lan_address()
        return f"http://{addr}:{self.port}/" if addr else None

    def start(self) -> "WebServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def broker_config(ws_url: str, username: str | None, password: str | None, tables: list[str],
                  public_ws_url: str = "") -> Callable[[str], dict[str, Any]]:
    """The ``config.json`` maker: a broker on this machine is named by the page's own host (so a
    TV on the LAN reaches it), unless ``public_ws_url`` says where browsers find it."""
    def make(host: str) -> dict[str, Any]:
        url = public_ws_url or as_seen_from(ws_url, host)
        return {"ws_url": url, "username": username or None, "password": password or None,
                "root": "cardtable/v1/tables/", "tables": list(tables)}
    return make
