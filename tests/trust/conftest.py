"""Fixtures for the trust tests: one real SQLite memory served over a real socket with admin and tenant keys
(the tenant keys in the database's own key table, as ``memdesk serve`` reads them)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp")

from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.conversation.quota import StorageQuota  # noqa: E402
from memdesk.server import ApiKeys, create_app  # noqa: E402
from memdesk.tenants import ApiKeyInfo, Tenant, hash_key, new_key  # noqa: E402
from memdesk.records import utcnow  # noqa: E402

from tests.server.conftest import LiveServer, sqlite_memory  # noqa: E402
from .checks import ChangeReading  # noqa: E402

ADMIN_KEY = "admin-key-0123456789abcdef"


class KeyTable:
    """Tenant keys held in process (the :class:`~memdesk.tenants.TenantKeys` seam without a database), for tests
    of the server's key checks alone."""

    def __init__(self) -> None:
        self._by_hash: dict[str, ApiKeyInfo] = {}
        self._lock = threading.Lock()

    def create(self, tenant: Tenant) -> str:
        key, key_id = new_key()
        with self._lock:
            self._by_hash[hash_key(key)] = ApiKeyInfo(key_id=key_id, tenant=tenant, created_at=utcnow())
        return key

    def find_key(self, key_hash: str) -> ApiKeyInfo | None:
        with self._lock:
            return self._by_hash.get(key_hash)

    def has_keys(self) -> bool:
        with self._lock:
            return bool(self._by_hash)


@dataclass
class Served:
    """A memory and the live server around it; tenant keys are made in the memory's database."""

    memory: Memory
    server: LiveServer
    _made: dict[Tenant, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return self.server.url

    def key_for(self, tenant: Tenant) -> str:
        if tenant not in self._made:
            self._made[tenant] = self.memory.store.create_key(tenant).key
        return self._made[tenant]

    def revoked(self, tenant: Tenant) -> str | None:
        """The tenant's key, which a forget revoked: a new one is made when next asked for."""
        return self._made.pop(tenant, None)


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Served]:
    memory = sqlite_memory(tmp_path_factory.mktemp("trust") / "trust.db")
    memory.quota = StorageQuota(max_records=10**9, max_bytes=10**12)  # every add reads its tenant's usage, never refused
    memory.processor = ChangeReading()  # the rules for the change script (narrowing, split records), raw turns otherwise
    try:
        with LiveServer(create_app(memory, api_keys=ApiKeys([ADMIN_KEY], tenant_keys=memory.store))) as server:
            yield Served(memory, server)
    finally:
        memory.close()
