"""The embedded MQTT broker: amqtt (MQTT 3.1.1, TCP and websockets) in a thread of our own.

Used when the table config names no broker (and by ``cardtable demo``), so a newcomer needs
nothing else installed; production uses Mosquitto with ``config/mosquitto/``. It listens on
localhost by default and allows anonymous clients: it is a convenience, not a security
boundary.
"""
from __future__ import annotations

import asyncio
import logging
import socket
import threading


def _not_a_probe(record: logging.LogRecord) -> bool:
    """Drop amqtt's ERROR for a connection closed before any MQTT packet: that is a TCP look
    (controller.reach: is a broker there?), not a fault, and it alarmed people at every demo."""
    return not record.getMessage().startswith("No data from")


class BrokerError(OSError):
    """The embedded broker could not start (port taken, amqtt missing)."""


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def port_free(host: str, port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


class EmbeddedBroker:
    """``start()`` returns once both listeners accept; ``stop()`` shuts it down."""

    def __init__(self, host: str = "127.0.0.1", port: int = 1883, ws_port: int = 9001,
                 fallback: bool = True, ws_host: str = "") -> None:
        # ws_host: where the websockets listener binds; "0.0.0.0" lets TVs on the LAN in
        # while MQTT/TCP (the tables, the referee) stays on `host`.
        ws_host = ws_host or host
        if fallback:
            port = port if port and port_free(host, port) else free_port(host)
            ws_port = ws_port if ws_port and port_free(ws_host, ws_port) else free_port(ws_host)
        self.host, self.port, self.ws_port, self.ws_host = host, port, ws_port, ws_host
        self._loop: asyncio.AbstractEventLoop | None = None
        self._broker = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}?protocol=3.1.1"     # amqtt speaks no MQTT v5

    @property
    def ws_url(self) -> str:
        return f"ws://{self.ws_host}:{self.ws_port}/"

    def start(self, timeout: float = 15.0) -> "EmbeddedBroker":
        try:
            from amqtt.broker import Broker
        except ImportError as exc:
            raise BrokerError(f"the embedded broker needs amqtt (pip install amqtt): {exc}") from None
        for name in ("amqtt", "transitions"):
            logging.getLogger(name).setLevel(logging.ERROR)
        logging.getLogger("amqtt.broker").addFilter(_not_a_probe)
        cfg = {"listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"},
                             "ws": {"type": "ws", "bind": f"{self.ws_host}:{self.ws_port}"}},
               "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}}
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            self._loop = loop
            try:
                self._broker = Broker(cfg, loop=loop)
                loop.run_until_complete(self._broker.start())
            except BaseException as exc:  # reported to start()'s caller
                self._error = exc
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, name="cardtable-broker", daemon=True)
        self._thread.start()
        if not ready.wait(timeout):
            raise BrokerError("the embedded broker did not start in time")
        if self._error is not None:
            raise BrokerError(f"the embedded broker could not start on {self.host}:{self.port}/"
                              f"{self.ws_host}:{self.ws_port}: {self._error}")
        return self

    def stop(self) -> None:
        loop, broker = self._loop, self._broker
        if loop is None or broker is None or not loop.is_running():
            return
        try:
            asyncio.run_coroutine_threadsafe(broker.shutdown(), loop).result(5)
        except Exception:
            pass
        loop.call_soon_threadsafe(loop.stop)
        if self._thread is not None:
            self._thread.join(5)
