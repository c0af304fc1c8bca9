from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memdesk.errors import MalformedFileError
from memdesk.eval.datasets import load_locomo, load_longmemeval, session_of_id
from memdesk.conversation.locomo import parse_evidence_ids, parse_locomo_date
from memdesk.eval.datasets.longmemeval import parse_date


def test_parse_evidence_ids_is_lenient():
    assert parse_evidence_ids("D1:3") == ["D1:3"]
    assert parse_evidence_ids("D8:6; D9:17") == ["D8:6", "D9:17"]
    assert parse_evidence_ids("D:11:26") == ["D11:26"]
    assert parse_evidence_ids("D30:05") == ["D30:5"]
    assert parse_evidence_ids("D") == []


def test_parse_dates():
    assert parse_locomo_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    assert parse_locomo_date("10:15 am on 20 June, 2023") == datetime(2023, 6, 20, 10, 15, tzinfo=timezone.utc)
    assert parse_locomo_date("10:15am on 20 Jun 2023") == datetime(2023, 6, 20, 10, 15, tzinfo=timezone.utc)
    assert parse_locomo_date("someday") is None and parse_locomo_date("13:15 pm on 31 February, 2023") is None
    assert parse_date("2023/05/20 (Sat) 00:48") == datetime(2023, 5, 20, 0, 48)


def test_locomo_traps(locomo_file):
    ds = load_locomo(locomo_file)
    conv = ds.conversations["conv-x"]
    assert [m.id for m in conv.messages] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"]
    assert conv.messages[0].timestamp.replace(tzinfo=None) == datetime(2023, 5, 8, 13, 56)
    assert conv.messages[2].image_caption == "a photo of a golden retriever puppy on grass"
    assert "golden retriever puppy" in conv.messages[2].text()
    assert conv.session_of["D2:2"] == "2"
    q = {x.id: x for x in ds.questions}
    assert q["conv-x:0"].category == "single-hop" and q["conv-x:1"].category == "temporal"
    # "D1:3; D2:2" is two ids
    assert q["conv-x:2"].evidence_ids == ["D1:3", "D2:2"] and q["conv-x:2"].category == "multi-hop"
    assert q["conv-x:2"].evidence_sessions == ["1", "2"]
    # integer answer -> string; "D:2:1" parsed, "D" unresolvable
    assert q["conv-x:3"].answer == "1" and q["conv-x:3"].category == "open-domain"
    assert q["conv-x:3"].evidence_ids == ["D2:1"] and q["conv-x:3"].unresolved_evidence == ["D"]
    # adversarial: no answer, adversarial_answer kept, "D1:01" normalized
    adv = q["conv-x:4"]
    assert adv.category == "adversarial" and adv.answer is None and adv.adversarial_answer == "a puppy"
    assert adv.abstention and adv.evidence_ids == ["D1:1"]
    # no evidence / unknown id: not retrieval-scored
    assert not q["conv-x:5"].retrieval_scored
    assert q["conv-x:6"].unresolved_evidence == ["D9:9"] and not q["conv-x:6"].retrieval_scored
    assert ds.stats["unresolved_evidence_ids"] == 2
    assert ds.stats["questions_without_evidence"] == 2
    assert ds.stats["malformed_evidence_strings"] == 4
    assert ds.stats["integer_answers"] == 1
    assert ds.stats["adversarial_without_answer"] == 1
    assert ds.stats["image_captions"] == 1
    # question time: the last session that has turns (session 3 has a date and no turns, as the
    # real file's sessions 20-35 do)
    assert q["conv-x:0"].question_time == datetime(2023, 6, 20, 10, 15, tzinfo=timezone.utc)
    assert ds.headline_categories == ["multi-hop", "temporal", "open-domain", "single-hop"]


def test_locomo_malformed(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json", encoding="utf-8")
    with pytest.raises(MalformedFileError):
        load_locomo(p)
    p.write_text(json.dumps({"a": 1}), encoding="utf-8")
    with pytest.raises(MalformedFileError):
        load_locomo(p)


def test_longmemeval_traps(lme_file):
    ds = load_longmemeval(lme_file)
    q1, q2, q3 = ds.questions
    conv = ds.conversations["q1"]
    ids = [m.id for m in conv.messages]
    # the repeated session gets a suffix; the empty turn is skipped but indices are kept
    assert ids == ["sess_a:0", "sess_a:1", "sess_b:0", "sess_b:1", "sess_c:0", "sess_c:1", "sess_b#2:0", "sess_b#2:1"]
    assert session_of_id("sess_b#2:1") == "sess_b" and conv.session_of["sess_b#2:1"] == "sess_b"
    assert conv.messages[0].role == "user" and conv.messages[1].speaker == "assistant"
    assert conv.messages[0].timestamp.replace(tzinfo=None) == datetime(2023, 5, 20, 0, 48)
    assert q1.evidence_ids == ["sess_a:0", "sess_c:0"] and q1.evidence_sessions == ["sess_a", "sess_c"]
    assert q1.question_time == datetime(2023, 5, 30, 10, 0) and q1.retrieval_scored
    assert q2.abstention and not q2.retrieval_scored
    assert q3.answer == "3" and q3.category == "single-session-assistant"
    assert ds.stats["duplicate_sessions"] == 3 and ds.stats["empty_turns_skipped"] == 6
    assert ds.stats["abstention"] == 1


@pytest.fixture
def real_data():
    from memdesk.eval.datasets import default_data_dir

    d = default_data_dir()
    if not (d / "locomo" / "locomo_dev5.json").exists():
        pytest.skip("shared data not found")
    return d


def test_real_locomo_counts(real_data):
    ds = load_locomo(real_data / "locomo" / "locomo_dev5.json")
    assert ds.stats["questions"] == 999 and ds.stats["conversations"] == 5
    assert ds.stats["unresolved_evidence_ids"] == 2  # "D" and "D10:19" (conv-42)
    assert {q.category for q in ds.questions} == {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}
