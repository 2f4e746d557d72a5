"""The LED/button board's MicroPython firmware.

Every module here also runs under CPython: the host imports ``firmware.framing`` and
``firmware.messages`` (the wire protocol is written once), and the board simulator runs
``firmware.board.Board`` with the hardware replaced by shims. On the board the files sit
flat in the filesystem and import each other as ``import framing``.
"""
