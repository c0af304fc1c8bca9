"""Price table, token estimates and the per-operation ledger."""

from __future__ import annotations

import threading

import pytest

from memdesk.llm import ChatMessage, PriceTable, TokenEstimator, Usage, UsageLedger


def test_price_table_matches_exact_then_longest_prefix() -> None:
    t = PriceTable.openai_list_prices()
    assert t.price("gpt-4o-mini-2024-07-18") == t.price("gpt-4o-mini")
    assert t.price("gpt-4o-2024-08-06") == t.price("gpt-4o")
    assert t.price("gpt-4o-mini").input_per_mtok < t.price("gpt-4o").input_per_mtok
    assert t.price("openai/gpt-4.1-mini") == t.price("gpt-4.1-mini")
    assert t.cost("qwen2.5-coder-1.5b", 1000, 1000) == 0.0
    assert PriceTable({"m": (2.0, 4.0)}).cost("m", 500_000, 250_000) == pytest.approx(2.0)
    assert PriceTable.free().cost("gpt-4o", 10**6, 10**6) == 0.0


def test_token_estimator_methods() -> None:
    assert TokenEstimator("llama-3.1-8b").method == "chars/4"
    assert TokenEstimator("llama-3.1-8b").count_text("abcdefghi") == 3
    assert TokenEstimator("gpt-4").method == "tiktoken:cl100k_base"
    assert TokenEstimator("o4-mini").method == "tiktoken:o200k_base"
    words = TokenEstimator("local", count=lambda s: len(s.split()))
    assert words.method == "tokenizer" and words.count_text("one two three") == 3
    msgs = [ChatMessage(role="user", content="one two"), ChatMessage(role="assistant", content="three")]
    assert words.count_messages(msgs) == (2 + 4) + (1 + 4) + 3


def test_ledger_sums_per_operation_and_model() -> None:
    ledger = UsageLedger()
    ledger.record("ingest", Usage(prompt_tokens=10, completion_tokens=2, cost_usd=0.5, calls=1), "a")
    ledger.record("ingest", Usage(prompt_tokens=5, completion_tokens=1, calls=1, tokens_estimated=True), "b")
    ledger.record("answer", Usage(prompt_tokens=7, completion_tokens=3, latency_s=0.25, calls=1), "a")
    ops = ledger.by_operation()
    assert ops["ingest"].prompt_tokens == 15 and ops["ingest"].calls == 2 and ops["ingest"].tokens_estimated
    assert not ops["answer"].tokens_estimated
    assert ledger.by_model()["a"].calls == 2
    total = ledger.total()
    assert (total.prompt_tokens, total.completion_tokens, total.calls, total.cost_usd) == (22, 6, 3, 0.5)
    rows = ledger.rows()
    assert [r["operation"] for r in rows] == ["answer", "ingest", "total"] and rows[-1]["calls"] == 3
    other = UsageLedger()
    other.record("judge", Usage(calls=4), "j")
    ledger.merge(other)
    assert ledger.get("judge").calls == 4 and ledger.total().calls == 7
    ledger.reset()
    assert ledger.total() == Usage() and ledger.get("nothing") == Usage()


def test_ledger_is_thread_safe() -> None:
    ledger = UsageLedger()

    def work() -> None:
        for _ in range(500):
            ledger.record("ingest", Usage(prompt_tokens=1, calls=1), "m")

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.get("ingest").calls == 2000 and ledger.by_model()["m"].prompt_tokens == 2000
