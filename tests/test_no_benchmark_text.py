"""No benchmark text in the package: prompts, rules and package data are written for the project.

Fails when 9 or more consecutive words of a LoCoMo or LongMemEval conversation turn, or of a GSM8K,
MATH, BBH, MMLU or AIME problem, appear anywhere under ``src/memdesk`` (Python string literals and
comments, prompt templates, package data). Each benchmark is skipped when its files are absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.runtime.datapaths import default_data_dir

from tests.benchmark_text import PackageText, locomo_turns, longmemeval_turns, reasoning_items

RUN = 9
SRC = Path(__file__).resolve().parents[1] / "src" / "memdesk"
DATA = default_data_dir()


@pytest.fixture(scope="module")
def package() -> PackageText:
    return PackageText(SRC, RUN)


def test_the_scan_finds_a_quoted_run(tmp_path: Path) -> None:
    (tmp_path / "prompt.txt").write_text("Example: the heron folded its wings over the cold grey harbour at dawn today.\n")
    (tmp_path / "mod.py").write_text('X = 1\nY = "nothing here"  # the heron folded its wings\n')
    found = PackageText(tmp_path, RUN).find(
        [("item a", "Look: the heron folded its wings over the cold grey harbour!"), ("item b", "the heron folded its wings")]
    )
    assert [(h.source, h.files) for h in found] == [("item a", ("prompt.txt",))]


def test_code_is_not_prose(tmp_path: Path) -> None:
    (tmp_path / "mod.py").write_text("import os\nimport sys as system\nimport json as js\nimport re as regex\n")
    assert PackageText(tmp_path, 4).find([("code turn", "import os import sys as system import json")]) == []


def test_markup_is_not_prose_but_the_text_inside_it_is(tmp_path: Path) -> None:
    page = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>x</title></head>'
    (tmp_path / "ui.html").write_text(page + "<p>the heron folded its wings over the cold grey harbour</p>")
    found = PackageText(tmp_path, RUN).find(
        [("web page turn", page.replace("x", "Notes")), ("quoted turn", "<b>the heron folded its wings over the cold grey harbour</b>")]
    )
    assert [h.source for h in found] == ["quoted turn"]


@pytest.mark.parametrize(
    ("name", "items", "needs"),
    [
        ("LoCoMo", locomo_turns, "locomo/locomo_dev5.json"),
        ("LongMemEval", longmemeval_turns, "longmemeval/longmemeval_s_dev.json.gz"),
        ("GSM8K, MATH, BBH, MMLU, AIME", reasoning_items, "gsm8k/test.jsonl"),
    ],
)
def test_no_benchmark_run_in_the_package(package: PackageText, name: str, items, needs: str) -> None:
    if not (DATA / needs).exists():
        pytest.skip(f"{name} data not found under {DATA}")
    hits = package.find(items(DATA))
    assert not hits, f"{name} text inside src/memdesk: " + "; ".join(f"{h.source}: {h.run!r} in {h.files}" for h in hits[:10])
