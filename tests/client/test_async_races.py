"""AsyncMemory under concurrent use: deferred and waited adds of several tenants at once, with a forget
racing the deferred processing of its tenant's messages.

The isolation state machine (tests/trust) plays its steps one at a time; here they overlap. Every tenant's
raw log must end with exactly its own messages (none lost, none twice), each record must come from its own
tenant's messages, and the forgotten tenant must leave nothing behind, on each store backend.
"""

from __future__ import annotations

import asyncio

from memdesk import AsyncMemory, Scope
from memdesk.embed import HashingEmbedder
from memdesk.settings import Settings

TENANTS = [Scope(user_id=u) for u in ("ana", "ben", "chloe")]
GONE = Scope(user_id="dara")


def said(scope: Scope, i: int) -> str:
    return f"{scope.user_id} note {i}: I keep my bike in shed number {i}."


def test_concurrent_adds_and_a_racing_forget_lose_nothing_and_leak_nothing(backend_url):
    async def main() -> None:
        async with AsyncMemory.open(Settings(database_url=backend_url), embedder=HashingEmbedder(64)) as mem:
            # the forgotten tenant's messages are logged pending; the Memory's worker starts on them
            for i in range(6):
                await mem.add(said(GONE, i), scope=GONE, wait=False)
            calls = [mem.forget(GONE)]
            for scope in TENANTS:
                calls += [mem.add(said(scope, i), scope=scope, wait=i % 2 == 0) for i in range(8)]
            results = await asyncio.gather(*calls)
            assert results[0].messages == 6  # all were logged before the forget
            await mem.wait_pending()

            for scope in TENANTS:
                texts = sorted(m.content for m in await mem.messages(scope=scope))
                assert texts == sorted(said(scope, i) for i in range(8))  # each once, none of another tenant
                logged = {m.id for m in await mem.messages(scope=scope)}
                records = await mem.get_all(scope=scope)
                assert records and all(r.scope == scope for r in records)
                assert all(set(r.provenance) <= logged for r in records)
                assert len({r.provenance[0] for r in records}) == 8  # every message made its records
            assert await mem.messages(scope=GONE) == []
            assert await mem.get_all(scope=GONE) == []
            for scope in TENANTS:  # no other tenant's words reach a search
                hits = await mem.search("Where is the bike kept?", scope=scope, K=50)
                assert hits and all(scope.user_id in h.record.embed_text() for h in hits)

    asyncio.run(main())
