"""What a benchmark item is: :class:`Problem` (a question and its gold answer), the :class:`AnswerKind`
that scores it, and the normalized-text hash that keeps bank and eval sides apart."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field


class AnswerKind(str, Enum):
    """Which final-answer parser and comparison a benchmark uses."""

    NUMBER = "number"  # GSM8K: a number, compared numerically
    MATH = "math"  # MATH: LaTeX expressions, math equivalence
    MULTIPLE_CHOICE = "mc"  # MMLU: a letter A-D
    BBH = "bbh"  # BBH: the target string ('(B)', 'True', 'valid', '3', 'a b c', ') ]')
    INTEGER = "integer"  # AIME: an integer 0-999


class Problem(BaseModel):
    """One benchmark item in plain form: the question as shown to a model and its gold answer."""

    id: str = Field(description="Stable id '<benchmark>:<source id>'.")
    benchmark: str
    question: str = Field(description="Prompt-ready question (multiple-choice options included).")
    answer: str = Field(description="Gold final answer.")
    solution: str | None = Field(default=None, description="The dataset's worked solution, when it has one.")
    group: str | None = Field(default=None, description="Task or subject.")
    split: str
    metadata: dict[str, Any] = Field(default_factory=dict)


def normalize_text(text: str) -> str:
    """Text normalized for overlap checks: NFKC, lower case, all whitespace removed."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def text_hash(text: str) -> str:
    """sha256 of :func:`normalize_text` (hex, first 32 characters)."""
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()[:32]
