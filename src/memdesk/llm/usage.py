"""Usage accounting: prices per model, token counting when the server reports none, a ledger per operation.

Token counts come from the server's ``usage`` block whenever it sends one. When it does not (some
local servers), :class:`TokenEstimator` counts them: with an injected tokenizer function (the model's
own tokenizer) if given, else with tiktoken (via :class:`memdesk.text.tokens.TokenCounter`, offline) for
OpenAI model names, else with the estimate ``ceil(chars / 4)``. Counts that did not come from the
server are flagged ``Usage.tokens_estimated = True``. Chat formatting adds ``4`` tokens per message
and ``3`` per reply (OpenAI's published accounting); other models differ by a few tokens.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from typing import Callable, Iterable, Mapping

from pydantic import BaseModel, Field

from .base import ChatMessage, Usage

log = logging.getLogger(__name__)

#: The operation names memdesk itself uses; any other string is accepted too.
OPERATIONS: tuple[str, ...] = ("ingest", "search", "answer", "judge", "tag")


class ModelPrice(BaseModel):
    """US dollars per million tokens."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


# OpenAI list prices (USD per 1M tokens) as published in 2025. Prices change: pass your own table.
_OPENAI_2025: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
}


class PriceTable:
    """Prices per model name; a name matches exactly or by its longest listed prefix
    (``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini``). Unlisted models cost 0 (local models)."""

    def __init__(self, prices: Mapping[str, ModelPrice | tuple[float, float]] | None = None) -> None:
        self._prices: dict[str, ModelPrice] = {}
        for name, p in (prices or {}).items():
            self._prices[name] = p if isinstance(p, ModelPrice) else ModelPrice(input_per_mtok=p[0], output_per_mtok=p[1])

    @classmethod
    def openai_list_prices(cls) -> "PriceTable":
        """OpenAI's 2025 list prices for common chat models (a convenience; verify before billing)."""
        return cls(_OPENAI_2025)

    @classmethod
    def free(cls) -> "PriceTable":
        """Every model costs 0 (a local server)."""
        return cls({})

    def price(self, model: str) -> ModelPrice | None:
        """The price of ``model``, or None when it is not listed."""
        name = model.split("/")[-1]
        if name in self._prices:
            return self._prices[name]
        best = max((k for k in self._prices if name.startswith(k)), key=len, default=None)
        return self._prices[best] if best else None

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        """Cost in USD of one call; 0 for unlisted models."""
        p = self.price(model)
        if p is None:
            return 0.0
        return (prompt_tokens * p.input_per_mtok + completion_tokens * p.output_per_mtok) / 1_000_000


_OPENAI_NAME = re.compile(r"^(gpt-|chatgpt-|o\d|text-davinci|davinci|babbage)")
_O200K_NAME = re.compile(r"^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|chatgpt-4o|o\d)")


def is_openai_model(model: str) -> bool:
    """True for OpenAI model names (``gpt-4o-mini``, ``o4-mini``, ``openai/gpt-4.1`` ...)."""
    return bool(_OPENAI_NAME.match(model.split("/")[-1].lower()))


