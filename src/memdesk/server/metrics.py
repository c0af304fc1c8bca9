"""``/metrics`` in the Prometheus text format (prometheus_client), one registry per app.

Series: ``memdesk_requests_total{route,method,status}``, ``memdesk_request_seconds{route}`` (a histogram),
``memdesk_adds_total`` and ``memdesk_searches_total`` (successful add and search requests), ``memdesk_errors_total
{type}`` (the error envelope's type: ``InvalidInputError``, ``NotAuthenticated``, ``TooManyRequestsError``, ...)
and ``memdesk_pending_messages{tenant}`` (messages of ``add(wait=false)`` waiting for the worker, per tenant).
``route`` is the route's template (``/v1/memories/{memory_id}``), never the requested path, so ids and scope
names do not become labels; a path no route matched is counted as ``unmatched``.

Who may scrape (setting ``metrics``): ``admin`` (default; an admin key, or no key on a server that requires
none), ``open`` (anyone who reaches the server; the per-tenant series is then left out, so tenant names do not
leak) or ``off`` (no ``/metrics`` route). Tenant keys never read it: tenant names are other tenants' business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Literal

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

MetricsAccess = Literal["admin", "open", "off"]
_ADDS = {("/v1/memories", "POST")}
_SEARCHES = {("/v1/memories/search", "POST"), ("/v1/memories/evidence", "POST"), ("/v1/memories/answer", "POST")}


class _Pending:
    """A collector reading the pending-message counts per tenant when scraped."""

    def __init__(self, pending: Callable[[], dict[str, int]], per_tenant: bool) -> None:
        self.pending, self.per_tenant = pending, per_tenant

    def collect(self) -> Iterator[GaugeMetricFamily]:
        counts = self.pending()
        if self.per_tenant:
            family = GaugeMetricFamily(
                "memdesk_pending_messages", "Messages added with wait=false not yet processed, per tenant", labels=["tenant"]
            )
            for tenant, n in sorted(counts.items()):
                family.add_metric([tenant], n)
        else:
            family = GaugeMetricFamily("memdesk_pending_messages", "Messages added with wait=false not yet processed")
            family.add_metric([], sum(counts.values()))
        yield family


class ServerMetrics:
    """The server's counters; :meth:`request` is called by the request gate for every HTTP request."""

    def __init__(self, pending: Callable[[], dict[str, int]], *, per_tenant: bool = True) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "memdesk_requests", "HTTP requests answered", ["route", "method", "status"], registry=self.registry
        )
        self.seconds = Histogram(
            "memdesk_request_seconds", "Time to answer an HTTP request", ["route"], registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
        )  # fmt: skip
        self.adds = Counter("memdesk_adds", "Successful add requests", registry=self.registry)
        self.searches = Counter("memdesk_searches", "Successful search, evidence and answer requests", registry=self.registry)
        self.errors = Counter("memdesk_errors", "Failed requests by error type", ["type"], registry=self.registry)
        self.registry.register(_Pending(pending, per_tenant))  # type: ignore[arg-type]

    def request(self, scope: dict[str, Any], status: int, seconds: float) -> None:
        route = getattr(scope.get("route"), "path", None) or "unmatched"
        method = scope.get("method", "GET")
        self.requests.labels(route, method, str(status)).inc()
        self.seconds.labels(route).observe(seconds)
        if status < 400 and (route, method) in _ADDS:
            self.adds.inc()
        elif status < 400 and (route, method) in _SEARCHES:
            self.searches.inc()

    def error(self, type_name: str) -> None:
        self.errors.labels(type_name).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The text format and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST
