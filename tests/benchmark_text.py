"""Find benchmark text inside the package: runs of words shared by ``src/`` and the evaluation data.

A text is reduced to its lower-cased runs of letters and digits outside markup tags; two texts share a run of ``n``
words when the same ``n`` consecutive words occur in both. The package side (every text file under
``src/memdesk``, package data included) is cut into all its ``n``-word windows once; each benchmark
item is then checked window by window against that set, so memory stays small however large the
data is.

The benchmark items read here are the conversation turns of LoCoMo and LongMemEval and the problems
of GSM8K, MATH, BBH, MMLU and AIME, from the shared data folder (``../shared/data``); a missing file
is skipped.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")
# Markup is not prose: an HTML page's boilerplate (doctype, head, meta charset) is shared by every
# page, the browser's templates and a chat turn that pastes a web page alike.
_TAG = re.compile(r"<[!/?]?[A-Za-z][^<>]{0,2000}>")
TEXT_SUFFIXES = {".py", ".txt", ".json", ".md", ".toml", ".cfg", ".yaml", ".yml", ".html", ".css", ".js", ".sql", ".jinja"}


def words(text: str) -> list[str]:
    return _WORD.findall(_TAG.sub(" ", text).lower())


def windows(tokens: list[str], n: int) -> Iterator[str]:
    for i in range(len(tokens) - n + 1):
        yield " ".join(tokens[i : i + n])


def package_text(path: Path) -> str:
    """The text of one package file that could hold prose: for Python, its string literals and
    comments only (identifiers and keywords are code, not quoted text); other files whole."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text
    parts: list[str] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.STRING, tokenize.COMMENT) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                parts.append(tok.string)
            else:
                parts.append("\n")  # code between two strings breaks a run
    except (tokenize.TokenError, SyntaxError):
        return text
    return " ".join(parts)


@dataclass(frozen=True)
class Hit:
    source: str  # benchmark and item, e.g. "locomo conv-26 D1:3"
    run: str  # the shared words
    files: tuple[str, ...]


