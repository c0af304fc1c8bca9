"""Final-answer extraction and comparison for the reasoning benchmarks.

The paper's protocol: take the final answer from the last ``\\boxed{}`` when there is a valid one,
otherwise apply the benchmark's own parser (GSM8K number, multiple-choice letter, BBH target,
AIME integer). MATH answers are compared by :func:`math_equal`: normalized strings, then numeric
value within a tolerance, then sympy symbolic equality under a time limit.
"""

from __future__ import annotations

import logging
import math
import multiprocessing
import re
import signal
import threading
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from .datasets import AnswerKind

logger = logging.getLogger(__name__)

Extraction = Literal["boxed", "parser", "none"]


class ScoredAnswer(BaseModel):
    """The extracted prediction, whether it matches the gold answer, and how it was extracted."""

    prediction: str | None
    correct: bool
    extraction: Extraction


# --- \boxed{} ----------------------------------------------------------------------------------
_BOX = re.compile(r"\\(?:boxed|fbox)")


def _match_braces(text: str, start: int) -> int | None:
    """Index of the ``}`` closing the ``{`` at ``start`` (escaped ``\\{ \\}`` do not count)."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


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
            end = _match_braces(text, i)
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
_UNIT_WORDS = (
    "degrees|degree|cm|centimeters|meters|meter|m|km|inches|inch|in|feet|foot|ft|units|unit|sq|square|"
    "dollars|dollar|cents|cent|mph|hours|hour|minutes|minute|seconds|second|days|day|pounds|lbs|"
    "miles|mile|grams|gram|kg|liters|ml|years|year|people|students|ways|percent|points|tiles|coins"
)


def _unwrap_command(s: str, command: str) -> str:
    """Replace every ``\\command{X}`` by ``X`` (brace-matched)."""
    token = "\\" + command + "{"
    while True:
        i = s.find(token)
        if i < 0:
            return s
        j = _match_braces(s, i + len(token) - 1)
        if j is None:
            return s
        s = s[:i] + s[i + len(token) : j] + s[j + 1 :]


def _fix_fracs(s: str) -> str:
    """``\\frac12`` -> ``\\frac{1}{2}``, ``\\frac1b`` -> ``\\frac{1}{b}``, ``\\frac{1}2`` -> ``\\frac{1}{2}``."""
    parts = s.split("\\frac")
    out = parts[0]
    for part in parts[1:]:
        out += "\\frac"
        if not part:
            continue
        if part[0] == "{":
            end = _match_braces(part, 0)
            if end is None:
                out += part
                continue
            num, rest = part[: end + 1], part[end + 1 :]
            if rest and rest[0] != "{":
                out += num + "{" + rest[0] + "}" + rest[1:]
            else:
                out += part
        elif len(part) >= 2:
            a, b, rest = part[0], part[1], part[2:]
            if b == "{":
                out += "{" + a + "}" + b + rest
            else:
                out += "{" + a + "}{" + b + "}" + rest
        else:
            out += part
    return out


def _fix_sqrt(s: str) -> str:
    """``\\sqrt2`` -> ``\\sqrt{2}``."""
    return re.sub(r"\\sqrt(?![{\[])\s*(\w)", r"\\sqrt{\1}", s)


def _slash_to_frac(s: str) -> str:
    """``a/b`` with integer a, b (the whole string) -> ``\\frac{a}{b}``."""
    m = re.fullmatch(r"(-?\d+)/(\d+)", s)
    if m:
        sign = "-" if m.group(1).startswith("-") else ""
        return f"{sign}\\frac{{{m.group(1).lstrip('-')}}}{{{m.group(2)}}}"
    return s


def normalize_math(answer: str) -> str:
    """A MATH answer in canonical string form (after Hendrycks et al.'s ``strip_string``, extended).

    Removes spacing commands, ``\\left``/``\\right``, dollars, degrees, percent signs, ``\\text{}``
    units and a leading ``x =``; turns ``\\dfrac``/``\\tfrac`` into ``\\frac``, ``\\frac12`` into
    ``\\frac{1}{2}``, ``\\sqrt2`` into ``\\sqrt{2}``, ``1/2`` into ``\\frac{1}{2}``, ``.5`` into
    ``0.5`` and ``1,000`` into ``1000``; drops spaces and a trailing period.
    """
    s = answer.strip()
    s = s.replace("\n", "").replace("\\!", "")
    s = re.sub(r"\\[,;:> ]", " ", s)
    s = s.replace("\\\\", "\\").replace("\\displaystyle", "")
    s = s.replace("tfrac", "frac").replace("dfrac", "frac")
    s = s.replace("\\left", "").replace("\\right", "")
    s = re.sub(r"\\(?:big|Big|bigg|Bigg)[lr]?", "", s)
    s = s.replace("^{\\circ}", "").replace("^\\circ", "").replace("°", "").replace("\\degree", "")
    s = s.replace("\\$", "").replace("$", "")
    s = s.replace("\\%", "").replace("%", "")
    # units written as text after a value: "10\text{ cm}", "5 \mbox{ inches}"
    s = re.sub(r"(\d)\s*\\(?:text|mbox|mathrm)\{\s*(?:" + _UNIT_WORDS + r")(?:\^?\{?\d\}?)?\s*\}", r"\1", s)
    for command in ("text", "textbf", "mbox", "mathrm", "mathbf", "boxed", "operatorname"):
        s = _unwrap_command(s, command)
    s = re.sub(r"(\d)\s+(?:" + _UNIT_WORDS + r")(?:\^?\d)?\s*$", r"\1", s)
    s = s.strip()
    s = re.sub(r"\.$", "", s)
    # a leading "x =" / "k=": keep the right-hand side
    if re.match(r"^[a-zA-Z]\w{0,2}\s*=", s) and s.count("=") == 1:
        s = s.split("=", 1)[1]
    s = _fix_sqrt(s)
    s = s.replace(" ", "")
    s = _fix_fracs(s)
    if re.fullmatch(r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?", s):
        s = s.replace(",", "")
    s = re.sub(r"(?<![\d])\.(\d)", r"0.\1", s)
    if re.fullmatch(r"-?\d+\.0+", s):
        s = s.split(".")[0]
    s = _slash_to_frac(s)
    return s


# --- LaTeX -> sympy ------------------------------------------------------------------------------
_FUNCS = {
    "sqrt": "sqrt",
    "sin": "sin",
    "cos": "cos",
    "tan": "tan",
    "cot": "cot",
    "sec": "sec",
    "csc": "csc",
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "ln": "log",
    "log": "log",
    "exp": "exp",
}
_CONSTS = {"pi": "pi", "infty": "oo", "cdot": "*", "times": "*", "div": "/", "theta": "theta", "alpha": "alpha"}
_COMMAND = re.compile(r"\\(" + "|".join(sorted(list(_FUNCS) + list(_CONSTS) + ["frac", "sqrt"], key=len, reverse=True)) + ")")


def _latex_to_python(s: str) -> str:
    """A LaTeX expression (already :func:`normalize_math`-ed) as a sympy-parsable Python string."""
    out: list[str] = []
    i = 0
    while i < len(s):
        if s.startswith("\\frac{", i):
            j = _match_braces(s, i + 5)
            if j is None or j + 1 >= len(s) or s[j + 1] != "{":
                raise ValueError("bad \\frac")
            k = _match_braces(s, j + 1)
            if k is None:
                raise ValueError("bad \\frac")
            out.append(f"(({_latex_to_python(s[i + 6 : j])})/({_latex_to_python(s[j + 2 : k])}))")
            i = k + 1
            continue
        if s.startswith("\\sqrt[", i):
            j = s.index("]", i)
            if j + 1 >= len(s) or s[j + 1] != "{":
                raise ValueError("bad \\sqrt[]")
            k = _match_braces(s, j + 1)
            if k is None:
                raise ValueError("bad \\sqrt")
            n = _latex_to_python(s[i + 6 : j])
            out.append(f"(({_latex_to_python(s[j + 2 : k])})**(1/({n})))")
            i = k + 1
            continue
        if s[i] == "\\":
            m = _COMMAND.match(s, i)
            if not m:
                raise ValueError(f"unsupported command at {s[i:i + 12]!r}")
            name = m.group(1)
            out.append(" " + (_FUNCS.get(name) or _CONSTS[name]) + " ")
            i = m.end()
            continue
        if s[i] == "^":
            out.append("**")
            i += 1
            continue
        if s[i] in "{[":
            out.append("(")
            i += 1
            continue
        if s[i] in "}]":
            out.append(")")
            i += 1
            continue
        out.append(s[i])
        i += 1
    return "".join(out)


def _to_sympy(latex: str) -> Any:
    import sympy
    from sympy.parsing.sympy_parser import (
        convert_xor,
        implicit_multiplication_application,
        parse_expr,
        standard_transformations,
    )

    code = _latex_to_python(latex)
    if re.search(r"[=<>;]|__|lambda|import", code):
        raise ValueError("not an expression")
    local = {"i": sympy.I, "e": sympy.E, "pi": sympy.pi, "oo": sympy.oo}
    transformations = standard_transformations + (implicit_multiplication_application, convert_xor)
    return parse_expr(code, local_dict=local, transformations=transformations, evaluate=True)


def _import_sympy() -> None:
    import sympy
    import sympy.parsing.sympy_parser  # noqa: F401


def _symbolic_equal(a: str, b: str) -> bool:
    import sympy

    x, y = _to_sympy(a), _to_sympy(b)
    diff = sympy.simplify(x - y)
    if diff == 0:
        return True
    try:
        return bool(abs(complex(sympy.N(diff))) < 1e-9)
    except (TypeError, ValueError):
        return False


def _numeric_value(s: str) -> float | None:
    """The value of a plain number, ``\\frac{a}{b}`` of numbers, or a percentage-free decimal."""
    if re.fullmatch(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", s):
        return float(s)
    m = re.fullmatch(r"(-?)\\frac\{(-?\d+(?:\.\d+)?)\}\{(-?\d+(?:\.\d+)?)\}", s)
    if m and float(m.group(3)) != 0:
        value = float(m.group(2)) / float(m.group(3))
        return -value if m.group(1) else value
    return None


def _split_top_level(s: str) -> list[str]:
    """Split on commas that are not inside braces, brackets or parentheses."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in s:
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _bracketed(s: str) -> tuple[str, str, str] | None:
    """(open, inner, close) when ``s`` is one (...)/[...]/{...}-style group (tuple, interval, set)."""
    if s.startswith("\\{") and s.endswith("\\}"):
        return "{", s[2:-2], "}"
    if len(s) >= 2 and s[0] in "([" and s[-1] in ")]":
        depth = 0
        for idx, ch in enumerate(s):
            depth += ch in "([{"
            depth -= ch in ")]}"
            if depth == 0 and idx < len(s) - 1:
                return None
        return s[0], s[1:-1], s[-1]
    return None


def run_with_time_limit(fn: Callable[..., Any], args: tuple[Any, ...], seconds: float) -> Any:
    """Run ``fn(*args)`` and return its result, or raise :class:`TimeoutError` after ``seconds``.

    On the main thread of a POSIX process it uses ``SIGALRM`` (no process start); elsewhere it runs
    ``fn`` in a child process that is killed at the limit. ``fn`` must be a module-level function.
    """
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):

        def _alarm(signum: int, frame: Any) -> None:
            raise TimeoutError(f"{fn.__name__} took longer than {seconds} s")

        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return fn(*args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ctx.Pool(1) as pool:
        result = pool.apply_async(fn, args)
        try:
            return result.get(timeout=seconds)
        except multiprocessing.TimeoutError as e:
            pool.terminate()
            raise TimeoutError(f"{fn.__name__} took longer than {seconds} s") from e


def math_equal(pred: str | None, gold: str, *, tol: float = 1e-4, timeout_s: float = 3.0) -> bool:
    """MATH answer equivalence: normalized strings, then numbers within ``tol`` (relative), then
    element-wise for tuples/intervals/sets/lists, then sympy symbolic equality under ``timeout_s``."""
    if pred is None:
        return False
    a, b = normalize_math(pred), normalize_math(gold)
    if not a:
        return False
    return _equal_normalized(a, b, tol, timeout_s)


def _equal_normalized(a: str, b: str, tol: float, timeout_s: float) -> bool:
    if a == b:
        return True
    va, vb = _numeric_value(a), _numeric_value(b)
    if va is not None and vb is not None:
        return math.isclose(va, vb, rel_tol=tol, abs_tol=1e-9)
    ga, gb = _bracketed(a), _bracketed(b)
    if ga and gb:
        if (ga[0], ga[2]) != (gb[0], gb[2]):
            return False
        xs, ys = _split_top_level(ga[1]), _split_top_level(gb[1])
        if len(xs) != len(ys):
            return False
        if ga[0] == "{":  # a set: order does not matter
            return _unordered_equal(xs, ys, tol, timeout_s)
        return all(_equal_normalized(x, y, tol, timeout_s) for x, y in zip(xs, ys))
    xs, ys = _split_top_level(a), _split_top_level(b)
    if len(xs) != len(ys):
        return False
    if len(xs) > 1:  # a list of solutions "2, -3": order does not matter
        return _unordered_equal(xs, ys, tol, timeout_s)
    if ga or gb:
        return False
    _import_sympy()  # the first import takes seconds: never inside the time limit
    try:
        return bool(run_with_time_limit(_symbolic_equal, (a, b), timeout_s))
    except TimeoutError:
        logger.debug("symbolic comparison of %r and %r timed out", a, b)
        return False
    except Exception as e:  # noqa: BLE001 - sympy raises many types on unparsable input
        logger.debug("symbolic comparison of %r and %r failed: %s", a, b, e)
        return False


def _unordered_equal(xs: list[str], ys: list[str], tol: float, timeout_s: float) -> bool:
    remaining = list(ys)
    for x in xs:
        for j, y in enumerate(remaining):
            if _equal_normalized(x, y, tol, timeout_s):
                del remaining[j]
                break
        else:
            return False
    return True


# --- one entry point ---------------------------------------------------------------------------
def score_answer(kind: AnswerKind, output: str, gold: str, *, timeout_s: float = 3.0) -> ScoredAnswer:
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
