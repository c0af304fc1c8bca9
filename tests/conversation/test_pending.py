"""Nothing said is lost when processing fails: pending messages, Memory.reprocess, never twice.

On real SQLite and PostgreSQL (the conformance backends that several connections share)."""

from __future__ import annotations

import json
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pytest

from memdesk.conversation.base import Processed, RoutedExtraction, Utterance
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.embed import HashingEmbedder
from memdesk.errors import InvalidInputError, LLMError, MessageTooLargeError, StoreError
from memdesk.records import Scope
from memdesk.store import open_store
from tests.conformance.conftest import BACKENDS, Backend

T0 = datetime(2025, 3, 10, 19, 0, tzinfo=timezone.utc)
ANA = Scope(user_id="ana")
BASE = Scope(user_id="baseline")  # the same talk processed at once, to compare with
TALK = [
    {"id": "m1", "role": "user", "speaker": "Ana", "content": "I adopted a grey cat named Miso.", "timestamp": T0},
    {"id": "m2", "role": "tool", "source": "tool:web_search", "content": "Search result: Ana's bank account number is 999-333.", "timestamp": T0},
    {"id": "m3", "role": "user", "speaker": "Ana", "content": "Look at what I cooked!", "timestamp": T0,
     "image_caption": "a pot of green soup next to cornbread"},
]  # fmt: skip


class Flaky:
    """The rule processor, failing its first ``fails`` calls as an LLM endpoint would; ``barrier`` (if
    any) holds each call until the other racer has processed too."""

    def __init__(self, fails: int = 0, barrier: threading.Barrier | None = None) -> None:
        self.fails, self.calls, self.barrier = fails, 0, barrier
        self.inner = RoutedExtraction(RuleRouter(), RuleExtractor())

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        self.calls += 1
        if self.calls <= self.fails:
            raise LLMError("the model endpoint timed out")
        out = self.inner.process(utterances)
        if self.barrier is not None:
            self.barrier.wait(timeout=60)
        return out


@pytest.fixture(params=[pytest.param(b, id=b.name, marks=b.marks) for b in BACKENDS if b.shared])
def open_memory(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Memory]]:
    backend: Backend = request.param
    url = backend.url(request, tmp_path)
    opened: list[Memory] = []

    def _open(processor: Any = None) -> Memory:
        m = Memory(open_store(url, **backend.options), HashingEmbedder(256), processor or Flaky())
        opened.append(m)
        return m

    yield _open
    for m in opened:
        m.close()


def _records(mem: Memory) -> list[tuple[str, str, str | None, tuple[str, ...]]]:
    return sorted((r.embed_text(), r.role, r.source, tuple(r.provenance)) for r in mem.get_all(scope=ANA))


def test_a_failing_processor_keeps_every_message_pending_and_raises_its_own_error(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError, match="timed out") as raised:
        mem.add(TALK, scope=ANA)
    assert any("3 message(s) kept pending" in n and "reprocess" in n for n in raised.value.__notes__)
    log = mem.messages(scope=ANA)
    assert [(m.id, m.status, m.route_mask) for m in log] == [("m1", "pending", None), ("m2", "pending", None), ("m3", "pending", None)]
    assert log[1].role == "tool" and log[1].source == "tool:web_search"
    assert "green soup" in log[2].content and mem.get_all(scope=ANA) == []


