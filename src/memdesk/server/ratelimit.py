"""Per-key request rate (token buckets) and concurrency, for :class:`~memdesk.server.gate.RequestGate`.

A key is known by the SHA-256 of the key it matched (however the headers spell it), never by the credential itself. The tables hold at most
``max_keys`` entries: the least recently seen key is dropped first (it starts again with a full bucket, which is
what a key unseen for that long would have anyway).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable


class RateLimiter:
    """Token buckets: each key may make ``burst`` requests at once, then ``rate`` per second (0: no limit)."""

    def __init__(
        self, rate: float, burst: int, *, max_keys: int = 100_000, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate, self.burst, self.max_keys, self._clock = rate, burst, max_keys, clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key -> (tokens, at)
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0.0 when granted, else the seconds until one is available."""
        if self.rate <= 0:
            return 0.0
        now = self._clock()
        with self._lock:
            tokens, at = self._buckets.pop(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - at) * self.rate)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / self.rate
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            return wait


class Concurrency:
    """At most ``limit`` requests of one key in flight (0: no limit)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._running: dict[str, int] = {}
        self._lock = threading.Lock()

    def enter(self, key: str) -> bool:
        """Count one more request of ``key`` in; False (nothing counted) when it already has ``limit``."""
        if self.limit <= 0:
            return True
        with self._lock:
            n = self._running.get(key, 0)
            if n >= self.limit:
                return False
            self._running[key] = n + 1
            return True

    def leave(self, key: str) -> None:
        if self.limit <= 0:
            return
        with self._lock:
            n = self._running.get(key, 0) - 1
            if n > 0:
                self._running[key] = n
            else:
                self._running.pop(key, None)


def retry_seconds(wait: float) -> str:
    """A Retry-After value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait)))
