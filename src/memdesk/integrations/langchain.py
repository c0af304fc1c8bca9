"""A LangChain retriever over memdesk: :class:`MemdeskRetriever` (``pip install 'memdesk[langgraph]'``).

``MemdeskRetriever(scope=Scope(user_id="ana"))`` retrieves with ``Memory.search`` (typed top-k, merged,
de-duplicated, truncated to K) on memdesk's default settings, or on the ``memory`` you pass (a ``Memory`` or a
``RemoteMemory``). Each hit is a ``Document`` whose text is the record's text and whose metadata holds its id, type,
score, why it matched, speaker, temporal anchor and source message ids. The async path
(``ainvoke``) awaits the same search through ``AsyncMemory`` / ``AsyncRemoteMemory``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from ..records import Scope
from ..hits import SearchHit


def hit_document(hit: SearchHit) -> Document:
    r = hit.record
    return Document(
        page_content=r.embed_text(),
        id=r.id,
        metadata={
            "id": r.id,
            "type": hit.memory_type.value,
            "score": hit.score,
            "why": hit.why,
            "speaker": r.speaker,
            "temporal_anchor": r.temporal_anchor,
            "provenance": list(r.provenance),
            "scope": r.scope.model_dump(exclude_none=True),
        },
    )


class MemdeskRetriever(BaseRetriever):
    """Memories relevant to a query, as LangChain documents, best first."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    scope: Scope
    memory: Any = Field(default=None, description="A Memory or RemoteMemory; default Memory.open().")
    k: int | None = Field(default=None, description="Records per memory type (default: the memory's setting).")
    K: int | None = Field(default=None, description="Records returned after merging (default: the memory's setting).")
    search_args: dict[str, Any] = Field(default_factory=dict, description="More Memory.search arguments (types, speaker, ...).")
    _async: Any = PrivateAttr(default=None)

    def model_post_init(self, context: Any) -> None:
        if self.memory is None:
            from ..conversation.memory import Memory

            self.memory = Memory.open()

    def _args(self) -> dict[str, Any]:
        return {"scope": self.scope, "k": self.k, "K": self.K, **self.search_args}

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [hit_document(h) for h in self.memory.search(query, **self._args())]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self._async is None:
            from ..client.async_api import AsyncMemory, AsyncRemoteMemory
            from ..client.remote import RemoteMemory

            wrap = AsyncRemoteMemory.wrap if isinstance(self.memory, RemoteMemory) else AsyncMemory
            self._async = wrap(self.memory)
        return [hit_document(h) for h in await self._async.search(query, **self._args())]
