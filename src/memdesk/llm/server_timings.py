"""Prefill and decode time as the server measured it: llama.cpp's ``timings`` block on a reply, or
the difference of vLLM's ``/metrics`` counters around one call (:class:`VLLMMetricsProbe`, exact at
batch size one, which is how latency is reported for a single query)."""

from __future__ import annotations

import logging
import re
import urllib.request
from collections.abc import Callable
from typing import Any, Protocol

from pydantic import BaseModel

logger = logging.getLogger(__name__)


class ServerTimings(BaseModel):
    """Prefill and decode seconds as the server measured them."""

    prefill_s: float
    decode_s: float
    source: str


class MetricsProbe(Protocol):
    """Reads a server's cumulative counters; the difference around one call is that call's timing."""

    def snapshot(self) -> dict[str, float]: ...

    def timings(self, before: dict[str, float], after: dict[str, float]) -> ServerTimings | None: ...


_PROM_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([-+0-9.eEinfNa]+)")


def parse_prometheus(text: str) -> dict[str, float]:
    """Prometheus text format -> {metric name: value summed over its label sets}."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _PROM_LINE.match(line)
        if m:
            try:
                out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(3))
            except ValueError:
                continue
    return out


class VLLMMetricsProbe:
    """vLLM's ``/metrics``: per-request prefill and decode time sums (exact at batch size one).

    Uses ``vllm:request_prefill_time_seconds`` / ``vllm:request_decode_time_seconds`` when the server
    exports them, else TTFT (``vllm:time_to_first_token_seconds``) and end-to-end latency.
    """

    PREFILL = "vllm:request_prefill_time_seconds_sum"
    DECODE = "vllm:request_decode_time_seconds_sum"
    TTFT = "vllm:time_to_first_token_seconds_sum"
    E2E = "vllm:e2e_request_latency_seconds_sum"

    def __init__(self, base_url: str, *, fetch: Callable[[str], str] | None = None, timeout_s: float = 5.0) -> None:
        root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
        self.url = f"{root}/metrics"
        self._fetch = fetch or (lambda url: _http_get(url, timeout_s))

    def snapshot(self) -> dict[str, float]:
        try:
            return parse_prometheus(self._fetch(self.url))
        except (OSError, ValueError) as e:
            logger.warning("cannot read %s: %s", self.url, e)
            return {}

    def timings(self, before: dict[str, float], after: dict[str, float]) -> ServerTimings | None:
        def delta(name: str) -> float | None:
            if name in before and name in after:
                return after[name] - before[name]
            return None

        prefill, decode = delta(self.PREFILL), delta(self.DECODE)
        if prefill is not None and decode is not None:
            return ServerTimings(prefill_s=prefill, decode_s=decode, source="vllm /metrics prefill/decode")
        ttft, e2e = delta(self.TTFT), delta(self.E2E)
        if ttft is not None and e2e is not None:
            return ServerTimings(prefill_s=ttft, decode_s=max(0.0, e2e - ttft), source="vllm /metrics ttft/e2e")
        return None


def _http_get(url: str, timeout_s: float) -> str:
    with urllib.request.urlopen(url, timeout=timeout_s) as resp:
        return resp.read().decode("utf-8", "replace")


def llamacpp_timings(extra: dict[str, Any] | None) -> ServerTimings | None:
    """llama.cpp's ``timings`` block ({prompt_ms, predicted_ms, ...}) as :class:`ServerTimings`."""
    t = (extra or {}).get("timings")
    if isinstance(t, dict) and isinstance(t.get("prompt_ms"), (int, float)) and isinstance(t.get("predicted_ms"), (int, float)):
        return ServerTimings(
            prefill_s=float(t["prompt_ms"]) / 1000, decode_s=float(t["predicted_ms"]) / 1000, source="llama.cpp timings"
        )
    return None