class PackageText:
    """Every ``n``-word window of the text files under ``root``, indexed for fast lookup.

    Words become integer ids (a word the package never uses is -1, and no window holding one can
    match); each window gets a polynomial hash, and only windows whose hash the package has are
    compared as strings.
    """

    def __init__(self, root: Path, n: int) -> None:
        self.n = n
        self.files: dict[str, set[str]] = {}
        for path in sorted(root.rglob("*")):
            if not path.is_file() or path.suffix not in TEXT_SUFFIXES or "__pycache__" in path.parts:
                continue
            try:
                text = package_text(path)
            except UnicodeDecodeError:
                continue
            for chunk in text.split("\n") if path.suffix == ".py" else [text]:
                for w in windows(words(chunk), n):
                    self.files.setdefault(w, set()).add(str(path.relative_to(root)))
        self.vocab: dict[str, int] = {}
        for w in self.files:
            for t in w.split(" "):
                self.vocab.setdefault(t, len(self.vocab))
        self.inverse = {i: t for t, i in self.vocab.items()}
        arr, _ = self._encode([w.split(" ") for w in self.files])
        self.hashes = np.unique(self._hash(arr)[self._clean(arr)])

    def _encode(self, token_lists: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
        """The ids of all lists, each followed by -1 (no window crosses two lists), and the list
        each position belongs to."""
        get = self.vocab.get
        ids = [i for toks in token_lists for i in (*[get(t, -1) for t in toks], -1)]
        owner = np.repeat(np.arange(len(token_lists)), [len(t) + 1 for t in token_lists])
        return np.asarray(ids, dtype=np.int64), owner

    def _clean(self, arr: np.ndarray) -> np.ndarray:
        """Which windows hold package words only."""
        unknown = np.concatenate([[0], np.cumsum(arr < 0)])
        return (unknown[self.n :] - unknown[: -self.n]) == 0

    def _hash(self, arr: np.ndarray) -> np.ndarray:
        """A polynomial hash of every ``n``-window of ``arr`` (uint64, wrapping)."""
        m = len(arr) - self.n + 1
        if m <= 0:
            return np.zeros(0, dtype=np.uint64)
        u = np.where(arr < 0, 0, arr + 1).astype(np.uint64)
        h = np.zeros(m, dtype=np.uint64)
        with np.errstate(over="ignore"):
            for j in range(self.n):
                h = h * np.uint64(1_000_003) + u[j : j + m]
        return h

    def find(self, items: Iterable[tuple[str, str]]) -> list[Hit]:
        """The (source, text) items that share an ``n``-word run with the package (one hit per item)."""
        labels: list[str] = []
        token_lists: list[list[str]] = []
        for source, text in items:
            labels.append(source)
            token_lists.append(words(text))
        arr, owner = self._encode(token_lists)
        if len(arr) < self.n:
            return []
        candidates = np.flatnonzero(self._clean(arr) & np.isin(self._hash(arr), self.hashes))
        hits: list[Hit] = []
        seen: set[int] = set()
        for pos in candidates.tolist():
            k = int(owner[pos])
            run = " ".join(self.inverse[int(i)] for i in arr[pos : pos + self.n])
            if k not in seen and run in self.files:
                seen.add(k)
                hits.append(Hit(labels[k], run, tuple(sorted(self.files[run]))))
        return hits


# --- benchmark items --------------------------------------------------------------------------------
def locomo_turns(data: Path) -> Iterator[tuple[str, str]]:
    path = data / "locomo" / "locomo_dev5.json"
    if not path.exists():
        return
    for sample in json.loads(path.read_text(encoding="utf-8")):
        conv = sample["conversation"]
        for key, turns in conv.items():
            if key.startswith("session_") and isinstance(turns, list):
                for t in turns:
                    yield f"locomo {sample['sample_id']} {t.get('dia_id')}", str(t.get("text") or "")
                    if t.get("blip_caption"):
                        yield f"locomo {sample['sample_id']} {t.get('dia_id')} caption", str(t["blip_caption"])
        for i, qa in enumerate(sample.get("qa") or []):
            yield f"locomo {sample['sample_id']} qa {i}", str(qa.get("question") or "")


def longmemeval_turns(data: Path) -> Iterator[tuple[str, str]]:
    path = data / "longmemeval" / "longmemeval_s_dev.json.gz"
    if not path.exists():
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        items = json.load(f)
    seen: set[str] = set()
    for item in items:
        yield f"longmemeval {item['question_id']} question", str(item.get("question") or "")
        for sid, session in zip(item["haystack_session_ids"], item["haystack_sessions"]):
            if sid in seen:
                continue
            seen.add(sid)
            for i, turn in enumerate(session):
                yield f"longmemeval {sid}:{i}", str(turn.get("content") or "")


def _jsonl(path: Path, field: str, label: str) -> Iterator[tuple[str, str]]:
    if not path.exists():
        return
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f):
            if line.strip():
                yield f"{label} #{i}", str(json.loads(line).get(field) or "")


def reasoning_items(data: Path) -> Iterator[tuple[str, str]]:
    for split in ("train", "test"):
        yield from _jsonl(data / "gsm8k" / f"{split}.jsonl", "question", f"gsm8k {split}")
    yield from _jsonl(data / "math500" / "test.jsonl", "problem", "math500")
    yield from _jsonl(data / "math" / "bank_disjoint_from_math500.jsonl", "problem", "math bank")
    yield from _jsonl(data / "aime" / "aime2024.jsonl", "problem", "aime2024")
    yield from _jsonl(data / "aime" / "aime_1983_2023_memory_bank.jsonl", "problem", "aime bank")
    bbh = data / "bbh" / "bbh"
    if bbh.is_dir():
        for path in sorted(bbh.glob("*.json")):
            for i, ex in enumerate(json.loads(path.read_text(encoding="utf-8")).get("examples", [])):
                yield f"bbh {path.stem} #{i}", str(ex.get("input") or "")
    prompts = data / "bbh" / "cot-prompts"
    if prompts.is_dir():
        for path in sorted(prompts.glob("*.txt")):
            yield f"bbh cot-prompt {path.stem}", path.read_text(encoding="utf-8")
    mmlu = data / "mmlu"
    for split in ("test", "dev", "val"):
        folder = mmlu / split
        if folder.is_dir():
            for path in sorted(folder.glob("*.csv")):
                with open(path, encoding="utf-8", newline="") as f:
                    for i, row in enumerate(csv.reader(f)):
                        if row:
                            yield f"mmlu {path.stem} #{i}", row[0]