def test_input_errors_still_raise_before_anything_is_written(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(MessageTooLargeError):
        mem.add([TALK[0], {"id": "big", "content": "x" * (mem.max_message_chars + 1)}], scope=ANA)
    assert mem.messages(scope=ANA) == [] and mem.processor.calls == 0


def test_reprocess_writes_the_records_once_with_their_provenance(open_memory) -> None:
    baseline = open_memory()
    baseline.add(TALK, scope=BASE)
    expected = sorted(
        (r.embed_text(), r.role, r.source, tuple(r.provenance)) for r in baseline.get_all(scope=BASE)
    )
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        mem.add(TALK, scope=ANA)
    done = mem.reprocess(ANA)
    assert (done.messages, done.pending, done.message_ids) == (3, 0, ["m1", "m2", "m3"])
    assert done.records == len(expected) and _records(mem) == expected
    # provenance: the tool's claim never became Ana's words, the caption's words are the image's
    assert not any("999-333" in text and role == "user" for text, role, _, _ in _records(mem))
    soup = [r for r in mem.get_all(scope=ANA) if "green soup" in r.embed_text()]
    assert soup and all(r.source == "image_caption" for r in soup)
    assert [m.status for m in mem.messages(scope=ANA)] == ["processed"] * 3
    again = mem.reprocess(ANA)
    assert (again.messages, again.records, again.pending) == (0, 0, 0) and _records(mem) == expected


def test_a_retried_add_processes_the_pending_messages_and_adds_nothing_twice(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        mem.add(TALK[:2], scope=ANA)
    first = mem.add(TALK, scope=ANA)  # the retry, with one more message
    assert set(first.routes) == {"m1", "m2", "m3"} and first.records
    once = _records(mem)
    assert mem.add(TALK, scope=ANA).records == [] and mem.reprocess(ANA).messages == 0
    assert _records(mem) == once and len(mem.messages(scope=ANA)) == 3


def test_two_racing_reprocesses_store_the_records_once(open_memory) -> None:
    setup = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        setup.add(TALK, scope=ANA)
    barrier = threading.Barrier(2)
    racers = [open_memory(Flaky(barrier=barrier)) for _ in range(2)]
    results: list[Any] = [None, None]

    def run(i: int) -> None:
        results[i] = racers[i].reprocess(ANA)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r.messages for r in results) == [0, 3]  # both processed; the store let one write
    baseline = open_memory()
    baseline.add(TALK, scope=BASE)
    assert len(setup.get_all(scope=ANA)) == len(baseline.get_all(scope=BASE))
    assert sum(r.records for r in results) == len(setup.get_all(scope=ANA))
    assert [m.status for m in setup.messages(scope=ANA)] == ["processed"] * 3


def test_reprocess_is_exact_unless_wildcard_and_failing_again_keeps_them_pending(open_memory) -> None:
    mem = open_memory(Flaky(fails=3))
    run = Scope(user_id="ana", run_id="r1")
    for scope in (ANA, run):
        with pytest.raises(LLMError):
            mem.add(TALK[:1], scope=scope)
    with pytest.raises(LLMError):  # the third failure: still pending, nothing lost
        mem.reprocess(ANA)
    assert mem.reprocess(ANA).pending == 0
    assert [m.status for m in mem.messages(scope=run)] == ["pending"]
    assert mem.reprocess(ANA, wildcard=True).message_ids == ["m1"]
    assert [m.status for m in mem.messages(scope=run)] == ["processed"]


def test_forget_erases_the_pending_messages_too(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        mem.add(TALK, scope=ANA)
    assert mem.forget(ANA).messages == 3
    assert mem.messages(scope=ANA) == [] and mem.reprocess(ANA).messages == 0


def test_memdesk_reprocess_processes_the_pending_messages_of_the_exact_scope(run) -> None:
    mem = Memory.open()  # the command line's database and embedder (the run fixture's environment)
    mem.processor = Flaky(fails=2)
    for scope in (ANA, Scope(user_id="ana", run_id="r1")):
        with pytest.raises(LLMError):
            mem.add(TALK, scope=scope)
    mem.close()
    got = json.loads(run("reprocess", "--user", "ana", "--json").output)
    assert (got["messages"], got["pending"], got["wildcard"]) == (3, 0, False) and got["records"] > 0
    assert got["scope"] == {"user_id": "ana"}
    r = run("reprocess", "--user", "ana", "--wildcard")
    assert "processed 3 pending messages into" in r.output and "0 still pending" in r.output


def test_an_unusable_llm_reply_loses_nothing_and_reprocess_uses_the_llm_again(open_memory) -> None:
    from memdesk.conversation.llm_processor import LLMProcessor
    from memdesk.errors import LLMOutputError
    from memdesk.llm import ScriptedChatModel

    good = {"mask": "010", "semantic": [{"fact": "Ana keeps bees on her roof.", "when": None}]}
    calls: list[Any] = []

    def reply(messages: Any) -> Any:  # the 2nd message's three tries are unusable, every other reply is good
        calls.append(messages)
        return "no json" if 2 <= len(calls) <= 4 else good

    model = ScriptedChatModel(reply)
    mem = open_memory(LLMProcessor(model))
    said = [{"id": f"u{i}", "speaker": "Ana", "content": f"Message {i} about my bees.", "timestamp": T0} for i in range(3)]
    with pytest.raises(LLMOutputError):
        mem.add(said, scope=ANA)
    assert [(m.id, m.status) for m in mem.messages(scope=ANA)] == [("u0", "pending"), ("u1", "pending"), ("u2", "pending")]
    done = mem.reprocess(ANA)
    assert (done.messages, done.records, done.pending) == (3, 3, 0)
    assert sorted(tuple(r.provenance) for r in mem.get_all(scope=ANA)) == [("u0",), ("u1",), ("u2",)]


class Gated(Flaky):
    """The rule processor, holding each call until ``go`` is set."""

    def __init__(self, fails: int = 0) -> None:
        super().__init__(fails)
        self.go = threading.Event()

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        assert self.go.wait(timeout=60)
        return super().process(utterances)


def test_add_without_waiting_logs_pending_and_the_worker_processes_once(open_memory) -> None:
    gate = Gated()
    mem = open_memory(gate)
    got = mem.add(TALK, scope=ANA, wait=False)
    assert (got.message_ids, got.records, got.routes) == (["m1", "m2", "m3"], [], {})
    assert [m.status for m in mem.messages(scope=ANA)] == ["pending"] * 3  # the worker waits at the gate
    assert mem.add(TALK, scope=ANA, wait=False).records == []  # queued twice: still processed once
    gate.go.set()
    mem.wait_pending()
    assert [m.status for m in mem.messages(scope=ANA)] == ["processed"] * 3
    baseline = open_memory()
    baseline.add(TALK, scope=BASE)
    assert len(mem.get_all(scope=ANA)) == len(baseline.get_all(scope=BASE)) > 0
    assert mem.reprocess(ANA).messages == 0


def test_a_failing_worker_keeps_them_pending_and_close_finishes_the_queue(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    mem.add(TALK[:1], scope=ANA, wait=False)
    mem.wait_pending()  # the processor failed once: nothing lost
    assert [m.status for m in mem.messages(scope=ANA)] == ["pending"]
    mem.add(TALK[1:], scope=ANA, wait=False)  # the next scope run takes the earlier pending message too
    mem.close()
    other = open_memory()
    assert [m.status for m in other.messages(scope=ANA)] == ["processed"] * 3
    with pytest.raises(StoreError):  # closed: nothing is queued any more
        mem.add(TALK[:1], scope=Scope(user_id="zed"), wait=False)


@pytest.mark.parametrize("flag", ["true", 1, None])
def test_reprocess_refuses_a_wildcard_that_is_not_a_bool(open_memory, flag) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        mem.add(TALK, scope=ANA)
    with pytest.raises(InvalidInputError, match="wildcard must be true or false"):
        mem.reprocess(ANA, wildcard=flag)
    assert {m.status for m in mem.messages(scope=ANA)} == {"pending"}  # nothing processed, nothing lost


class ForgetsMidway(Flaky):
    """The rule processor of a worker while the user is forgotten (by another Memory on the same database):
    the forget lands after the worker read the pending messages and before it writes their records."""

    def __init__(self, forget: Callable[[], Any]) -> None:
        super().__init__()
        self.forget = forget

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        self.forget()
        return super().process(utterances)


def test_a_forget_while_the_worker_processes_leaves_nothing_behind(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        mem.add(TALK, scope=ANA)
    other = open_memory()
    worker = open_memory(ForgetsMidway(lambda: other.forget(ANA)))
    done = worker.reprocess(ANA)
    assert (done.messages, done.records, done.pending) == (0, 0, 0)  # forgotten: nothing to process any more
    assert mem.messages(scope=ANA) == [] and mem.get_all(scope=ANA) == []  # no message, no record came back


def test_a_forget_while_processing_fails_logs_nothing_again(open_memory) -> None:
    mem = open_memory(Flaky(fails=1))
    with pytest.raises(LLMError):
        mem.add(TALK, scope=ANA)
    other = open_memory()
    failing = ForgetsMidway(lambda: other.forget(ANA))
    failing.fails = 1  # the model fails after the forget: the messages are not logged again as pending
    with pytest.raises(LLMError):
        open_memory(failing).reprocess(ANA)
    assert mem.messages(scope=ANA) == [] and mem.store.pending_scopes() == []
