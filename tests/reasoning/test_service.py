"""ReasoningBanks in process, on SQLite and PostgreSQL: what its calls refuse, how owners and agents are kept apart,
and what forget takes.
(Over HTTP, MCP and RemoteMemory: tests/server/test_banks.py; the tenants' isolation: tests/trust.)"""

from __future__ import annotations

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import InvalidInputError, InvalidScopeError, NoChatModelError, UnknownBankError
from memdesk.llm import ScriptedChatModel
from memdesk.reasoning import BankBuilder, GivenTags, ReasoningBanks, Tags, TraceSource
from memdesk.reasoning.datasets import AnswerKind, Problem
from memdesk.records import Scope
from memdesk.store import open_store

ANA, TUTOR = Scope(user_id="ana"), Scope(user_id="ana", agent_id="tutor")
PEN = {"problem": "A pen costs $2. How much do 3 pens cost?", "answer": "6", "solution": "3 * 2 = 6. \\boxed{6}"}


@pytest.fixture
def memory(backend_url):
    m = Memory(open_store(backend_url), HashingEmbedder(64), RawTurnProcessor())
    yield m
    m.close()


@pytest.fixture
def banks(memory):
    return ReasoningBanks(memory.store, memory.embedder, chat=ScriptedChatModel(lambda messages: "\\boxed{6}"))


def test_calls_refuse_what_they_cannot_do_and_change_nothing(banks):
    banks.add_examples("arith", [PEN], scope=ANA)
    with pytest.raises(InvalidScopeError):
        banks.add_examples("arith", [PEN], scope=Scope(user_id="ana", run_id="r1"))  # a bank belongs to no run
    for name in ("", "a/b", "a::b", "x" * 129, "-lead"):
        with pytest.raises(InvalidInputError):
            banks.retrieve_examples(name, "pens?", scope=ANA)
    for bad in ({"k": 0}, {"k": 51}, {"format": "tiny"}):
        with pytest.raises(InvalidInputError):
            banks.retrieve_examples("arith", "pens?", scope=ANA, **bad)
    for bad in ({"method": "magic"}, {"method": "tokenskip"}, {"method": "cot", "gamma": 0.5}, {"max_tokens": 1}):
        with pytest.raises(InvalidInputError):
            banks.solve("arith", "pens?", scope=ANA, **bad)
    with pytest.raises(InvalidInputError):
        banks.add_examples("arith", [PEN, PEN], scope=ANA)  # the same problem twice: the same id
    with pytest.raises(InvalidInputError):
        banks.add_examples("arith", [PEN], scope=ANA, answer_kind="number")  # the bank checks math answers
    with pytest.raises(InvalidInputError):
        banks.add_examples("arith", [], scope=ANA)
    with pytest.raises(InvalidInputError):
        banks.add_examples("arith", [{**PEN, "id": "x/y"}], scope=ANA)
    assert [(b.name, b.entries) for b in banks.list_banks(scope=ANA)] == [("arith", 1)]
    assert banks.solve("arith", "4 pens?", scope=ANA, method="tokenskip", gamma=0.5).answer == "6"


def test_agents_have_banks_of_their_own_and_forget_takes_them_exactly_or_by_wildcard(memory, banks):
    banks.add_examples("arith", [PEN], scope=ANA)
    banks.add_examples("arith", [PEN, {**PEN, "problem": "Two pens?", "solution": "\\boxed{6}"}], scope=TUTOR)
    assert [(b.agent_id, b.entries) for b in banks.list_banks(scope=ANA)] == [(None, 1), ("tutor", 2)]
    assert [b.agent_id for b in banks.list_banks(scope=TUTOR)] == ["tutor"]
    assert len(banks.retrieve_examples("arith", "pens?", scope=TUTOR, k=5).examples) == 2
    assert memory.forget(ANA).banks == 1  # the exact scope: ana's own bank, not her agent's
    assert [b.agent_id for b in banks.list_banks(scope=ANA)] == ["tutor"]
    with pytest.raises(UnknownBankError):
        banks.retrieve_examples("arith", "pens?", scope=ANA)
    assert memory.forget(ANA, wildcard=True).banks == 1
    assert banks.list_banks(scope=ANA) == []


