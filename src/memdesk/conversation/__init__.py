"""The conversational memory (ENGRAM): the write path's processors, the read path's answerers, the
``Memory`` facade that wires them, and the conversation file formats.

Public surface:

- seams (``memdesk.conversation.base``): :class:`Processor`, :class:`Router`, :class:`Extractor`,
  :class:`Answerer`, :class:`Utterance`, :class:`RoutedExtraction` (a Router chained to an Extractor);
- :class:`Memory` (``memdesk.conversation.memory``);
- processors: :class:`RuleRouter` + :class:`RuleExtractor` (offline rules), :class:`LLMProcessor`
  (one chat-model call per utterance), :class:`RawTurnProcessor` (one record per turn: flat RAG);
- answerers: :class:`ExtractiveAnswerer` (offline), :class:`LLMAnswerer`;
- files: :func:`read_conversations` (LoCoMo JSON, chat JSONL) and :func:`parse_locomo`, the one
  LoCoMo parser (strict for ingest, lenient for evaluation).
"""

from __future__ import annotations

from .answer import ExtractiveAnswerer, LLMAnswerer
from .base import Answerer, Extractor, Processor, RoutedExtraction, Router, Utterance
from .extract import RuleExtractor
from .files import Conversation, read_conversations
from .llm_processor import LLMProcessor
from .locomo import parse_locomo
from .memory import Memory
from .raw import RawTurnProcessor
from .router import RuleRouter

__all__ = [
    "Answerer",
    "Conversation",
    "Extractor",
    "ExtractiveAnswerer",
    "LLMAnswerer",
    "LLMProcessor",
    "Memory",
    "Processor",
    "RawTurnProcessor",
    "RoutedExtraction",
    "Router",
    "RuleExtractor",
    "RuleRouter",
    "Utterance",
    "parse_locomo",
    "read_conversations",
]
