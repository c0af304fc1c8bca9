"""Benchmark loaders: each turns one benchmark's files into plain :class:`Problem` items.

Every benchmark has a *bank* side (historical solved examples) and an *eval* side, disjoint by
construction; :func:`memdesk.reasoning.overlap.check_disjoint` verifies it by normalized-text hashes.

=========== ======================================== ============================================
benchmark   bank                                     eval
=========== ======================================== ============================================
gsm8k       GSM8K train (7473, worked solutions)     GSM8K test (1319)
math500     MATH train + non-MATH-500 test (12000)   MATH-500 (500)
bbh         per task, items whose seeded hash falls  the other items of each task (27 tasks)
            in the bank share (default 50 %)
mmlu-sci    MMLU dev + val, science subjects         MMLU test, same subjects
aime24      AIME 1983-2023 (919, answers only)       AIME 2024 (30)
=========== ======================================== ============================================

Every loader takes the data folder (:func:`memdesk.runtime.datapaths.require_data_dir` finds it). The files
are read, never written; a missing one raises :class:`~memdesk.errors.DataNotFoundError`, any
content a loader cannot use :class:`~memdesk.errors.MalformedFileError` naming the file and the item.
"""

from __future__ import annotations

import csv
import hashlib
import io
import logging
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import DataNotFoundError, InvalidInputError, MalformedFileError, UsageError
from ..runtime.jsonfiles import iter_jsonl, read_json, read_text
from .problems import AnswerKind, Problem, normalize_text, text_hash  # noqa: F401 - text_hash: importable from here too

logger = logging.getLogger(__name__)

#: MMLU's science subjects: the physics, chemistry and biology subcategories of MMLU's own
#: categorization (hendrycks/test ``categories.py``).
MMLU_SCIENCE_SUBJECTS: tuple[str, ...] = (
    "astronomy",
    "college_physics",
    "conceptual_physics",
    "high_school_physics",
    "college_chemistry",
    "high_school_chemistry",
    "college_biology",
    "high_school_biology",
)

#: Seed string of the fixed BBH bank/eval split (changing it changes the split).
BBH_SPLIT_SEED = "memdesk-mac-bbh-v1"


