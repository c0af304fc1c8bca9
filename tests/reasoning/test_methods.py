"""Prompt assembly: the memory block comes before the query, memories in descending score."""

from __future__ import annotations

import pytest

from memdesk.errors import InvalidInputError
from memdesk.reasoning.methods import (
    MEMORY_HEADER,
    Method,
    PromptSpec,
    build_messages,
    serialize_memories,
)
from memdesk.reasoning.solved_examples import (
    EmbeddingKind,
    MemoryFormat,
    Provenance,
    RetrievedMemory,
    SolvedExample,
    TraceSource,
)


def example(i: int, trace_source: TraceSource = TraceSource.DATASET) -> SolvedExample:
    return SolvedExample(
        id=f"ex:{i}",
        problem=f"Problem number {i}?",
        answer=str(i),
        trace=f"Long solution {i}." if trace_source is not TraceSource.ABSENT else None,
        contents={
            MemoryFormat.LONG: f"Long solution {i}.",
            MemoryFormat.SHORT: f"Short {i}.",
            MemoryFormat.SUMMARY: f"Strategy {i}.",
        },
        source="test",
        split="bank",
        embedding_kind=EmbeddingKind.PROBLEM,
        embedding_text=f"Problem number {i}?",
        embedding_model="hashing-64",
        provenance=Provenance(trace_source=trace_source, verified=trace_source is not TraceSource.ABSENT, verification="test"),
    )


def test_memory_block_precedes_query_and_is_ordered_by_score() -> None:
    # handed over out of order: the block must sort them by descending score
    memories = [
        RetrievedMemory(example=example(1), score=0.2, rank=2),
        RetrievedMemory(example=example(2), score=0.9, rank=0),
        RetrievedMemory(example=example(3), score=0.5, rank=1),
    ]
    block = serialize_memories(memories, MemoryFormat.LONG)
    messages = build_messages(PromptSpec(method=Method.COD), "What is 2+2?", block)
    assert [m.role for m in messages] == ["system", "user"]
    user = messages[1].content
    assert user.index(MEMORY_HEADER) < user.index("Question: What is 2+2?")
    positions = [user.index(f"Problem number {i}?") for i in (2, 3, 1)]
    assert positions == sorted(positions)
    assert user.rstrip().endswith("What is 2+2?")
    assert "5 words at most" in messages[0].content


@pytest.mark.parametrize(
    "fmt,expected,absent",
    [
        (MemoryFormat.LONG, "Solution: Long solution 7.", "Short 7."),
        (MemoryFormat.SHORT, "Key steps: Short 7.", "Long solution 7."),
        (MemoryFormat.SUMMARY, "Strategy: Strategy 7.", "Short 7."),
    ],
)
def test_serialization_uses_only_the_selected_format(fmt: MemoryFormat, expected: str, absent: str) -> None:
    block = serialize_memories([RetrievedMemory(example=example(7), score=1.0, rank=0)], fmt)
    assert expected in block and absent not in block
    assert block.rstrip().endswith("Final answer: \\boxed{7}")  # the answer, in the form the query's must take


def test_answer_only_memory_shows_the_answer() -> None:
    block = serialize_memories([RetrievedMemory(example=example(4, TraceSource.ABSENT), score=1.0, rank=0)], MemoryFormat.LONG)
    assert "Answer: 4" in block and "Long solution" not in block


def test_without_memory_the_user_message_is_the_query() -> None:
    messages = build_messages(PromptSpec(method=Method.COT, answer_instruction="Box it."), "Q?")
    assert messages[1].content == "Question: Q?"
    assert messages[0].content.endswith("Box it.")


def test_tokenskip_appends_the_ratio_after_the_question() -> None:
    spec = PromptSpec(method=Method.TOKENSKIP, gamma=0.5)
    messages = build_messages(spec, "Q?", "MEM")
    assert messages[1].content.endswith("Question: Q?<|eot_id|>0.5<|eot_id|>")
    assert messages[1].content.startswith("MEM")


def test_gamma_is_required_exactly_for_ratio_methods() -> None:
    with pytest.raises(InvalidInputError):
        PromptSpec(method=Method.TOKENSKIP)
    with pytest.raises(InvalidInputError):
        PromptSpec(method=Method.COD, gamma=0.5)
    with pytest.raises(InvalidInputError):
        build_messages(PromptSpec(method=Method.COT), "   ")


def test_missing_format_is_an_error_not_a_silent_fallback() -> None:
    ex = example(1)
    ex.contents.pop(MemoryFormat.SUMMARY)
    with pytest.raises(InvalidInputError):
        ex.content(MemoryFormat.SUMMARY)
