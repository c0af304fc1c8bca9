"""The Memory's background thread for ``add(..., wait=False)``: pending messages processed fairly between tenants.

Each tenant (a scope's ``user_id``, else its ``agent_id``, else its ``run_id``) has its own queue of scopes with
pending messages; the thread serves the tenants round-robin, one batch of at most ``batch`` messages of one scope
per turn. So one tenant's backlog delays another tenant's messages by at most one batch per other tenant with
work queued: a message queued while ``T`` tenants have work waits for at most ``T`` batches (``T * batch``
messages' processing) before its scope's turn, however many messages the others have queued.

A tenant may have at most ``max_pending`` messages queued (:meth:`Worker.admit` reserves them before they are
logged): past it :class:`~memdesk.errors.TooManyRequestsError` (HTTP 429 with ``Retry-After``). At least once,
never twice: a scope whose processing fails keeps its messages pending (for :meth:`Memory.reprocess` or a
retried ``add``), and the store's claim keeps any message from being processed twice.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable

from ..errors import TooManyRequestsError, UsageError
from ..records import Scope

log = logging.getLogger(__name__)

DEFAULT_MAX_PENDING = 10_000
"""Messages one tenant may have queued for the worker at a time."""
DEFAULT_BATCH = 32
"""Messages of one scope processed in one turn."""


def tenant_of(scope: Scope) -> str:
    """The fairness unit of a scope: its user, else its agent, else its run."""
    if scope.user_id is not None:
        return f"user:{scope.user_id}"
    return f"agent:{scope.agent_id}" if scope.agent_id is not None else f"run:{scope.run_id}"


class Worker:
    """One in-process thread of a Memory that processes the scopes ``add(..., wait=False)`` logged pending,
    round-robin between tenants, ``batch`` messages of one scope per turn. Started on first use; :meth:`close`
    (``Memory.close``) processes what is queued, then stops it."""

    def __init__(
        self, process: Callable[[Scope, int], int], *, max_pending: int = DEFAULT_MAX_PENDING, batch: int = DEFAULT_BATCH
    ) -> None:
        """``process(scope, limit)`` processes at most ``limit`` pending messages of ``scope`` (the Memory's
        reprocess) and returns how many stay pending."""
        if max_pending < 1 or batch < 1:
            raise UsageError("the worker's max_pending and batch must be positive")
        self._process = process
        self.max_pending = max_pending
        self.batch = batch
        self._cond = threading.Condition()
        self._tenants: OrderedDict[str, deque[str]] = OrderedDict()  # tenant -> its queued scope keys, in turn
        self._scopes: dict[str, Scope] = {}  # queued (or running) scope key -> scope
        self._outstanding: dict[str, int] = {}  # scope key -> messages reserved or queued, not yet processed
        self._running: str | None = None
        self._last: str | None = None  # the tenant served last
        self._again: set[str] = set()  # submitted while running: its turn comes again
        self._thread: threading.Thread | None = None
        self._closed = False

    def pending(self, scope: Scope) -> int:
        """Messages the scope's tenant has queued (reserved, waiting or being processed)."""
        tenant = tenant_of(scope)
        with self._cond:
            return sum(n for key, n in self._outstanding.items() if tenant_of(self._scopes[key]) == tenant)

    def pending_by_tenant(self) -> dict[str, int]:
        """Messages queued per tenant (for the server's metrics)."""
        with self._cond:
            counts: dict[str, int] = {}
            for key, n in self._outstanding.items():
                tenant = tenant_of(self._scopes[key])
                counts[tenant] = counts.get(tenant, 0) + n
            return counts

    def admit(self, scope: Scope, messages: int) -> None:
        """Reserve room for ``messages`` more of ``scope``'s tenant, or raise :class:`TooManyRequestsError`."""
        with self._cond:
            if self._closed:
                raise UsageError("this Memory is closed: add(wait=False) needs an open one")
            tenant = tenant_of(scope)
            queued = sum(n for key, n in self._outstanding.items() if tenant_of(self._scopes[key]) == tenant)
            if queued + messages > self.max_pending:
                raise TooManyRequestsError(
                    f"{queued:,} messages of this tenant are waiting to be processed; at most {self.max_pending:,} "
                    "may wait: retry later, or add with wait=true",
                    retry_after=max(1, min(60, queued // max(1, self.batch))),
                )
            key = scope.key()
            self._scopes.setdefault(key, scope)
            self._outstanding[key] = self._outstanding.get(key, 0) + messages

    def give_back(self, scope: Scope, messages: int) -> None:
        """Give back a reservation whose messages were not logged after all."""
        with self._cond:
            key = scope.key()
            left = self._outstanding.get(key, 0) - messages
            if left > 0:
                self._outstanding[key] = left
            else:
                self._forget(key)

    def submit(self, scope: Scope) -> None:
        """Queue ``scope`` (its pending messages are logged) for its tenant's next turn."""
        with self._cond:
            if self._closed:
                raise UsageError("this Memory is closed: add(wait=False) needs an open one")
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memdesk-reprocess", daemon=True)
                self._thread.start()
            key = scope.key()
            self._scopes.setdefault(key, scope)
            self._outstanding.setdefault(key, 0)
            queue = self._tenants.setdefault(tenant_of(scope), deque())
            if key == self._running:
                self._again.add(key)
            elif key not in queue:
                queue.append(key)
            self._cond.notify_all()

    def join(self) -> None:
        """Wait until every scope submitted so far has been processed (or failed, staying pending)."""
        with self._cond:
            self._cond.wait_for(lambda: not self._tenants and self._running is None)

    def close(self) -> None:
        with self._cond:
            self._closed, thread = True, self._thread
            self._cond.notify_all()
        if thread is not None:
            thread.join()

    def _forget(self, key: str) -> None:
        self._outstanding.pop(key, None)
        if key != self._running and not any(key in q for q in self._tenants.values()):
            self._scopes.pop(key, None)

    def _next(self) -> str | None:
        """The next tenant's next scope (the tenant goes to the back of the line); None when closed and idle."""
        with self._cond:
            self._cond.wait_for(lambda: bool(self._tenants) or self._closed)
            if not self._tenants:
                return None
            tenant = next(iter(self._tenants))
            if tenant == self._last and len(self._tenants) > 1:  # its work came back while it was served
                self._tenants.move_to_end(tenant)
                tenant = next(iter(self._tenants))
            self._last, queue = tenant, self._tenants[tenant]
            key = queue.popleft()
            del self._tenants[tenant]
            if queue:
                self._tenants[tenant] = queue  # back of the line
            self._running = key
            return key

    def _run(self) -> None:
        while True:
            key = self._next()
            if key is None:
                return
            scope = self._scopes[key]
            left = 0
            try:
                left = self._process(scope, self.batch)
            except Exception:  # the messages stay pending: nothing is lost, the next reprocess takes them
                log.exception("memdesk: processing the messages added with wait=False under %s failed; they stay "
                              "pending (Memory.reprocess(scope) or `memdesk reprocess`)", scope)  # fmt: skip
            with self._cond:
                self._running = None
                if left > 0 or key in self._again:
                    self._again.discard(key)
                    self._outstanding[key] = max(left, 1)
                    queue = self._tenants.setdefault(tenant_of(scope), deque())
                    if key not in queue:
                        queue.append(key)
                else:
                    self._forget(key)
                self._cond.notify_all()
