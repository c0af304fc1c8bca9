"""The reasoning loaders raise only memdesk errors on any input: mutated small files of each layout
(items written for this test), cut off, with bad bytes or with any JSON value in place of a field."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.errors import DataNotFoundError, MemdeskError
from memdesk.reasoning.datasets import get_benchmark

ROWS = {
    "gsm8k/train.jsonl": {"question": "Pia has 3 boxes of 4 pens. How many pens?", "answer": "3*4=<<3*4=12>>12\n#### 12"},
    "gsm8k/test.jsonl": {"question": "Tom reads 5 pages a day for 6 days. Pages?", "answer": "#### 30"},
    "math/bank_disjoint_from_math500.jsonl": {"unique_id": "b/1.json", "problem": "Find $x$ if $2x=6$.",
                                              "solution": "So $x=\\boxed{3}$.", "answer": "3", "type": "Algebra"},
    "math500/test.jsonl": {"unique_id": "t/1.json", "problem": "Compute $7+8$.", "answer": "15", "subject": "Prealgebra"},
    "aime/aime_1983_2023_memory_bank.jsonl": {"id": "1990-1", "problem": "Count the odd numbers below 20.", "answer": "10"},
    "aime/aime2024.jsonl": {"id": 1, "problem": "What is 6 times 7?", "answer": 42},
}
BBH = {"examples": [{"input": "not ( True ) and False is", "target": "False"}, {"input": "True or False is", "target": "True"}]}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def write_tree(root: Path, rows: dict[str, dict], bbh: object, mmlu: bytes) -> None:
    for rel, row in rows.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(json.dumps(row) + "\n")
    (root / "bbh" / "bbh").mkdir(parents=True, exist_ok=True)
    (root / "bbh" / "bbh" / "boolean_expressions.json").write_text(json.dumps(bbh))
    for split in ("dev", "val", "test"):
        (root / "mmlu" / split).mkdir(parents=True, exist_ok=True)
        for subject in ("astronomy", "college_physics", "conceptual_physics", "high_school_physics", "college_chemistry",
                        "high_school_chemistry", "college_biology", "high_school_biology"):
            (root / "mmlu" / split / f"{subject}_{split}.csv").write_bytes(mmlu)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    target=st.sampled_from(sorted(ROWS)),
    field=st.sampled_from(["question", "answer", "problem", "solution", "unique_id", "id", "type", "subject", None]),
    value=json_values,
    cut=st.integers(0, 200),
    noise=st.binary(max_size=3),
    mmlu=st.sampled_from([b"What is 2+2?,3,4,5,6,B\n", b"\xff\xfe,a\n", b'"unclosed,A,B,C,D,A\n', b"x,y\n"]),
    bbh=st.sampled_from([BBH, {"examples": [{"input": 3}]}, {"examples": "no"}, [1], {"examples": [None]}]),
)
def test_only_memdesk_errors(target, field, value, cut, noise, mmlu, bbh) -> None:
    rows = {k: dict(v) for k, v in ROWS.items()}
    if field is None:
        rows[target] = value  # the whole line is any value
    else:
        rows[target][field] = value
    with tempfile.TemporaryDirectory(prefix="house-rfuzz-") as d:
        root = Path(d)
        write_tree(root, rows, bbh, mmlu)
        p = root / target
        raw = p.read_bytes()
        p.write_bytes(raw[: max(1, len(raw) - cut)] + noise if cut else raw)
        for name in ("gsm8k", "math500", "bbh", "mmlu-sci", "aime24"):
            b = get_benchmark(name)
            for load in (b.load_bank, b.load_eval):
                try:
                    load(root)
                except MemdeskError:
                    pass


def test_a_missing_file_is_not_found(tmp_path: Path) -> None:
    for name in ("gsm8k", "math500", "bbh", "mmlu-sci", "aime24"):
        with pytest.raises(DataNotFoundError):
            get_benchmark(name).load_eval(tmp_path)