# --- file helpers ------------------------------------------------------------------------------
def _jsonl(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """(``row N``, object) of every line; a missing file is DataNotFoundError, a bad one MalformedFileError."""
    for n, (_, row) in enumerate(iter_jsonl(path)):
        if not isinstance(row, dict):
            raise MalformedFileError(str(path), f"row {n}: not a JSON object")
        yield f"row {n}", row


@contextmanager
def _item(path: Path, where: str) -> Iterator[None]:
    """Turns what a wrong-typed or missing field raises while one item is read into MalformedFileError."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError) as e:  # ValueError: pydantic's ValidationError too
        detail = f"missing {e}" if isinstance(e, KeyError) else str(e).splitlines()[0]
        raise MalformedFileError(str(path), f"{where}: {detail}") from e


def _require(row: dict[str, Any], keys: tuple[str, ...], path: Path, where: str) -> None:
    missing = [k for k in keys if k not in row]
    if missing:
        raise MalformedFileError(str(path), f"{where}: missing {', '.join(missing)}")


def _text(value: Any, field: str) -> str:
    """A text field of a benchmark item (numbers are accepted as their text)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise TypeError(f"{field} must be text, not {type(value).__name__}")
    return str(value)


# --- GSM8K -------------------------------------------------------------------------------------
_CALC = re.compile(r"<<[^<>]*>>")


def parse_gsm8k_answer(answer_field: str) -> tuple[str, str]:
    """Split a GSM8K ``answer`` field into (worked solution without calculator marks, final number)."""
    if not isinstance(answer_field, str) or "####" not in answer_field:
        raise InvalidInputError("GSM8K answer has no '####' line")
    solution, final = answer_field.rsplit("####", 1)
    return _CALC.sub("", solution).strip(), final.strip().replace(",", "")


def load_gsm8k(data_dir: Path, split: str = "train") -> list[Problem]:
    """GSM8K ``train`` or ``test``: the question, the worked solution and the final number."""
    if split not in ("train", "test"):
        raise UsageError(f"GSM8K split must be train or test, not {split!r}")
    path = data_dir / "gsm8k" / f"{split}.jsonl"
    out = []
    for i, (where, row) in enumerate(_jsonl(path)):
        _require(row, ("question", "answer"), path, where)
        with _item(path, where):
            solution, final = parse_gsm8k_answer(row["answer"])
            out.append(
                Problem(
                    id=f"gsm8k:{split}:{i}",
                    benchmark="gsm8k",
                    question=_text(row["question"], "question"),
                    answer=final,
                    solution=solution,
                    split=split,
                )
            )
    return out


# --- MATH --------------------------------------------------------------------------------------
def _load_math(path: Path, *, benchmark: str, split: str, required: tuple[str, ...], group_field: str,
               solution_and_answer: Callable[[dict], tuple[str | None, str | None]], label: str) -> list[Problem]:
    """MATH-style rows (``unique_id``, ``problem``, ...; group = ``group_field``). ``solution_and_answer`` gives a
    row's (solution, answer); a row whose answer is None is skipped, and the skipped ones logged under ``label``."""
    out, skipped = [], []
    for where, row in _jsonl(path):
        _require(row, required, path, where)
        with _item(path, where):
            solution, answer = solution_and_answer(row)
            if answer is None:
                skipped.append(str(row["unique_id"]))
                continue
            out.append(
                Problem(
                    id=f"{benchmark}:{_text(row['unique_id'], 'unique_id')}",
                    benchmark=benchmark,
                    question=_text(row["problem"], "problem"),
                    answer=answer,
                    solution=solution,
                    group=_text(row[group_field], group_field),
                    split=split,
                    metadata={"level": row.get("level")},
                )
            )
    if skipped:
        logger.warning("%s: skipped %d rows without a gold answer: %s", label, len(skipped), ", ".join(skipped))
    return out


def load_math_bank(data_dir: Path) -> list[Problem]:
    """The 12,000 MATH problems disjoint from MATH-500 (train + the rest of test); group = subject (``type``)."""
    from .scoring import last_boxed

    def solution_and_answer(row: dict[str, Any]) -> tuple[str, str | None]:
        # a few rows carry answer null (their solution says "\boxed 2") or an empty answer
        solution = _text(row["solution"] or "", "solution")
        answer = _text(row["answer"], "answer") if row["answer"] is not None else last_boxed(solution)
        return solution, answer if answer is not None and answer.strip() else None

    return _load_math(
        data_dir / "math" / "bank_disjoint_from_math500.jsonl", benchmark="math", split="bank",
        required=("unique_id", "problem", "solution", "answer", "type"), group_field="type",
        solution_and_answer=solution_and_answer, label="MATH bank",
    )


def load_math500(data_dir: Path) -> list[Problem]:
    """MATH-500; group = subject."""
    return _load_math(
        data_dir / "math500" / "test.jsonl", benchmark="math500", split="test",
        required=("unique_id", "problem", "answer", "subject"), group_field="subject",
        solution_and_answer=lambda row: (row.get("solution"), _text(row["answer"], "answer")), label="MATH-500",
    )


# --- BBH ---------------------------------------------------------------------------------------
def bbh_tasks(data_dir: Path) -> list[str]:
    """The BBH task names (27), sorted."""
    folder = data_dir / "bbh" / "bbh"
    if not folder.is_dir():
        raise DataNotFoundError(str(folder), "BBH folder not found")
    return sorted(p.stem for p in folder.glob("*.json"))


def bbh_side(task: str, text: str, eval_fraction: float, seed: str = BBH_SPLIT_SEED) -> str:
    """'eval' or 'bank' for one BBH item: a fixed hash of (seed, task, normalized input).

    Equal inputs (after normalization) always fall on the same side, so duplicates inside a task
    can never straddle the split.
    """
    digest = hashlib.sha256(f"{seed}|{task}|{normalize_text(text)}".encode()).digest()
    return "eval" if int.from_bytes(digest[:8], "big") / 2**64 < eval_fraction else "bank"


def load_bbh(
    data_dir: Path,
    split: str = "bank",
    *,
    eval_fraction: float = 0.5,
    seed: str = BBH_SPLIT_SEED,
    tasks: list[str] | None = None,
) -> list[Problem]:
    """BBH items of the ``bank`` or ``eval`` side of the fixed per-task split; group = task."""
    if split not in ("bank", "eval"):
        raise UsageError(f"BBH split must be bank or eval, not {split!r}")
    if not 0.0 < eval_fraction < 1.0:
        raise UsageError("eval_fraction must be in (0, 1)")
    out = []
    for task in tasks or bbh_tasks(data_dir):
        path = data_dir / "bbh" / "bbh" / f"{task}.json"
        doc = read_json(path)
        examples = doc.get("examples") if isinstance(doc, dict) else None
        if not isinstance(examples, list):
            raise MalformedFileError(str(path), "expected an object with an 'examples' list")
        for i, ex in enumerate(examples):
            with _item(path, f"example {i}"):
                question = _text(ex["input"], "input")
                if bbh_side(task, question, eval_fraction, seed) != split:
                    continue
                out.append(
                    Problem(
                        id=f"bbh:{task}:{i}",
                        benchmark="bbh",
                        question=question,
                        answer=_text(ex["target"], "target"),
                        group=task,
                        split=split,
                    )
                )
    return out


# --- MMLU --------------------------------------------------------------------------------------
LETTERS = "ABCD"


def format_choices(question: str, choices: list[str]) -> str:
    """A multiple-choice question as shown to a model: the stem, then '(A) ...' lines."""
    lines = [question.strip()] + [f"({LETTERS[i]}) {c.strip()}" for i, c in enumerate(choices)]
    return "\n".join(lines)


def load_mmlu(data_dir: Path, splits: tuple[str, ...] = ("test",), subjects: tuple[str, ...] = MMLU_SCIENCE_SUBJECTS) -> list[Problem]:
    """MMLU rows (no header: question, A, B, C, D, letter) of the given splits and subjects; group = subject."""
    out = []
    for split in splits:
        if split not in ("dev", "val", "test"):
            raise UsageError(f"MMLU split must be dev, val or test, not {split!r}")
        for subject in subjects:
            path = data_dir / "mmlu" / split / f"{subject}_{split}.csv"
            try:
                rows = list(csv.reader(io.StringIO(read_text(path), newline="")))
            except csv.Error as e:
                raise MalformedFileError(str(path), f"not CSV: {e}") from e
            for i, row in enumerate(rows):
                if len(row) != 6 or row[5].strip() not in LETTERS:
                    raise MalformedFileError(str(path), f"row {i}: expected question, A, B, C, D, letter")
                out.append(
                    Problem(
                        id=f"mmlu:{split}:{subject}:{i}",
                        benchmark="mmlu",
                        question=format_choices(row[0], row[1:5]),
                        answer=row[5].strip(),
                        group=subject,
                        split=split,
                        metadata={"choices": row[1:5]},
                    )
                )
    return out


# --- AIME --------------------------------------------------------------------------------------
def _load_aime(path: Path, *, prefix: str, benchmark: str, split: str, extra: Callable[[dict], dict]) -> list[Problem]:
    out = []
    for where, row in _jsonl(path):
        _require(row, ("id", "problem", "answer"), path, where)
        with _item(path, where):
            out.append(
                Problem(
                    id=f"{prefix}:{_text(row['id'], 'id')}",
                    benchmark=benchmark,
                    question=_text(row["problem"], "problem"),
                    answer=_text(row["answer"], "answer").strip(),
                    split=split,
                    **extra(row),
                )
            )
    return out


def load_aime_bank(data_dir: Path) -> list[Problem]:
    """AIME 1983-2023 (no worked solutions: a chat model must supply verified traces)."""
    return _load_aime(
        data_dir / "aime" / "aime_1983_2023_memory_bank.jsonl", prefix="aime", benchmark="aime", split="bank",
        extra=lambda row: {
            "group": str(row.get("year")) if row.get("year") is not None else None,
            "metadata": {"year": row.get("year"), "part": row.get("part")},
        },
    )


def load_aime2024(data_dir: Path) -> list[Problem]:
    """AIME 2024 (30 problems, integer answers)."""
    return _load_aime(
        data_dir / "aime" / "aime2024.jsonl", prefix="aime24", benchmark="aime24", split="test",
        extra=lambda row: {"solution": row.get("solution"), "metadata": {"url": row.get("url")}},
    )


# --- the benchmark table -----------------------------------------------------------------------
@dataclass(frozen=True)
class Benchmark:
    """One benchmark: its bank and eval loaders, answer parser and the answer-format instruction."""

    name: str
    answer_kind: AnswerKind
    answer_instruction: str
    load_bank: Callable[[Path], list[Problem]]
    load_eval: Callable[[Path], list[Problem]]
    description: str


def _benchmarks() -> dict[str, Benchmark]:
    return {
        "gsm8k": Benchmark(
            "gsm8k",
            AnswerKind.NUMBER,
            "The final answer is a single number: write it as \\boxed{N}.",
            lambda d: load_gsm8k(d, "train"),
            lambda d: load_gsm8k(d, "test"),
            "GSM8K: bank = train, eval = test",
        ),
        "math500": Benchmark(
            "math500",
            AnswerKind.MATH,
            "Write the final answer in simplest form as \\boxed{...}.",
            load_math_bank,
            load_math500,
            "MATH-500: bank = the 12,000 MATH problems disjoint from MATH-500",
        ),
        "bbh": Benchmark(
            "bbh",
            AnswerKind.BBH,
            "Write the final answer exactly as the task expects it (an option such as (A), True/False, "
            "Yes/No, valid/invalid, a number or a sequence) as \\boxed{...}.",
            lambda d: load_bbh(d, "bank"),
            lambda d: load_bbh(d, "eval"),
            "BBH: a fixed seeded 50/50 split per task",
        ),
        "mmlu-sci": Benchmark(
            "mmlu-sci",
            AnswerKind.MULTIPLE_CHOICE,
            "Answer with the letter of the correct option as \\boxed{X}.",
            lambda d: load_mmlu(d, ("dev", "val")),
            lambda d: load_mmlu(d, ("test",)),
            "MMLU science subjects: bank = dev + val, eval = test",
        ),
        "aime24": Benchmark(
            "aime24",
            AnswerKind.INTEGER,
            "The answer is an integer from 0 to 999: write it as \\boxed{N}.",
            load_aime_bank,
            load_aime2024,
            "AIME 2024: bank = AIME 1983-2023",
        ),
    }


BENCHMARK_NAMES: tuple[str, ...] = ("gsm8k", "math500", "bbh", "mmlu-sci", "aime24")


def get_benchmark(name: str) -> Benchmark:
    """The :class:`Benchmark` called ``name``; :class:`UsageError` for an unknown name."""
    table = _benchmarks()
    if name not in table:
        raise UsageError(f"unknown benchmark {name!r}; one of {', '.join(BENCHMARK_NAMES)}")
    return table[name]
