"""MATH answer equivalence through ``math-verify`` (Hugging Face's checker: LaTeX and plain answers parsed
to sympy, compared as numbers, expressions, intervals, sets and tuples), under a time limit of memdesk's own
that also works off the main thread.

memdesk compared its hand-written normalizer with ``math-verify`` before switching
(``bench/experiments/math_verify_agreement.py``, ``bench/results/experiments/math_verify.json``): the same verdict
on all 597 predictions of the committed reasoning runs, on MATH-500's 500 gold answers against the boxed answer of
their reference solutions (all equal) and on 498 pairs of different problems' answers (all unequal). Of the 38
hand-written cases in ``tests/reasoning/test_scoring.py`` two changed: ``1{,}000`` now equals ``1000`` (LaTeX's
thousands separator, which the old normalizer did not read) and ``0.3333`` no longer equals ``\\frac{1}{3}``
(math-verify rounds to 6 places, where the old check allowed a 1e-4 relative tolerance).
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
from collections.abc import Callable
from typing import Any

from ..errors import ConfigError

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


def _as_math(answer: str) -> str:
    """An answer as math-verify's LaTeX extraction reads it: boxed or in ``$...$``."""
    answer = answer.strip()
    return answer if "\\boxed" in answer or answer.startswith("$") else f"${answer}$"


def _import_math_verify() -> None:
    """Import math-verify (and sympy, antlr) once, outside any time limit (the first import takes seconds)."""
    try:
        import math_verify  # noqa: F401
    except ImportError as e:
        raise ConfigError("MATH answers are checked with math-verify: pip install 'memdesk[eval]'") from e


def _verify(pred: str, gold: str) -> bool:
    from math_verify import parse, verify

    # math-verify's own time limits use SIGALRM (main thread only): off here, run_with_time_limit applies ours
    gold_parsed = parse(_as_math(gold), parsing_timeout=None)
    pred_parsed = parse(_as_math(pred), parsing_timeout=None)
    return bool(verify(gold_parsed, pred_parsed, timeout_seconds=None))


def math_equal(pred: str | None, gold: str, *, timeout_s: float | None = 3.0) -> bool:
    """Whether ``pred`` is the MATH answer ``gold`` (math-verify's verdict); a comparison that runs past
    ``timeout_s`` or fails counts as unequal (None: no limit)."""
    if pred is None or not pred.strip():
        return False
    _import_math_verify()
    try:
        return bool(run_with_time_limit(_verify, (pred, gold), timeout_s))
    except TimeoutError:
        logger.debug("comparison of %r and %r timed out", pred, gold)
        return False
    except Exception as e:  # noqa: BLE001 - a parser raises many types on unusual input
        logger.debug("comparison of %r and %r failed: %s", pred, gold, e)
        return False
