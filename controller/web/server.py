"""Serve the web scoreboard (``controller/web/static/``) and ``/config.json`` (docs/mqtt.md).

Standard library only, one daemon thread. ``config.json`` tells the page the broker's
websocket URL (as seen from the browser: the host the page came from, unless configured)
and the read-only display account.
"""
from __future__ import annotations

import json
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

STATIC = Path(__file__).with_name("static")


class _Handler(SimpleHTTPRequestHandler):
    config: Callable[[str], dict[str, Any]]

    def __init__(self, *args, config, **kwargs) -> None:
        self.config = config
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0]
        if path.endswith("/config.json"):
            host = (self.headers.get("Host") or "127.0.0.1").rsplit(":", 1)[0].strip("[]")
            body = json.dumps(self.config(host)).encode()
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

    def log_message(self, *args) -> None:   # quiet: the terminal shows the scoreboard
        pass


class WebServer:
    """``WebServer(port, config_for_host).start()``; ``url``; ``stop()``."""

    def __init__(self, port: int, config: Callable[[str], dict[str, Any]], host: str = "0.0.0.0",
                 static: Path = STATIC) -> None:
        handler = partial(_Handler, directory=str(static), config=config)
        self.httpd = ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.port = int(self.httpd.server_address[1])
        self.host = host
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="cardtable-web", daemon=True)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}/"

    def start(self) -> "WebServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def broker_config(ws_url: str, username: str | None, password: str | None, tables: list[str],
                  public_ws_url: str = "") -> Callable[[str], dict[str, Any]]:
    """The ``config.json`` maker: the ws host follows the page's host unless ``public_ws_url``."""
    def make(host: str) -> dict[str, Any]:
        url = public_ws_url or ws_url.replace("127.0.0.1", host).replace("localhost", host).replace("0.0.0.0", host)
        return {"ws_url": url, "username": username or None, "password": password or None,
                "root": "cardtable/v1/tables/", "tables": list(tables)}
    return make
