"""Final-answer extraction and comparison for the reasoning benchmarks.

The paper's protocol: take the final answer from the last ``\\boxed{}`` when there is a valid one,
otherwise apply the benchmark's own parser (GSM8K number, multiple-choice letter, BBH target,
AIME integer). MATH answers are compared by :func:`math_equal` (math-verify, under a time limit).
"""

from __future__ import annotations

import logging
import math
import re
from typing import Literal

from pydantic import BaseModel

from .problems import AnswerKind
from .math_answers import match_braces, math_equal

logger = logging.getLogger(__name__)

Extraction = Literal["boxed", "parser", "none"]


class ScoredAnswer(BaseModel):
    """The extracted prediction, whether it matches the gold answer, and how it was extracted."""

    prediction: str | None
    correct: bool
    extraction: Extraction


# --- \boxed{} ----------------------------------------------------------------------------------
_BOX = re.compile(r"\\(?:boxed|fbox)")


def last_boxed(text: str) -> str | None:
    """The content of the last complete ``\\boxed{...}`` (or ``\\fbox{...}``, or ``\\boxed 5``).

    Braces are matched, so nested braces survive; a truncated (unclosed) last box is skipped in
    favour of the previous complete one. Returns None when there is no complete box.
    """
    for m in reversed(list(_BOX.finditer(text))):
        i = m.end()
        while i < len(text) and text[i] == " ":
            i += 1
        if i < len(text) and text[i] == "{":
            end = match_braces(text, i)
            if end is not None:
                return text[i + 1 : end].strip()
        elif i > m.end():  # "\boxed 5": up to the next whitespace or '$'
            token = re.match(r"[^\s$]+", text[i:])
            if token:
                return token.group(0).rstrip(".")
    return None


# --- numbers -----------------------------------------------------------------------------------
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


def _clean_number(s: str) -> str | None:
    s = s.replace(",", "").replace("$", "").strip()
    if not s:
        return None
    try:
        value = float(s)
    except ValueError:
        return None
    if math.isfinite(value) and value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def extract_number(text: str) -> str | None:
    """GSM8K parser: the number after '####' or 'answer is', else the last number in the text."""
    for pattern in (r"####\s*\$?\s*(-?[\d,]*\.?\d+)", r"answer is[:\s]*\$?\s*(-?[\d,]*\.?\d+)"):
        found = re.findall(pattern, text, flags=re.IGNORECASE)
        if found:
            return _clean_number(found[-1])
    nums = _NUMBER.findall(text)
    return _clean_number(nums[-1]) if nums else None


def number_equal(pred: str | None, gold: str, tol: float = 1e-6) -> bool:
    """Numeric equality of two number strings (commas, '$' and trailing '.0' ignored)."""
    if pred is None:
        return False
    a, b = _clean_number(pred), _clean_number(gold)
    if a is None or b is None:
        return False
    return math.isclose(float(a), float(b), rel_tol=tol, abs_tol=tol)


# --- multiple choice ---------------------------------------------------------------------------
def extract_choice(text: str, letters: str = "ABCD") -> str | None:
    """Multiple-choice parser: 'answer is (B)', 'Answer: B', then the last '(B)', then a lone letter."""
    cls = f"[{letters}]"
    patterns = (
        rf"answer\s*(?:is|:)?\s*(?:option\s*)?\(?({cls})\)?(?![A-Za-z])",
        rf"\(({cls})\)",
        rf"(?<![A-Za-z])({cls})(?![A-Za-z])",
    )
    for pattern in patterns:
        found = re.findall(pattern, text, flags=re.IGNORECASE if pattern is patterns[0] else 0)
        if found:
            return found[-1].upper()
    return None


def _choice_from_boxed(boxed: str, letters: str = "ABCD") -> str | None:
    inner = re.sub(r"\\text\{([^{}]*)\}", r"\1", boxed).strip()
    m = re.match(rf"^\(?([{letters}])\)?(?:[\s.:)]|$)", inner)
    return m.group(1) if m else None