def test_a_tag_bank_takes_given_tags_or_the_models_and_no_model_means_no_tags(memory):
    tags = Tags.model_validate({
        "knowledge_domains": ["arithmetic"], "solution_strategies": ["unit rate"], "problem_type": "word problem",
        "problem_context": "shopping", "complexity": {"difficulty": "easy", "steps": 2, "computation": "light"},
    })  # fmt: skip
    tagger = ScriptedChatModel(lambda messages: tags.model_dump_json(), model_id="tagger")
    banks = ReasoningBanks(memory.store, memory.embedder, chat=tagger)
    banks.add_examples("tagged", [PEN | {"tags": tags}], scope=ANA)
    banks.add_examples("tagged", [{**PEN, "problem": "Two pens?", "solution": "\\boxed{6}"}], scope=ANA)  # tagged by the model
    got = banks.retrieve_examples("tagged", "pens?", scope=ANA, k=2)  # the query tagged by the model too
    assert got.query_tags == tags and [e.tags for e in got.examples] == [tags, tags]
    offline = ReasoningBanks(memory.store, memory.embedder)
    with pytest.raises(NoChatModelError):
        offline.retrieve_examples("tagged", "pens?", scope=ANA)
    with pytest.raises(NoChatModelError):
        offline.solve("tagged", "pens?", scope=ANA, tags=tags)
    assert offline.retrieve_examples("tagged", "pens?", scope=ANA, tags=tags).examples
    with pytest.raises(InvalidInputError):
        GivenTags([tags]).bank_texts([("a", "1"), ("b", "2")])


def test_the_builder_checks_submitted_solutions_like_generated_traces(memory):
    builder = BankBuilder(memory.store, memory.embedder, answer_kind=AnswerKind.NUMBER, solutions="checked")
    problems = [
        Problem(id="ok", benchmark="agent", question="3 pens at $2?", answer="6", solution="3*2 = 6", split="submitted"),
        Problem(id="wrong", benchmark="agent", question="4 pens at $2?", answer="8", solution="4*2 = 9", split="submitted"),
    ]
    report = builder.build("checked", "custom", problems, [])
    assert (report.added, report.rejected) == (1, 1)
    from memdesk.reasoning import MemoryBank

    bank = MemoryBank(memory.store, "checked")
    (example,) = bank.all()
    assert example.provenance.trace_source is TraceSource.SUBMITTED and "matched '6'" in example.provenance.verification
    assert bank.rejected_ids() == {"wrong"} and bank.manifest().answer_kind is AnswerKind.NUMBER
    with pytest.raises(InvalidInputError):
        BankBuilder(memory.store, memory.embedder, solutions="trusted")  # type: ignore[arg-type]


def test_a_banks_examples_are_listed_a_page_at_a_time_for_their_owner_only(banks):
    problems = [f"A box holds {n} pens. How many pens are in 2 boxes?" for n in range(1, 6)]
    banks.add_examples("arith", [{"problem": p, "answer": str(2 * n), "solution": f"2 * {n} = {2 * n}. \\boxed{{{2 * n}}}"}
                                 for n, p in enumerate(problems, 1)], scope=ANA)
    banks.add_examples("arith", [PEN], scope=Scope(user_id="bob"))
    first = banks.list_examples("arith", scope=ANA, limit=2)
    assert first.total == 5 and first.offset == 0 and [e.problem for e in first.examples] == problems[:2]
    assert first.bank.name == "arith" and first.bank.user_id == "ana" and first.bank.entries == 5
    assert [e.problem for e in banks.list_examples("arith", scope=ANA, offset=4, limit=2).examples] == problems[4:]
    assert banks.list_examples("arith", scope=ANA, offset=9).examples == []
    for bad in ({"offset": -1}, {"limit": 0}, {"limit": 501}, {"offset": True}):
        with pytest.raises(InvalidInputError):
            banks.list_examples("arith", scope=ANA, **bad)
    for owner in (TUTOR, Scope(user_id="carl")):  # exactly the owner's bank: not an agent's, not another user's
        with pytest.raises(UnknownBankError):
            banks.list_examples("arith", scope=owner)
    assert [e.problem for e in banks.list_examples("arith", scope=Scope(user_id="bob")).examples] == [PEN["problem"]]
    assert [(b.name, b.user_id) for b in banks.all_banks()] == [("arith", "ana"), ("arith", "bob")]
