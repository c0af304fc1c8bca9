"""MATH answer equivalence: :func:`normalize_math` (the usual string normalization: units, spaces,
``\\dfrac``/``\\tfrac``, bare fractions and square roots, trailing zeros) and :func:`math_equal`
(normalized strings, then numeric value within a tolerance, then sympy symbolic equality under a
time limit; tuples and intervals part by part)."""

from __future__ import annotations

import logging
import math
import multiprocessing
import re
import signal
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


def match_braces(text: str, start: int) -> int | None:
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
        j = match_braces(s, i + len(token) - 1)
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
            end = match_braces(part, 0)
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
            j = match_braces(s, i + 5)
            if j is None or j + 1 >= len(s) or s[j + 1] != "{":
                raise ValueError("bad \\frac")
            k = match_braces(s, j + 1)
            if k is None:
                raise ValueError("bad \\frac")
            out.append(f"(({_latex_to_python(s[i + 6 : j])})/({_latex_to_python(s[j + 2 : k])}))")
            i = k + 1
            continue
        if s.startswith("\\sqrt[", i):
            j = s.index("]", i)
            if j + 1 >= len(s) or s[j + 1] != "{":
                raise ValueError("bad \\sqrt[]")
            k = match_braces(s, j + 1)
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


def run_with_time_limit(fn: Callable[..., Any], args: tuple[Any, ...], seconds: float | None) -> Any:
    """Run ``fn(*args)`` and return its result, or raise :class:`TimeoutError` after ``seconds``.

    On the main thread of a POSIX process it uses ``SIGALRM`` (no process start); elsewhere it runs
    ``fn`` in a child process that is killed at the limit. ``fn`` must be a module-level function.
    ``seconds=None`` runs ``fn`` here without a limit.
    """
    if seconds is None:
        return fn(*args)
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


def math_equal(pred: str | None, gold: str, *, tol: float = 1e-4, timeout_s: float | None = 3.0) -> bool:
    """MATH answer equivalence: normalized strings, then numbers within ``tol`` (relative), then
    element-wise for tuples/intervals/sets/lists, then sympy symbolic equality under ``timeout_s``
    (a runaway comparison counts as unequal; None: no limit)."""
    if pred is None:
        return False
    a, b = normalize_math(pred), normalize_math(gold)
    if not a:
        return False
    return _equal_normalized(a, b, tol, timeout_s)


def _equal_normalized(a: str, b: str, tol: float, timeout_s: float | None) -> bool:
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


def _unordered_equal(xs: list[str], ys: list[str], tol: float, timeout_s: float | None) -> bool:
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