# --- BBH ---------------------------------------------------------------------------------------
def normalize_bbh(s: str) -> str:
    """BBH answers compared case-insensitively, whitespace collapsed, a trailing period dropped,
    '\\text{}' unwrapped and an option '(B)' reduced to 'b'."""
    s = re.sub(r"\\text\{([^{}]*)\}", r"\1", s).replace("\\{", "{").replace("\\}", "}")
    s = " ".join(s.strip().split()).rstrip(".").strip().lower()
    m = re.fullmatch(r"\(?([a-r])\)?(?:\s.*)?", s)
    if m and (s.startswith("(") or len(s) == 1):
        return m.group(1)
    return s


def extract_bbh(text: str) -> str | None:
    """BBH parser: what follows the last 'the answer is', else the last non-empty line."""
    found = re.findall(r"the answer is\s*:?\s*(.+?)(?:\.\s*$|\.\s*\n|\n|$)", text, flags=re.IGNORECASE)
    if found:
        return found[-1].strip()
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else None


def bbh_equal(pred: str | None, gold: str) -> bool:
    """BBH equality: normalized strings, or equal numbers for the numeric tasks."""
    if pred is None:
        return False
    a, b = normalize_bbh(pred), normalize_bbh(gold)
    if a == b:
        return True
    if re.fullmatch(r"-?\d+(?:\.\d+)?", b):
        return number_equal(a, b)
    return False


# --- AIME --------------------------------------------------------------------------------------
def extract_integer(text: str) -> str | None:
    """AIME parser: the last integer in the text (leading zeros dropped)."""
    found = re.findall(r"(?<![\d.])-?\d+(?![\d.]*\d)", text.replace(",", ""))
    return str(int(found[-1])) if found else None


def integer_equal(pred: str | None, gold: str) -> bool:
    if pred is None:
        return False
    try:
        return int(pred.strip()) == int(gold.strip())
    except ValueError:
        return False


# --- MATH normalization --------------------------------------------------------------------------
def score_answer(kind: AnswerKind, output: str, gold: str, *, timeout_s: float | None = 3.0) -> ScoredAnswer:
    """Extract the final answer from a model ``output`` and compare it with ``gold``.

    The last complete ``\\boxed{}`` wins when it yields a valid answer for the benchmark; otherwise
    the benchmark's parser reads the whole output.
    """
    boxed = last_boxed(output)
    kind = AnswerKind(kind)
    if kind is AnswerKind.MATH:
        if boxed:
            return ScoredAnswer(prediction=boxed, correct=math_equal(boxed, gold, timeout_s=timeout_s), extraction="boxed")
        m = re.findall(r"answer is[:\s]*\$?([^\n$]+?)\$?\.?\s*(?:\n|$)", output, flags=re.IGNORECASE)
        pred = m[-1].strip() if m else None
        return _result(pred, math_equal(pred, gold, timeout_s=timeout_s))
    if kind is AnswerKind.NUMBER:
        if boxed and (num := extract_number(boxed)) is not None:
            return ScoredAnswer(prediction=num, correct=number_equal(num, gold), extraction="boxed")
        pred = extract_number(output)
        return _result(pred, number_equal(pred, gold))
    if kind is AnswerKind.MULTIPLE_CHOICE:
        if boxed and (letter := _choice_from_boxed(boxed)) is not None:
            return ScoredAnswer(prediction=letter, correct=letter == gold.strip().upper(), extraction="boxed")
        pred = extract_choice(output)
        return _result(pred, pred == gold.strip().upper())
    if kind is AnswerKind.INTEGER:
        if boxed and re.fullmatch(r"\s*-?\d+\s*", boxed.replace(",", "")):
            pred = str(int(boxed.replace(",", "")))
            return ScoredAnswer(prediction=pred, correct=integer_equal(pred, gold), extraction="boxed")
        pred = extract_integer(output)
        return _result(pred, integer_equal(pred, gold))
    if boxed:
        return ScoredAnswer(prediction=boxed, correct=bbh_equal(boxed, gold), extraction="boxed")
    pred = extract_bbh(output)
    return _result(pred, bbh_equal(pred, gold))


def _result(pred: str | None, correct: bool) -> ScoredAnswer:
    return ScoredAnswer(prediction=pred, correct=correct, extraction="parser" if pred is not None else "none")
