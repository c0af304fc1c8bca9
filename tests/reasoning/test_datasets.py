"""Benchmark loaders and the bank/eval disjointness of every benchmark, on the real data (skipped if absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.errors import DataOverlapError, UsageError
from memdesk.reasoning.overlap import check_disjoint, find_overlap
from memdesk.reasoning.datasets import (
    BENCHMARK_NAMES,
    MMLU_SCIENCE_SUBJECTS,
    bbh_side,
    get_benchmark,
    load_bbh,
    load_gsm8k,
    load_math500,
    load_math_bank,
    load_mmlu,
    normalize_text,
    parse_gsm8k_answer,
)


def test_parse_gsm8k_answer() -> None:
    solution, final = parse_gsm8k_answer("He pays 2*3 = <<2*3=6>>6 dollars.\n#### 1,206")
    assert solution == "He pays 2*3 = 6 dollars." and final == "1206"


def test_normalize_text_keeps_symbols() -> None:
    assert normalize_text(" ( ) [ ]\n") == "()[]"
    assert normalize_text("A  b") == normalize_text("a b")
    assert normalize_text("( )") != normalize_text("[ ]")


def test_bbh_side_is_deterministic_and_ignores_whitespace() -> None:
    a = bbh_side("navigate", "Take 3 steps.", 0.5)
    assert a == bbh_side("navigate", "take  3 steps.", 0.5)
    sides = {bbh_side("navigate", f"item {i}", 0.5) for i in range(50)}
    assert sides == {"bank", "eval"}


def test_unknown_benchmark() -> None:
    with pytest.raises(UsageError):
        get_benchmark("nope")


def test_loader_counts(data_root: Path) -> None:
    assert len(load_gsm8k(data_root, "train")) == 7473
    assert len(load_gsm8k(data_root, "test")) == 1319
    math500 = load_math500(data_root)
    assert len(math500) == 500 and {p.group for p in math500} >= {"Algebra", "Geometry"}
    bank = load_math_bank(data_root)
    assert len(bank) >= 11990 and all(p.answer.strip() for p in bank)  # 2 rows without any answer are skipped
    assert {p.group for p in bank} == {p.group for p in math500}


def test_bbh_split_partitions_each_task(data_root: Path) -> None:
    bank, held_out = load_bbh(data_root, "bank"), load_bbh(data_root, "eval")
    assert len(bank) + len(held_out) == 6511
    assert {p.id for p in bank}.isdisjoint({p.id for p in held_out})
    assert len({p.group for p in bank}) == 27 and len({p.group for p in held_out}) == 27
    assert load_bbh(data_root, "bank") == bank  # fixed split


@pytest.mark.parametrize("name", [n for n in BENCHMARK_NAMES if n != "mmlu-sci"])
def test_banks_are_disjoint_from_eval(data_root: Path, name: str) -> None:
    bench = get_benchmark(name)
    check_disjoint(bench.load_bank(data_root), bench.load_eval(data_root))


def test_mmlu_science_overlap_is_detected(data_root: Path) -> None:
    # MMLU repeats a few college_physics questions between dev/val and test: the guard must say so
    bench = get_benchmark("mmlu-sci")
    bank, held_out = bench.load_bank(data_root), bench.load_eval(data_root)
    with pytest.raises(DataOverlapError) as err:
        check_disjoint(bank, held_out)
    overlap = find_overlap(bank, held_out)
    assert len(err.value.items) == len(overlap) > 0
    assert all(o.bank_id.split(":")[2] == "college_physics" for o in overlap)
    assert {p.group for p in held_out} == set(MMLU_SCIENCE_SUBJECTS)
    assert all(p.question.count("\n(") == 4 for p in load_mmlu(data_root, ("dev",), ("astronomy",)))
