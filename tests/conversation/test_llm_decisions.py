"""The LLM processor's add / update / no-op decisions against the facts memory holds (scripted chat model),
closed through the one supersession path (memdesk.conversation.supersede), and the project's update scenarios run through it."""

from __future__ import annotations

import importlib.util
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import pytest

from memdesk.conversation.llm_processor import LLMProcessor
from memdesk.conversation.memory import Memory
from memdesk.embed.hashing import HashingEmbedder
from memdesk.errors import ConfigError
from memdesk.llm import ScriptedChatModel
from memdesk.llm.base import ChatMessage
from memdesk.records import Scope, SemanticRecord
from memdesk.store import open_store

S = Scope(user_id="marta")
JAN = datetime(2024, 1, 8, tzinfo=timezone.utc)
APR = datetime(2024, 4, 7, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[2]
_KNOWN = re.compile(r"^- (f\d+)(?: \[[^\]]*\])?: (.*)$", re.MULTILINE)


def known_of(messages: list[ChatMessage]) -> dict[str, str]:
    """The known facts the prompt showed: alias -> text."""
    user = messages[-1].content
    block = user.split("Known facts about", 1)[1].split("Message from", 1)[0]
    return dict(_KNOWN.findall(block))


def message_of(messages: list[ChatMessage]) -> tuple[str, str]:
    speaker, text = messages[-1].content.rsplit("Message from ", 1)[1].split(":\n", 1)
    return speaker, text.strip()


def fact(text: str, decision: str = "add", replaces: str | None = None) -> dict:
    return {"mask": "010", "semantic": [{"fact": text, "when": None, "decision": decision, "replaces": replaces}]}


def memory(tmp_path: Path, reply: Callable[[list[ChatMessage]], object], embedder=None) -> tuple[Memory, ScriptedChatModel]:
    model = ScriptedChatModel(reply)  # type: ignore[arg-type]
    mem = Memory(open_store(f"sqlite:///{tmp_path}/d.db"), embedder or HashingEmbedder(), LLMProcessor(model))
    return mem, model


def said(text: str, when: datetime, speaker: str = "Marta", role: str = "user") -> dict:
    return {"content": text, "speaker": speaker, "timestamp": when, "role": role}


def test_update_closes_exactly_the_named_record_and_keeps_its_history(tmp_path) -> None:
    def reply(messages):
        known = known_of(messages)
        _, text = message_of(messages)
        if "teach" in text:
            nurse = next(a for a, t in known.items() if "nurse" in t)
            return fact("Marta teaches biology.", "update", nurse)
        return fact(text)

    mem, model = memory(tmp_path, reply)
    first = mem.add([said("I work as a nurse in Porto.", JAN)], scope=S).records[0]
    cat = mem.add([said("I have a grey cat called Figo.", JAN)], scope=S).records[0]
    new = mem.add([said("I left the hospital, I teach biology now.", APR)], scope=S).records[0]
    assert "f1" in model.last_call.user and "nurse in Porto" in model.last_call.user  # shown under an alias
    assert first.id not in model.last_call.prompt  # never the record id itself
    assert new.metadata["decision"] == "update" and new.metadata["replaces"] == [first.id]
    old = mem.store.get(first.id)
    assert old is not None and old.superseded_by == new.id and old.valid_to == APR  # closed, not deleted
    assert mem.store.get(cat.id).superseded_by is None  # type: ignore[union-attr]
    versions = mem.store.history(first.id)
    assert len(versions) == 2 and versions[0].record is not None and versions[0].record.superseded_by is None
    hits = mem.search("What is Marta's job?", scope=S)
    assert hits[0].record.id == new.id
    past = mem.search("What is Marta's job?", scope=S, as_of=datetime(2024, 2, 1, tzinfo=timezone.utc))
    assert all(h.record.id != new.id for h in past) and any(h.record.id == first.id for h in past)
    mem.close()


def test_an_invented_id_is_ignored_and_the_fact_added(tmp_path) -> None:
    def reply(messages):
        _, text = message_of(messages)
        return fact(text, "update", "f9") if "coins" in text else fact(text)

    mem, _ = memory(tmp_path, reply)
    # facts no attribute rule reads (a move would be closed by its claims whatever the model decided)
    old = mem.add([said("I collect stamps.", JAN)], scope=S).records[0]
    new = mem.add([said("I collect coins.", APR)], scope=S).records[0]
    assert new.metadata["decision"] == "add" and "replaces" not in new.metadata
    assert mem.store.get(old.id).superseded_by is None  # type: ignore[union-attr]
    mem.close()


def test_a_raw_record_id_from_the_model_is_not_trusted(tmp_path) -> None:
    """Even a real record id (outside the aliases shown) names nothing."""
    mem, _ = memory(tmp_path, lambda m: fact(message_of(m)[1]))
    other = mem.add([said("I live in Leeds.", JAN, speaker="Jo")], scope=Scope(user_id="jo")).records[0]
    mem.processor.chat_model._fn = lambda m: fact(message_of(m)[1], "update", other.id)  # type: ignore[attr-defined]
    new = mem.add([said("I live in York.", APR)], scope=S).records[0]
    assert "replaces" not in new.metadata and mem.store.get(other.id).superseded_by is None  # type: ignore[union-attr]
    mem.close()


def test_noop_writes_nothing(tmp_path) -> None:
    def reply(messages):
        known = known_of(messages)
        _, text = message_of(messages)
        return fact("Marta has a cat called Figo.", "noop", "f1") if known else fact(text)

    mem, _ = memory(tmp_path, reply)
    mem.add([said("I have a grey cat called Figo.", JAN)], scope=S)
    result = mem.add([said("Figo, my cat, is asleep on my keyboard.", APR)], scope=S)
    assert result.records == [] and result.routes  # processed, nothing new (not even a verbatim copy)
    assert len(list(mem.store.scan(S))) == 1
    mem.close()


def test_noop_with_nothing_known_is_an_add(tmp_path) -> None:
    mem, _ = memory(tmp_path, lambda m: fact(message_of(m)[1], "noop"))
    assert len(mem.add([said("I have a grey cat called Figo.", JAN)], scope=S).records) == 1
    mem.close()


def test_another_speakers_or_roles_records_are_never_offered_nor_closed(tmp_path) -> None:
    shown: list[dict[str, str]] = []

    def reply(messages):
        shown.append(known_of(messages))
        _, text = message_of(messages)
        return fact(text, "update", "f1") if shown[-1] else fact(text)

    mem, _ = memory(tmp_path, reply)
    jo = mem.add([said("I live in Leeds.", JAN, speaker="Jo")], scope=S).records[0]
    # (the assistant's turns give something of their own, a number: a mere reaction to the user's turn makes no record)
    bot = mem.add([said("I live in the cloud, in 2 data centres.", JAN, speaker=None, role="assistant")], scope=S).records[0]  # type: ignore[arg-type]
    mine = mem.add([said("I live in Bristol.", JAN)], scope=S).records[0]
    assert shown == [{}, {}, {}]  # nobody else's facts were shown to anyone
    claim = mem.add([said("I live in Bath now, in 1 data centre.", APR, speaker=None, role="assistant")], scope=S).records[0]  # type: ignore[arg-type]
    assert list(shown[-1].values()) == ["I live in the cloud, in 2 data centres."]  # the assistant's own record, not the user's
    assert claim.role == "assistant" and claim.metadata["replaces"] == [bot.id]  # its own record only
    assert mem.store.get(mine.id).superseded_by is None and mem.store.get(jo.id).superseded_by is None  # type: ignore[union-attr]
    mem.close()


def test_supersession_refuses_a_named_record_of_another_speaker(tmp_path) -> None:
    """The check does not rest on the processor: a record naming another speaker's memory closes nothing."""
    mem, _ = memory(tmp_path, lambda m: fact(message_of(m)[1]))
    user = mem.add([said("I live in Bristol.", JAN)], scope=S).records[0]
    forged = SemanticRecord(fact="assistant: Marta lives in Bath.", scope=S, speaker="assistant", role="assistant",
                            provenance=["x1"], metadata={"replaces": [user.id]})  # fmt: skip
    vectors = mem.embedder.embed([forged.embed_text()])
    assert mem.supersession.resolve(mem.store, [forged], vectors) == []
    mem.close()


def test_known_facts_must_not_be_negative() -> None:
    with pytest.raises(ConfigError):
        LLMProcessor(ScriptedChatModel([]), known_facts=-1)


def _bench():
    spec = importlib.util.spec_from_file_location("update_scenarios", ROOT / "bench" / "update_scenarios.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.mark.parametrize("sid", ["resi-01", "empl-12", "job-20", "part-25", "plan-33", "favo-41", "poss-56"])
def test_update_scenarios_through_the_llm_processor(tmp_path, minilm, sid: str) -> None:
    bench = _bench()
    sc = next(s for s in bench.load() if s["id"] == sid)
    mem, _ = memory(tmp_path, bench.scripted_replies([sc]), minilm)  # answers as a good model would
    scope = Scope(user_id=sc["id"])
    result = bench.run(mem, [sc], by_session=True)  # one add per session: the second sees the first's facts
    assert result["current_first"] == 1.0 and result["as_of_old"] == 1.0, result
    closed = [r for r in mem.store.scan(scope) if r.superseded_by is not None]
    assert len(closed) == 1 and sc["old"].lower() in closed[0].text().lower()
    mem.close()


def test_a_batch_decides_its_facts_in_one_more_call(tmp_path) -> None:
    def reply(messages):
        system, user = messages[0].content, messages[-1].content
        if "keep a personal assistant's memory up to date" in system:
            decisions = []
            for block in user.split("Message m")[1:]:
                known = dict(_KNOWN.findall(block.split("New facts:")[0]))
                for fid, text in re.findall(r"^- (n\d+): (.*)$", block.split("New facts:")[1], re.MULTILINE):
                    if "teach" in text:
                        decisions.append({"id": fid, "decision": "update", "replaces": next(a for a, t in known.items() if "nurse" in t)})
                    elif "Figo" in text:
                        decisions.append({"id": fid, "decision": "noop", "replaces": next(a for a, t in known.items() if "Figo" in t)})
                    else:
                        decisions.append({"id": fid, "decision": "update", "replaces": "f99"})  # invented: an add
            return {"decisions": decisions}
        items = []
        for mid, text in re.findall(r"^(m\d+) \| .*?: (.*)$", user, re.MULTILINE):
            facts = [{"fact": f"Marta: {text}"}] + ([{"fact": "Marta owns a bicycle."}] if "teach" in text else [])
            items.append({"id": mid, "mask": "010", "semantic": facts})
        return {"items": items}

    model = ScriptedChatModel(reply)
    mem = Memory(open_store(f"sqlite:///{tmp_path}/b.db"), HashingEmbedder(), LLMProcessor(model, batch_size=2))
    nurse, cat = mem.add([said("I work as a nurse in Porto.", JAN), said("I have a grey cat called Figo.", JAN)], scope=S).records
    assert len(model.calls) == 1  # nothing known yet: no decision call
    new = mem.add([said("I left the hospital, I teach biology now.", APR), said("Figo is asleep on my keyboard.", APR)], scope=S)
    assert len(model.calls) == 3  # the batched extraction and one more call for the batch's decisions
    assert "f1" in model.last_call.user and nurse.id not in model.last_call.prompt
    by_text = {r.text(): r for r in new.records}
    # the no-op: no record; the "Marta:" label the model wrote leaves the text (llm_tidy)
    assert set(by_text) == {"I left the hospital, I teach biology now.", "Marta owns a bicycle."}
    assert by_text["I left the hospital, I teach biology now."].metadata["replaces"] == [nurse.id]
    assert by_text["Marta owns a bicycle."].metadata["decision"] == "add"
    assert mem.store.get(nurse.id).superseded_by is not None and mem.store.get(cat.id).superseded_by is None  # type: ignore[union-attr]
    mem.close()


def test_noop_stays_empty_through_the_router_and_extractor_faces(tmp_path) -> None:
    from memdesk.conversation.base import Utterance
    from memdesk.records import Message, RouteMask

    mem, _ = memory(tmp_path, lambda m: fact(message_of(m)[1]))
    cat = mem.add([said("I have a grey cat called Figo.", JAN)], scope=S).records[0]
    proc = LLMProcessor(ScriptedChatModel([fact("Marta has a cat called Figo.", "noop", "f1")]))
    u = Utterance(message_id="x2", message=Message(id="x2", speaker="Marta", content="Figo is asleep."), scope=S, known=[cat])
    assert proc.route(u) == RouteMask(semantic=True) and proc.extract(u, RouteMask(semantic=True)) == []
    mem.close()


def test_a_messages_own_metadata_cannot_name_records_to_close(tmp_path) -> None:
    mem, _ = memory(tmp_path, lambda m: fact(message_of(m)[1]))
    old = mem.add([said("I live in Bristol.", JAN)], scope=S).records[0]
    new = mem.add([{**said("I like tea.", APR), "metadata": {"replaces": [old.id]}}], scope=S).records[0]
    assert "replaces" not in new.metadata and mem.store.get(old.id).superseded_by is None  # type: ignore[union-attr]
    mem.close()
