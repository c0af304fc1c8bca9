"""Bad arguments on public paths raise memdesk errors (caught by ``except MemdeskError``), not
builtin ValueError/RuntimeError."""

from __future__ import annotations

import pytest

from memdesk.errors import ConfigError, InvalidInputError, MemdeskError


def test_route_mask_out_of_range() -> None:
    from memdesk.records import RouteMask

    with pytest.raises(InvalidInputError):
        RouteMask.from_bits(8)
    assert RouteMask.from_bits(5) == RouteMask(episodic=True, procedural=True)


def test_unknown_token_encoding() -> None:
    from memdesk.text.tokens import TokenCounter

    with pytest.raises(ConfigError):
        TokenCounter("p50k_nope")


def test_chat_client_and_llm_processor_options() -> None:
    from memdesk.conversation.llm_processor import LLMProcessor
    from memdesk.llm import ScriptedChatModel
    from memdesk.llm.openai_compat import OpenAICompatChatModel

    with pytest.raises(ConfigError):
        OpenAICompatChatModel("m", "http://localhost:1/v1", concurrency=0)
    with pytest.raises(ConfigError):
        LLMProcessor(ScriptedChatModel([]), batch_size=0)


def test_answer_scores_need_a_known_category() -> None:
    from memdesk.eval import metrics as M

    with pytest.raises(MemdeskError):
        M.locomo_f1("x", "y", 7)
