"""Naming cards off the frame loop: one worker thread asks the recogniser, one question at a time.

Naming a new card (fitting templates, duels) costs ~15 ms on one x86 core and ~50 ms on a Pi 4:
more than a frame's share at 30 fps. The watcher therefore starts the look at a settling region
a few frames *before* its debounce window ends (:data:`vision.tracking.LOOK_AHEAD`), on this
worker, and takes the answer at the frame where the card has been still long enough, exactly
where it would have asked itself: events keep their frames and their order, and the frame loop
only waits if the worker has not finished. Every recogniser call of a watcher goes through its
worker, so the recogniser (whose caches are not thread-safe) is only ever used by one thread.
"""
from __future__ import annotations

import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, TypeVar

T = TypeVar("T")
CPU_KEPT = 4096      # jobs whose CPU time is kept (a match night has a few thousand)


class LookWorker:
    """A single thread running recogniser jobs in the order they are given."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="card-look")
        # thread CPU of the latest jobs (bench/vision_live.py), bounded: a table runs all night
        self.cpu_ms: deque[float] = deque(maxlen=CPU_KEPT)

    def submit(self, job: Callable[[], T]) -> "Future[T]":
        """Run ``job`` after the jobs given before it; its answer (or exception) in the future."""
        def timed() -> T:
            t = time.thread_time()
            try:
                return job()
            finally:
                self.cpu_ms.append((time.thread_time() - t) * 1000)
        return self._pool.submit(timed)

    def run(self, job: Callable[[], T]) -> T:
        """Run ``job`` now (after what is queued) and wait for its answer."""
        return self.submit(job).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
