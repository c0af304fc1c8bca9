"""The JSON the LLM processor's model returns (:mod:`memdesk.conversation.llm_processor`): one utterance's
route mask and typed records, or one item per message of a batch; each semantic fact with its decision
against the known facts (:mod:`memdesk.conversation.decisions`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from .decisions import Decision, lower

__all__ = [
    "MAX_ITEMS_PER_TYPE", "BatchExtraction", "BatchItem", "EpisodicItem", "ProceduralItem", "SemanticItem",
    "UtteranceExtraction",
]  # fmt: skip

MAX_ITEMS_PER_TYPE = 5


class EpisodicItem(BaseModel):
    title: str = Field(max_length=100, description="At most 8 words.")
    summary: str = Field(min_length=1, max_length=400, description="One sentence naming the people.")
    when: str | None = Field(default=None, max_length=40, description="YYYY-MM-DD, YYYY-MM or YYYY; null if unknown.")


class SemanticItem(BaseModel):
    fact: str = Field(min_length=1, max_length=300, description="One sentence naming the person.")
    when: str | None = Field(default=None, max_length=40)
    decision: Decision = Field(default="add", description="add: new; update: replaces known fact 'replaces'; noop: already known.")
    replaces: str | None = Field(default=None, max_length=64, description="For update: the known fact's id (f1, f2...).")

    _decision = field_validator("decision", mode="before")(lower)


class ProceduralItem(BaseModel):
    title: str = Field(max_length=100)
    content: str = Field(min_length=1, max_length=600, description="The instruction or steps.")
    when: str | None = Field(default=None, max_length=40)


def _normalize_mask(v: Any) -> Any:
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 111:
        return str(v).zfill(3)
    if isinstance(v, str):
        digits = "".join(c for c in v if c in "01")
        return digits if len(digits) == 3 else v
    return v


class UtteranceExtraction(BaseModel):
    """One utterance's route mask and typed records, as the model returns them."""

    mask: str = Field(pattern=r"^[01]{3}$", description="episodic, semantic, procedural bits, e.g. '110'.")
    episodic: list[EpisodicItem] = Field(default_factory=list, max_length=MAX_ITEMS_PER_TYPE)
    semantic: list[SemanticItem] = Field(default_factory=list, max_length=MAX_ITEMS_PER_TYPE)
    procedural: list[ProceduralItem] = Field(default_factory=list, max_length=MAX_ITEMS_PER_TYPE)

    _mask = field_validator("mask", mode="before")(_normalize_mask)


class BatchItem(BaseModel):
    """One message's result inside a batched reply."""

    id: str = Field(max_length=12)
    mask: str = Field(pattern=r"^[01]{3}$")
    episodic: list[EpisodicItem] = Field(default_factory=list, max_length=MAX_ITEMS_PER_TYPE)
    semantic: list[SemanticItem] = Field(default_factory=list, max_length=MAX_ITEMS_PER_TYPE)
    procedural: list[ProceduralItem] = Field(default_factory=list, max_length=MAX_ITEMS_PER_TYPE)

    _mask = field_validator("mask", mode="before")(_normalize_mask)


class BatchExtraction(BaseModel):
    items: list[BatchItem]