class TokenEstimator:
    """Counts tokens for a model when the server reports none.

    ``count`` (a function text -> tokens, e.g. the model's own tokenizer) wins if given; OpenAI model
    names use tiktoken (``o200k_base`` for the gpt-4o family and later, ``cl100k_base`` before);
    everything else uses ``ceil(chars / 4)``. :attr:`method` says which one is in use.
    """

    PER_MESSAGE = 4
    PER_REPLY = 3

    def __init__(self, model: str, count: Callable[[str], int] | None = None) -> None:
        self.model = model
        self._count = count
        self._lock = threading.Lock()
        if count is not None:
            self.method = "tokenizer"
        elif is_openai_model(model):
            enc = "o200k_base" if _O200K_NAME.match(model.split("/")[-1].lower()) else "cl100k_base"
            self.method = f"tiktoken:{enc}"
        else:
            self.method = "chars/4"

    @staticmethod
    def chars_estimate(text: str) -> int:
        """The documented fallback: one token per four characters, rounded up."""
        return math.ceil(len(text) / 4)

    def _counter(self) -> Callable[[str], int]:
        if self._count is not None:
            return self._count
        if self.method.startswith("tiktoken:"):
            with self._lock:
                if self._count is None:
                    from ..text.tokens import TokenCounter

                    try:
                        counter = TokenCounter(self.method.split(":", 1)[1])
                        counter.count("")
                        self._count = counter.count
                    except Exception as e:  # tiktoken files unavailable: degrade, do not fail the call
                        log.warning("tiktoken unavailable for %s (%s); estimating chars/4", self.model, e)
                        self.method = "chars/4"
                        self._count = self.chars_estimate
            return self._count
        return self.chars_estimate

    def count_text(self, text: str) -> int:
        """Tokens in ``text``."""
        return self._counter()(text) if text else 0

    def count_messages(self, messages: Iterable[ChatMessage]) -> int:
        """Prompt tokens of a chat request, with the per-message formatting overhead."""
        return sum(self.count_text(m.content) + self.PER_MESSAGE for m in messages) + self.PER_REPLY


class UsageLedger:
    """Sums :class:`Usage` per operation (ingest, search, answer, judge, tag ...) and per model.

    Thread-safe; one ledger is usually shared by every model of a run and read by the CLI and the
    evaluation harness.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_op: dict[str, Usage] = {}
        self._by_model: dict[str, Usage] = {}

    def record(self, operation: str, usage: Usage, model: str | None = None) -> None:
        """Add one call's usage under ``operation`` (and ``model`` if given)."""
        with self._lock:
            self._by_op[operation] = self._by_op.get(operation, Usage()) + usage
            if model:
                self._by_model[model] = self._by_model.get(model, Usage()) + usage

    def by_operation(self) -> dict[str, Usage]:
        """A copy of the sums per operation."""
        with self._lock:
            return dict(self._by_op)

    def counters(self) -> dict[str, float]:
        """``llm.<operation>.{calls,prompt_tokens,completion_tokens,latency_s,cost_usd}`` as flat numbers."""
        fields = ("calls", "prompt_tokens", "completion_tokens", "latency_s", "cost_usd")
        return {f"llm.{op}.{f}": float(getattr(u, f)) for op, u in self.by_operation().items() for f in fields}

    def by_model(self) -> dict[str, Usage]:
        """A copy of the sums per model."""
        with self._lock:
            return dict(self._by_model)

    def get(self, operation: str) -> Usage:
        """The sum for one operation (zero if none recorded)."""
        with self._lock:
            return self._by_op.get(operation, Usage())

    def total(self) -> Usage:
        """The sum over every operation."""
        with self._lock:
            return sum(self._by_op.values(), Usage())

    def merge(self, other: "UsageLedger") -> None:
        """Add everything recorded in ``other``."""
        ops, models = other.by_operation(), other.by_model()
        with self._lock:
            for k, u in ops.items():
                self._by_op[k] = self._by_op.get(k, Usage()) + u
            for k, u in models.items():
                self._by_model[k] = self._by_model.get(k, Usage()) + u

    def reset(self) -> None:
        with self._lock:
            self._by_op.clear()
            self._by_model.clear()

    def rows(self) -> list[dict[str, object]]:
        """One row per operation plus a ``total`` row, for CLI and report tables."""
        ops = self.by_operation()
        out: list[dict[str, object]] = []
        for name, u in sorted(ops.items()) + [("total", sum(ops.values(), Usage()))]:
            out.append(
                {
                    "operation": name,
                    "calls": u.calls,
                    "prompt_tokens": u.prompt_tokens,
                    "completion_tokens": u.completion_tokens,
                    "latency_s": round(u.latency_s, 3),
                    "cost_usd": round(u.cost_usd, 6),
                    "tokens_estimated": u.tokens_estimated,
                }
            )
        return out
