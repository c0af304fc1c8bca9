"""The chats JSONL loader: good files load, bad lines fail with a typed error naming the line."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from memdesk.errors import DataNotFoundError, InvalidInputError, MalformedFileError
from memdesk.eval.datasets.chats import load_chats

from .chat_fixtures import one_fact_chat, tiny_chat, write_chats

REPO = Path(__file__).resolve().parents[2]


def test_a_good_file_loads(tmp_path):
    chats = load_chats(write_chats(tmp_path / "c.jsonl", [tiny_chat(), one_fact_chat()]))
    assert [c.id for c in chats.chats] == ["k1", "k2"] and chats.n_questions == 3
    k1 = chats.chats[0]
    assert k1.questions[0].accept == ["14 may", "2025-05-14"]  # lower-cased
    assert k1.labels.supersession[0].closes[0].from_ == "k1-m2"
    assert k1.labels.dates[1].span()[0].isoformat() == "2025-03-17"
    m = k1.messages[1].message()
    assert m.id == "k1-m2" and m.role == "user" and m.timestamp.isoformat() == "2025-03-18T09:01:00+00:00"


def test_blank_lines_are_skipped(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text("\n" + json.dumps(tiny_chat()) + "\n\n", encoding="utf-8")
    assert len(load_chats(p).chats) == 1


def _broken(**change) -> dict:
    chat = copy.deepcopy(tiny_chat())
    for path, value in change.items():
        node = chat
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[int(k)] if k.isdigit() else node[k]
        last = keys[-1]
        if value is None:
            del node[last]
        else:
            node[int(last) if last.isdigit() else last] = value
    return chat


@pytest.mark.parametrize(
    ("chat", "detail"),
    [
        (_broken(messages__1__role="narrator"), "messages.1.role"),
        (_broken(messages__1__time="2025-03-18T09:01:00"), "needs a time zone"),
        (_broken(messages__0__content=None), "messages.0.content"),
        (_broken(questions__0__gold_message_ids=["k1-m9"]), "names message 'k1-m9'"),
        (_broken(questions__0__gold_message_ids=[]), "gold_message_ids"),
        (_broken(questions__0__kind="trivia"), "questions.0.kind"),
        (_broken(questions__0__accept=["  "]), "accepted answer is empty"),
        (_broken(labels__small_talk=["nope"]), "labels.small_talk names message 'nope'"),
        (_broken(labels__dates__0__date="14 May"), "YYYY-MM-DD"),
        (_broken(labels__dates__0__date="2025-05-14/2025-05-01"), "ends before it starts"),
        (_broken(labels__supersession__0__closes=[{"from": "k1-m5", "contains": "x"}]), "is not earlier"),
        (_broken(surprise=1), "surprise"),
    ],
)
def test_a_bad_line_names_the_line_and_the_field(tmp_path, chat, detail):
    p = write_chats(tmp_path / "c.jsonl", [one_fact_chat(), chat])
    with pytest.raises(MalformedFileError, match=r"line 2: ") as e:
        load_chats(p)
    assert detail in str(e.value)
    assert isinstance(e.value, InvalidInputError) and e.value.path == str(p)


def test_not_json_and_repeated_ids_and_empty_files(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps(tiny_chat()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(MalformedFileError, match="line 2: not JSON"):
        load_chats(p)
    write_chats(p, [tiny_chat(), one_fact_chat(), tiny_chat()])
    with pytest.raises(MalformedFileError, match="line 3: chat id 'k1' repeats line 1"):
        load_chats(p)
    dup = tiny_chat()
    dup["messages"][2]["id"] = "k1-m2"
    write_chats(p, [dup])
    with pytest.raises(MalformedFileError, match="line 1: .*duplicate message ids"):
        load_chats(p)
    p.write_text("\n", encoding="utf-8")
    with pytest.raises(MalformedFileError, match="no chats"):
        load_chats(p)
    with pytest.raises(DataNotFoundError):
        load_chats(tmp_path / "missing.jsonl")


@pytest.mark.parametrize(("name", "chats", "questions"), [("tune", 20, 200), ("heldout", 20, 200)])
def test_the_committed_sets_fit_the_format(name, chats, questions):
    """A schema check only: the sets load, and are as large as issue #28 asks."""
    loaded = load_chats(REPO / "bench" / "data" / "chats" / f"{name}.jsonl")
    assert len(loaded.chats) >= chats and loaded.n_questions >= questions
    assert all(5 <= len(c.messages) <= 80 for c in loaded.chats)
