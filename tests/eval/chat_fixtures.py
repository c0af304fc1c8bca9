"""A tiny chats file of our own for the ``eval chats`` tests (the format of docs/eval-chats.md)."""

from __future__ import annotations

import json
from pathlib import Path


def tiny_chat() -> dict:
    t = "2025-03-18T09:{:02d}:00Z"
    return {
        "id": "k1", "user": "Wren", "assistant": "Desk",
        "messages": [
            {"id": "k1-m1", "role": "assistant", "speaker": "Desk", "time": t.format(0), "content": "Good morning! How can I help?"},
            {"id": "k1-m2", "role": "user", "speaker": "Wren", "time": t.format(1),
             "content": "I keep bees in an orchard in Dunblane with my goat, Parsnip."},
            {"id": "k1-m3", "role": "user", "speaker": "Wren", "time": t.format(2),
             "content": "My beekeeping exam is on 14 May."},
            {"id": "k1-m4", "role": "assistant", "speaker": "Desk", "time": t.format(3), "content": "Thanks, noted!"},
            {"id": "k1-m5", "role": "user", "speaker": "Wren", "time": t.format(4),
             "content": "I moved the hives from Dunblane to Callander yesterday."},
        ],
        "questions": [
            {"id": "k1-q1", "question": "When is Wren's beekeeping exam?", "asked_at": "2025-03-19T10:00:00Z",
             "gold_message_ids": ["k1-m3"], "answer": "14 May 2025", "accept": ["14 May", "2025-05-14"], "kind": "date"},
            {"id": "k1-q2", "question": "What is Wren's goat called?", "asked_at": "2025-03-19T10:00:00Z",
             "gold_message_ids": ["k1-m2"], "answer": "Parsnip", "accept": ["parsnip"], "kind": "unchanged-fact"},
        ],
        "labels": {
            "small_talk": ["k1-m1", "k1-m4"],
            "dates": [{"message_id": "k1-m3", "text": "on 14 May", "date": "2025-05-14"},
                      {"message_id": "k1-m5", "text": "yesterday", "date": "2025-03-17"}],
            "supersession": [{"message_id": "k1-m5", "closes": [{"from": "k1-m2", "contains": "Dunblane"}],
                              "keeps": [{"from": "k1-m2", "contains": "Parsnip"}]}],
        },
    }  # fmt: skip


def one_fact_chat() -> dict:
    """Five messages and one fact: whatever is stored for the question comes from its gold message."""
    t = "2025-11-04T18:{:02d}:00Z"
    return {
        "id": "k2",
        "messages": [
            {"id": "k2-m1", "role": "user", "time": t.format(0), "content": "Hello!"},
            {"id": "k2-m2", "role": "assistant", "time": t.format(1), "content": "Hello, how can I help?"},
            {"id": "k2-m3", "role": "user", "time": t.format(2), "content": "My sailing club is the Loch Venachar club."},
            {"id": "k2-m4", "role": "assistant", "time": t.format(3), "content": "Got it."},
            {"id": "k2-m5", "role": "user", "time": t.format(4), "content": "Thanks, bye."},
        ],
        "questions": [
            {"id": "k2-q1", "question": "Which sailing club is the user in?", "asked_at": "2025-11-05T09:00:00Z",
             "gold_message_ids": ["k2-m3"], "answer": "Loch Venachar", "accept": ["venachar"], "kind": "current-fact"},
        ],
        "labels": {"small_talk": ["k2-m1", "k2-m2", "k2-m4", "k2-m5"]},
    }  # fmt: skip


def write_chats(path: Path, chats: list[dict]) -> Path:
    path.write_text("".join(json.dumps(c) + "\n" for c in chats), encoding="utf-8")
    return path
