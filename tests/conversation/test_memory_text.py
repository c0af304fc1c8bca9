"""Memory: what a record's text decides (update), the time a message is read against, script warnings."""

from __future__ import annotations

import logging
from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.conversation.base import RoutedExtraction
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.embed import HashingEmbedder
from memdesk.records import EpisodicRecord, Scope, utcnow
from memdesk.store import open_store

T0 = datetime(2024, 4, 2, 10, 0, tzinfo=timezone.utc)
PRIYA = Scope(user_id="priya")


@pytest.fixture
def mem(tmp_path):
    m = Memory(open_store(f"sqlite:///{tmp_path}/m.db"), HashingEmbedder(256), RoutedExtraction(RuleRouter(), RuleExtractor()))
    yield m
    m.close()


def _episode(mem: Memory) -> EpisodicRecord:
    res = mem.add({"content": "I'm moving to Bristol in April.", "speaker": "Priya", "timestamp": T0}, scope=PRIYA)
    (ep,) = [r for r in res.records if isinstance(r, EpisodicRecord) and r.metadata["view"] in ("sentence", "statement")]
    assert ep.temporal_anchor == "April 2024"
    return ep


def test_update_rewrites_the_title_anchor_and_embedding(mem):
    ep = _episode(mem)
    new = mem.update(ep.id, "Priya moved to Bath in December 2024.", scope=PRIYA)
    assert isinstance(new, EpisodicRecord)
    assert new.title == "Priya moved to Bath in December 2024" and new.text() == "Priya moved to Bath in December 2024."
    assert new.temporal_anchor == "December 2024" and new.event_time == datetime(2024, 12, 1, tzinfo=timezone.utc)
    assert mem.get(ep.id, scope=PRIYA).temporal_anchor == "December 2024"
    hit = mem.search("moved to Bath in December", scope=PRIYA, K=1)[0]
    assert hit.record.id == ep.id and hit.cosine is not None and hit.cosine > 0.5


def test_update_without_a_time_falls_back_to_when_it_was_said(mem):
    ep = _episode(mem)
    new = mem.update(ep.id, "Priya lives in Bath.", scope=PRIYA)
    assert new.temporal_anchor == "2024-04-02" and new.event_time == T0
    assert "time_expressions" not in new.metadata


def test_explicit_fields_win_over_derived_ones(mem):
    ep = _episode(mem)
    new = mem.update(ep.id, "Priya moved to Bath in December 2024.", scope=PRIYA, title="Move", temporal_anchor="winter 2024/25")
    assert new.title == "Move" and new.temporal_anchor == "winter 2024/25"
    assert new.text() == "Move: Priya moved to Bath in December 2024."


def test_add_without_a_timestamp_reads_time_against_the_add_time_and_says_so(mem):
    before = utcnow()
    res = mem.add({"content": "I moved to Porto last month.", "speaker": "Priya"}, scope=PRIYA)
    rec = res.records[0]
    assert rec.metadata["time_reference"] == "added_at"
    added = datetime.fromisoformat(rec.metadata["added_at"])
    assert before <= added <= utcnow()
    month = (added.month - 2) % 12 + 1
    assert rec.temporal_anchor is not None and rec.temporal_anchor.startswith(
        datetime(2000, month, 1).strftime("%B")
    )
    assert "last month (" in rec.text()


def test_text_the_embedder_cannot_embed_well_warns_once_per_scope(tmp_path, caplog):
    class LatinOnly(HashingEmbedder):
        scripts = frozenset({"Latin"})

    m = Memory(open_store(f"sqlite:///{tmp_path}/w.db"), LatinOnly(64), RoutedExtraction(RuleRouter(), RuleExtractor()))
    with caplog.at_level(logging.WARNING, logger="memdesk.conversation.memory"):
        first = m.add(["我昨天搬到了上海。", "我很喜欢这里。"], scope=PRIYA)
        again = m.add("我明天去北京。", scope=PRIYA)
        other = m.add("我明天去北京。", scope=Scope(user_id="li"))
        english = m.add("I moved to Leeds.", scope=Scope(user_id="ann"))
    m.close()
    assert len(first.warnings) == 1 and "Han" in first.warnings[0] and "multilingual" in first.warnings[0]
    assert again.warnings == [] and len(other.warnings) == 1 and english.warnings == []
    assert first.records and again.records  # kept all the same
    assert sum("does not embed Han" in r.message for r in caplog.records) == 2


def test_search_embeds_the_query_as_a_query(tmp_path):
    seen: list[str] = []

    class Prefixed(HashingEmbedder):
        def embed_query(self, texts):
            seen.extend(texts)
            return self.embed([f"{t}" for t in texts])

    m = Memory(open_store(f"sqlite:///{tmp_path}/q.db"), Prefixed(64), RoutedExtraction(RuleRouter(), RuleExtractor()))
    m.add("I adopted a cat called Miso.", scope=PRIYA, timestamp=T0)
    assert m.search("Miso the cat", scope=PRIYA) and seen == ["Miso the cat"]
    m.close()
    assert np.isfinite(Prefixed(64).embed_query(["x"])).all()
