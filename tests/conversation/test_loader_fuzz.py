"""Fuzzed conversation files: the loaders raise only memdesk errors, whatever the bytes.

Mutations of small valid files (the LoCoMo layout read by ``memdesk ingest`` and by the harness,
the chat JSONL format, and LongMemEval's layout): cut-off files, flipped and inserted bytes (bad
UTF-8), any JSON value put in place of any part of the document (wrong types), deep nesting and
huge numbers. Every load either succeeds or raises a :class:`~memdesk.errors.MemdeskError`.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.conversation.files import read_conversations
from memdesk.errors import DataNotFoundError, MalformedFileError, MemdeskError
from memdesk.eval.datasets import load_locomo, load_longmemeval

from tests.eval.conftest import lme_items, locomo_sample

CHAT = [
    {"conversation": "a", "speaker": "Ana", "content": "I moved to Porto.", "timestamp": "2024-03-01T10:00:00Z", "id": "m1"},
    {"conversation": "a", "speaker": "Ben", "role": "assistant", "content": "Nice!", "id": "m2"},
]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON document (keys and indices)."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += paths(v, (*prefix, i))
    return out


def replaced(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    doc = json.loads(json.dumps(doc))
    node = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return doc


@st.composite
def mutated_json(draw, base: Any) -> bytes:
    """A JSON document with one part replaced by any value, then maybe cut, corrupted or wrapped."""
    all_paths = paths(base)
    doc = replaced(base, draw(st.sampled_from(all_paths)), draw(json_values))
    raw = json.dumps(doc).encode("utf-8")
    kind = draw(st.sampled_from(["value", "cut", "bytes", "deep", "huge"]))
    if kind == "cut":
        raw = raw[: draw(st.integers(0, max(0, len(raw) - 1)))]
    elif kind == "bytes":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.binary(min_size=1, max_size=4)) + raw[at:]
    elif kind == "deep":
        depth = draw(st.sampled_from([50, 5_000, 200_000]))
        raw = json.dumps(replaced(base, draw(st.sampled_from(all_paths)), "X")).encode().replace(
            b'"X"', b"[" * depth + b"1" + b"]" * depth
        )
    elif kind == "huge":
        number = draw(st.sampled_from([b"1" * 6000, b"1e400", b"-1e999999", b"9" * 40]))
        raw = json.dumps(replaced(base, draw(st.sampled_from(all_paths)), "X")).encode().replace(b'"X"', number)
    return raw


def only_memdesk_errors(load: Callable[[Path], Any], raw: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory(prefix="house-fuzz-") as d:
        p = Path(d) / f"f{suffix}"
        p.write_bytes(gzip.compress(raw) if suffix.endswith(".gz") else raw)
        try:
            load(p)
        except MemdeskError:
            pass


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(mutated_json(locomo_sample()))
def test_locomo_ingest_loader(raw: bytes) -> None:
    only_memdesk_errors(read_conversations, raw, ".json")


@FUZZ
@given(mutated_json(locomo_sample()))
def test_locomo_eval_loader(raw: bytes) -> None:
    only_memdesk_errors(load_locomo, raw, ".json")


@FUZZ
@given(mutated_json(lme_items()))
def test_longmemeval_loader(raw: bytes) -> None:
    only_memdesk_errors(load_longmemeval, raw, ".json.gz")


@st.composite
def mutated_jsonl(draw) -> bytes:
    lines = [draw(mutated_json(m)) if draw(st.booleans()) else json.dumps(m).encode() for m in CHAT]
    return b"\n".join(lines)


@FUZZ
@given(mutated_jsonl())
def test_chat_jsonl_loader(raw: bytes) -> None:
    only_memdesk_errors(read_conversations, raw, ".jsonl")


@pytest.mark.parametrize("load", [read_conversations, load_locomo, load_longmemeval])
def test_a_missing_file_is_not_found_not_malformed(tmp_path: Path, load) -> None:
    with pytest.raises(DataNotFoundError):
        load(tmp_path / "nowhere.json")


@pytest.mark.parametrize(
    "raw, detail",
    [(b"\xff\xfe[]", "not UTF-8"), (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"), (b"[" + b"7" * 9000 + b"]", "JSON")],
)
def test_what_is_wrong_is_said(tmp_path: Path, raw: bytes, detail: str) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(raw)
    for load in (read_conversations, load_locomo):
        with pytest.raises(MalformedFileError, match=detail):
            load(p)


def test_lenient_loading_counts_what_it_passed_over(tmp_path: Path) -> None:
    sample = locomo_sample()
    turns = sample[0]["conversation"]["session_1"]
    turns.append({"speaker": "Ana", "text": "no id"})
    turns.append("not a turn")
    sample[0]["conversation"]["session_2_date_time"] = "sometime"
    p = tmp_path / "l.json"
    p.write_text(json.dumps(sample))
    ds = load_locomo(p)
    assert ds.stats["skipped_turn_without_a_dia_id"] == 1 and ds.stats["skipped_turn_that_is_not_an_object"] == 1
    assert ds.stats["skipped_session_without_a_parseable_date"] == 1
    assert ds.stats["messages"] == 5  # the good turns are all there
    with pytest.raises(MalformedFileError, match="conv-x session_1 turn 3: turn without a dia id"):
        read_conversations(p)  # ingest is strict and names the turn


def test_the_cli_says_one_line_and_exits_2(tmp_path: Path, run) -> None:
    from click.testing import CliRunner

    from memdesk.eval.eval_commands import eval_group

    bad = tmp_path / "bad.json"
    bad.write_bytes(b'[{"sample_id": "c", "conversation": {"session_1": [' + b"[" * 50_000)
    for result in (
        run("ingest", str(bad), ok=False),
        CliRunner().invoke(eval_group, ["locomo", "--data", str(bad), "--out", str(tmp_path / "o"), "--quiet"]),
        CliRunner().invoke(eval_group, ["locomo", "--data", str(tmp_path / "missing.json"), "--out", str(tmp_path / "p")]),
    ):
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("error: ")
        assert "Traceback" not in result.output
