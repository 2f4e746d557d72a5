"""Is a broker there? A TCP look before connecting, so a wrong URL or a broker that is down
gives one line that names it instead of an errno or silence."""
from __future__ import annotations

import socket

CONNECT_TIMEOUT_S = 3.0    # a LAN broker answers in milliseconds; a dead host must not hold start-up


class BrokerUnreachable(OSError):
    """Nothing accepts connections at the broker's address (the message names it)."""


def check_broker(url: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Raise :class:`BrokerUnreachable` unless something listens at ``url``'s host and port."""
    from controller.mqtt import MqttError, parse_url

    try:
        _scheme, host, port, _path = parse_url(url)
    except (MqttError, ValueError) as exc:
        raise BrokerUnreachable(str(exc)) from None
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except socket.timeout:
        why = f"no answer in {timeout:g} s"
    except socket.gaierror:
        why = f"unknown host {host!r}"
    except OSError as exc:
        why = (exc.strerror or str(exc)).lower()
    raise BrokerUnreachable(f"cannot reach the MQTT broker at {url} ({why}); is it running? "
                            f"(`systemctl status mosquitto` on its machine)")
