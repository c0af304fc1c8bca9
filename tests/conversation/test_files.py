from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from memdesk.conversation.files import read_conversations
from memdesk.conversation.locomo import parse_locomo_date
from memdesk.errors import MalformedFileError


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)),
        ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9, tzinfo=timezone.utc)),
        ("12:30 pm on 1 January, 2024", datetime(2024, 1, 1, 12, 30, tzinfo=timezone.utc)),
    ],
)
def test_locomo_dates(text, expected):
    assert parse_locomo_date(text) == expected


def test_locomo_file(locomo_path):
    convs = read_conversations(locomo_path)
    assert [c.id for c in convs] == ["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]
    c = convs[0]
    assert c.messages[0].id == "D1:1" and c.messages[0].speaker == "Caroline"
    captioned = [m for m in c.messages if m.image_caption]
    assert captioned and "[shares an image:" in captioned[0].text()


@pytest.mark.parametrize(
    "content, detail",
    [
        ("[1, 2]", "item 0"),
        ('{"conversation": {"session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}}', "session_1_date_time"),
        ("not json", "not valid JSON"),
    ],
)
def test_malformed_json(tmp_path, content, detail):
    p = tmp_path / "c.json"
    p.write_text(content)
    with pytest.raises(MalformedFileError, match=detail):
        read_conversations(p)


def test_jsonl_groups_by_conversation(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"conversation": "a", "content": "one", "speaker": "X"},
                {"conversation": "b", "content": "two"},
                {"conversation": "a", "content": "three", "speaker": "Y"},
            ]
        )
    )
    convs = {c.id: c for c in read_conversations(p)}
    assert [m.content for m in convs["a"].messages] == ["one", "three"]
    assert convs["a"].speakers == ["X", "Y"]
    p.write_text('{"content": "x", "timestamp": "yesterday-ish"}')
    with pytest.raises(MalformedFileError, match="line 1"):
        read_conversations(p)
