"""memdesk: typed conversational memory (ENGRAM) and reasoning memory (MAC) for LLM agents.

The public surface is what this module exports; everything else is internal and may change.
"""

from .client.async_api import AsyncMemory, AsyncRemoteMemory
from .conversation.admission import AdmissionPolicy
from .conversation.base import Answerer, Extractor, Processor, RoutedExtraction, Router, Utterance
from .conversation.ingest import Reprocessed
from .conversation.memory import Memory
from .embed.base import BaseEmbedder, Embedder
from .errors import *  # noqa: F401,F403 - the exception tree is public
from .errors import MemdeskError
from .llm.base import ChatMessage, ChatModel, Completion, Usage
from .hits import Answer, Evidence, MemoryItem, SearchHit
from .records import (
    AddResult,
    EpisodicRecord,
    HistoryEntry,
    HistoryEvent,
    MemoryType,
    Message,
    ProceduralRecord,
    RawMessage,
    RouteMask,
    Scope,
    SemanticRecord,
)
from .client.remote import RemoteMemory
from .retrieval.retrieve import Retriever, Serializer
from .settings import Settings
from .runtime import moved as _moved
from .store.base import Store

__version__ = "0.1.0"

__all__ = [
    "AddResult",
    "AdmissionPolicy",
    "Answer",
    "Answerer",
    "AsyncMemory",
    "AsyncRemoteMemory",
    "BaseEmbedder",
    "ChatMessage",
    "ChatModel",
    "Completion",
    "Embedder",
    "EpisodicRecord",
    "Evidence",
    "Extractor",
    "HistoryEntry",
    "HistoryEvent",
    "Memory",
    "MemdeskError",
    "MemoryItem",
    "MemoryType",
    "Message",
    "ProceduralRecord",
    "Processor",
    "RawMessage",
    "RemoteMemory",
    "Reprocessed",
    "Retriever",
    "RouteMask",
    "RoutedExtraction",
    "Router",
    "Scope",
    "SearchHit",
    "SemanticRecord",
    "Serializer",
    "Settings",
    "Store",
    "Usage",
    "Utterance",
]

_moved.install()  # older module paths (memdesk.remote, memdesk.retrieve, ...) keep importing
