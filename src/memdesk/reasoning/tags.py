"""Retrieval representations: MAC's LLM reasoning tags, and the offline problem-text fallback.

A :class:`Representation` turns a bank entry (problem + verified answer) and a query (the question
alone) into the text that is embedded:

- :class:`TagRepresentation` asks a chat model (temperature 0) for :class:`~.records.Tags` and embeds
  their canonical text. Query tags are produced from the question only: the gold answer and trace
  of an evaluation item never reach the tagger.
- :class:`ProblemRepresentation` is the offline fallback used when there is no chat model: the
  problem text itself is embedded on both sides and an offline bank has no tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from ..errors import InvalidInputError, LLMError
from ..llm.base import ChatMessage, ChatModel, Usage
from ..llm.batch import ChatRequest, run_many
from ..llm.templates import PromptTemplate
from .solved_examples import EmbeddingKind, Tags

_SCHEMA_HELP = """\
Return one JSON object with exactly these fields:
- "knowledge_domains": 1-4 short names of the primary mathematical, scientific or logical domains;
- "solution_strategies": 1-4 short names of the main reasoning procedures (e.g. equation solving,
  case analysis, proportional reasoning, theorem application, modeling, elimination);
- "problem_type": the problem form (e.g. arithmetic word problem, geometric calculation, scientific
  question, logical deduction), at most 80 characters;
- "problem_context": the application context (e.g. shopping, travel, physics, dates), at most 80 characters;
- "complexity": {"difficulty": "easy"|"medium"|"hard", "steps": an integer 1-50,
  "computation": "light"|"moderate"|"heavy"}.
Describe the reasoning the problem needs, not its specific numbers or names.

Example. Problem: "A shop sells pens at 3 for $$2. How much do 12 pens cost?" (answer: 8) gives
{"knowledge_domains": ["arithmetic", "ratios"], "solution_strategies": ["unit rate", "proportional reasoning"],
"problem_type": "arithmetic word problem", "problem_context": "shopping",
"complexity": {"difficulty": "easy", "steps": 2, "computation": "light"}}
That example only shows the format: tag the problem you are given, with its own domains and strategies."""

EXAMPLE_TAG_PROMPT = PromptTemplate.parse(
    "mac_tag_example",
    f"""#! version: 2
### system
You label solved problems with structured reasoning tags for a retrieval index.
{_SCHEMA_HELP}
### user
Problem:
$problem

Verified final answer: $answer

Return the JSON tags.""",
)

QUERY_TAG_PROMPT = PromptTemplate.parse(
    "mac_tag_query",
    f"""#! version: 2
### system
You label problems with structured reasoning tags for a retrieval index.
{_SCHEMA_HELP}
### user
Problem:
$problem

Return the JSON tags.""",
)


class RepresentedText(BaseModel):
    """The text to embed for one item, the tags it came from (if any) and the usage spent."""

    text: str
    tags: Tags | None = None
    usage: Usage = Usage()


class LLMTagger:
    """Generates :class:`Tags` with a chat model, deterministically (temperature 0).

    Args:
        chat: the chat model (any :class:`~memdesk.llm.base.ChatModel`).
        max_tokens: output budget for the JSON tags.
        concurrency: parallel requests for :meth:`tag_examples` (default: the model's own, else 1).
    """

    def __init__(self, chat: ChatModel, *, max_tokens: int = 300, concurrency: int | None = None) -> None:
        self.chat = chat
        self.max_tokens = max_tokens
        self.concurrency = concurrency or int(getattr(chat, "concurrency", 1) or 1)

    @property
    def model_id(self) -> str:
        return self.chat.model_id

    def _request(self, messages: list[ChatMessage]) -> ChatRequest:
        return ChatRequest(messages=messages, schema=Tags, max_tokens=self.max_tokens, temperature=0.0, operation="tag")

    def tag_query(self, question: str) -> RepresentedText:
        """Tags of an evaluation query, from the question alone."""
        req = self._request(QUERY_TAG_PROMPT.render(problem=question))
        c = self.chat.complete(req.messages, schema=Tags, max_tokens=req.max_tokens, temperature=0.0, operation="tag")
        tags = _parsed_tags(c.parsed)
        return RepresentedText(text=tags.to_text(), tags=tags, usage=c.usage)

    def tag_examples(self, items: Sequence[tuple[str, str]]) -> list[RepresentedText | LLMError]:
        """Tags of bank entries from (problem, verified answer) pairs; a failed item holds its error."""
        reqs = [self._request(EXAMPLE_TAG_PROMPT.render(problem=p, answer=a)) for p, a in items]
        out: list[RepresentedText | LLMError] = []
        for c in run_many(self.chat, reqs, concurrency=self.concurrency, return_exceptions=True):
            if isinstance(c, LLMError):
                out.append(c)
                continue
            tags = _parsed_tags(c.parsed)
            out.append(RepresentedText(text=tags.to_text(), tags=tags, usage=c.usage))
        return out


def _parsed_tags(parsed: BaseModel | None) -> Tags:
    if isinstance(parsed, Tags):
        return parsed
    return Tags.model_validate(parsed.model_dump() if parsed is not None else {})


@runtime_checkable
class Representation(Protocol):
    """What a bank entry and a query are embedded as."""

    kind: EmbeddingKind
    model_id: str | None

    def bank_texts(self, items: Sequence[tuple[str, str]]) -> list[RepresentedText | LLMError]:
        """Texts to embed for bank entries given as (problem, verified answer)."""
        ...

    def query_text(self, question: str) -> RepresentedText:
        """The text to embed for a query (the question alone)."""
        ...


class TagRepresentation:
    """MAC proper: embed the LLM tags of the problem (bank side: problem + verified answer)."""

    kind = EmbeddingKind.TAGS

    def __init__(self, tagger: LLMTagger) -> None:
        self.tagger = tagger
        self.model_id: str | None = tagger.model_id

    def bank_texts(self, items: Sequence[tuple[str, str]]) -> list[RepresentedText | LLMError]:
        return self.tagger.tag_examples(items)

    def query_text(self, question: str) -> RepresentedText:
        return self.tagger.tag_query(question)


class ProblemRepresentation:
    """The offline fallback: embed the problem text (bank) and the question text (query); no tags."""

    kind = EmbeddingKind.PROBLEM
    model_id: str | None = None

    def bank_texts(self, items: Sequence[tuple[str, str]]) -> list[RepresentedText | LLMError]:
        return [RepresentedText(text=problem) for problem, _answer in items]

    def query_text(self, question: str) -> RepresentedText:
        return RepresentedText(text=question)


class GivenTags:
    """Tags already made (by the caller, an agent that tagged its own problem, or by a tagger beforehand): embed
    their canonical text, no model call. ``tags`` holds one :class:`Tags` per item, in the order :meth:`bank_texts` is given the items; a
    query uses the first."""

    kind = EmbeddingKind.TAGS

    def __init__(self, tags: Sequence[Tags], *, model_id: str | None = None) -> None:
        self.tags = list(tags)
        self.model_id = model_id  # the chat model that wrote them, if one did

    def bank_texts(self, items: Sequence[tuple[str, str]]) -> list[RepresentedText | LLMError]:
        if len(items) != len(self.tags):
            raise InvalidInputError(f"{len(items)} items but {len(self.tags)} sets of tags")
        return [RepresentedText(text=t.to_text(), tags=t) for t in self.tags]

    def query_text(self, question: str) -> RepresentedText:
        if not self.tags:
            raise InvalidInputError("no tags given for the query")
        return RepresentedText(text=self.tags[0].to_text(), tags=self.tags[0])
