"""Small benchmark files built in the tests: a 2-session LoCoMo conversation, a tiny LongMemEval set."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest


def locomo_sample() -> list[dict]:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "Hi Ben! I adopted a puppy named Biscuit yesterday."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Congrats! What breed is Biscuit?"},
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Biscuit is a golden retriever.",
             "img_url": ["http://x"], "blip_caption": "a photo of a golden retriever puppy on grass"},
        ],
        "session_2_date_time": "10:15 am on 20 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I started learning the violin last week."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Nice. I ran a marathon in Paris on Sunday."},
        ],
        "session_3_date_time": "9:00 am on 1 July, 2023",
    }
    qa = [
        {"question": "What is the name of Ana's puppy?", "answer": "Biscuit", "evidence": ["D1:1"], "category": 4},
        {"question": "When did Ana adopt a puppy?", "answer": "7 May 2023", "evidence": ["D1:1"], "category": 2},
        {"question": "What breed is the puppy and where did Ana run?", "answer": "golden retriever, Paris",
         "evidence": ["D1:3; D2:2"], "category": 1},
        {"question": "How many instruments does Ben learn?", "answer": 1, "evidence": ["D:2:1", "D"], "category": 3},
        {"question": "What did Ben adopt?", "adversarial_answer": "a puppy", "evidence": ["D1:01"], "category": 5},
        {"question": "Who is Ana?", "answer": "Ben's friend", "evidence": [], "category": 4},
        {"question": "What did Ana cook?", "answer": "pasta", "evidence": ["D9:9"], "category": 4},
    ]
    return [{"sample_id": "conv-x", "conversation": conv, "qa": qa}]


def write_locomo(tmp: Path) -> Path:
    p = tmp / "locomo_fake.json"
    p.write_text(json.dumps(locomo_sample()), encoding="utf-8")
    return p


def lme_items() -> list[dict]:
    s_a = [
        {"role": "user", "content": "I just bought a red bicycle for my commute.", "has_answer": True},
        {"role": "assistant", "content": "Great choice! Red bicycles are very visible in traffic."},
    ]
    s_b = [
        {"role": "user", "content": "Can you suggest a pasta recipe?"},
        {"role": "assistant", "content": "Try spaghetti aglio e olio with garlic and chili."},
        {"role": "user", "content": "   "},
    ]
    s_c = [
        {"role": "user", "content": "My sister lives in Toronto now.", "has_answer": True},
        {"role": "assistant", "content": "Toronto is a lovely city."},
    ]
    base = {
        "question_date": "2023/05/30 (Tue) 10:00",
        "haystack_dates": ["2023/05/20 (Sat) 00:48", "2023/05/21 (Sun) 11:42", "2023/05/22 (Mon) 09:00", "2023/05/24 (Wed) 06:24"],
        "haystack_session_ids": ["sess_a", "sess_b", "sess_c", "sess_b"],
        "haystack_sessions": [s_a, s_b, s_c, s_b],
    }
    return [
        {**base, "question_id": "q1", "question_type": "multi-session",
         "question": "What color is my bicycle and where does my sister live?", "answer": "red; Toronto",
         "answer_session_ids": ["sess_a", "sess_c"]},
        {**base, "question_id": "q2_abs", "question_type": "single-session-user",
         "question": "What is the name of my cat?", "answer": "You did not mention a cat.",
         "answer_session_ids": ["sess_x"]},
        {**base, "question_id": "q3", "question_type": "single-session-assistant",
         "question": "Which pasta recipe did you suggest?", "answer": 3,
         "answer_session_ids": ["sess_b"]},
    ]


def write_lme(tmp: Path) -> Path:
    p = tmp / "lme_fake.json.gz"
    with gzip.open(p, "wt", encoding="utf-8") as f:
        json.dump(lme_items(), f)
    return p


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    return write_locomo(tmp_path)


@pytest.fixture
def lme_file(tmp_path: Path) -> Path:
    return write_lme(tmp_path)
