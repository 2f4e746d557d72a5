# Type stubs for the host side; the board runs framing.py without annotations.
from typing import Callable

DATA: int
ACK: int
HELLO: int
PING: int
KINDS: tuple[int, ...]
SEQ_BYTES: int
SEQ_MASK: int
SEQ_HALF: int
HEADER_LEN: int
CRC_LEN: int
MAX_PAYLOAD: int
MAX_FRAME: int
MAX_ENCODED: int

Frame = tuple[int, int, int, bytes]

def crc16(data: bytes | bytearray, crc: int = ...) -> int: ...
def cobs_encode(data: bytes | bytearray) -> bytes: ...
def cobs_decode(data: bytes | bytearray) -> bytes: ...
def encode_frame(kind: int, seq: int, ack: int, payload: bytes = ...) -> bytes: ...
def decode_frame(encoded: bytes) -> Frame | None: ...

class Decoder:
    stats: dict[str, int]
    def __init__(self, stats: dict[str, int] | None = ...) -> None: ...
    def feed(self, data: bytes | bytearray) -> list[Frame]: ...

class Link:
    nonce: int
    peer_nonce: int | None
    up: bool
    restarts: int
    window: int
    queue_max: int
    queue: list[bytes]
    in_flight: list[list[int | bytes]]
    stats: dict[str, int]
    def __init__(self, write: Callable[[bytes], object], nonce: int, window: int = ...,
                 rto_ms: int = ..., rto_max_ms: int = ..., hello_ms: int = ...,
                 hello_max_ms: int = ..., heartbeat_ms: int = ..., queue_max: int = ...,
                 fast_ms: int = ..., diff: Callable[[int, int], int] | None = ...) -> None: ...
    def send(self, payload: bytes) -> bool: ...
    def pending(self) -> int: ...
    def clear(self) -> None: ...
    def restart_handshake(self) -> None: ...
    def poll(self, now: int) -> None: ...
    def feed(self, data: bytes | bytearray, now: int) -> list[bytes]: ...
    def quiet_for(self, now: int) -> int | None: ...
