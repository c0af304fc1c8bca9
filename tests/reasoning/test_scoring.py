"""Answer extraction and math equivalence on a table of tricky cases."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.reasoning.datasets import AnswerKind
from memdesk.reasoning import math_answers
from memdesk.reasoning.math_answers import math_equal, run_with_time_limit
from memdesk.reasoning.scoring import (
    bbh_equal,
    extract_choice,
    extract_integer,
    extract_number,
    last_boxed,
    score_answer,
)

BOXED_CASES = [
    ("so \\boxed{5}.", "5"),
    ("first \\boxed{1} then \\boxed{2}", "2"),
    ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
    ("\\boxed{\\left( 2, \\frac{\\pi}{3} \\right)}", "\\left( 2, \\frac{\\pi}{3} \\right)"),
    ("\\boxed{\\{1, 2\\}}", "\\{1, 2\\}"),
    ("nested \\boxed{a^{b^{c}}} end", "a^{b^{c}}"),
    ("$\\boxed 7$", "7"),
    ("\\fbox{42}", "42"),
    ("ok \\boxed{3} then truncated \\boxed{\\frac{1}{", "3"),
    ("no box here, answer is 12", None),
]


@pytest.mark.parametrize("text,expected", BOXED_CASES)
def test_last_boxed(text: str, expected: str | None) -> None:
    assert last_boxed(text) == expected


# (prediction, gold, equal?)
MATH_CASES = [
    ("\\frac{1}{2}", "1/2", True),
    ("\\dfrac{1}{2}", "\\frac12", True),
    ("\\tfrac{3}{4}", "0.75", True),
    ("0.5", "\\frac{1}{2}", True),
    (".5", "\\frac{1}{2}", True),
    ("30^\\circ", "30", True),
    ("30^{\\circ}", "30", True),
    ("10\\text{ cm}", "10", True),
    ("5 \\text{ inches}", "5", True),
    ("\\$18.90", "18.90", True),
    ("1,000", "1000", True),
    ("1{,}000", "1000", True),  # a LaTeX thousands separator (math-verify reads it)
    ("50\\%", "50", True),
    ("x = 5", "5", True),
    ("\\sqrt2", "\\sqrt{2}", True),
    ("\\frac{\\sqrt{2}}{2}", "\\frac{1}{\\sqrt{2}}", True),
    ("\\sqrt{8}", "2\\sqrt{2}", True),
    ("2\\pi", "\\pi \\cdot 2", True),
    ("\\frac{\\pi}{2}", "\\pi/2", True),
    ("(-\\infty, 3]", "(-\\infty,3]", True),
    ("(-\\infty, 3)", "(-\\infty, 3]", False),
    ("[1, 2)", "[1,2)", True),
    ("(3, \\frac{\\pi}{2})", "\\left( 3, \\frac{\\pi}{2} \\right)", True),
    ("(1, 2)", "(2, 1)", False),
    ("\\{2, 1\\}", "\\{1, 2\\}", True),
    ("2, -3", "-3, 2", True),
    ("8+4i", "4i+8", True),
    ("x^2+2x+1", "(x+1)^2", True),
    ("\\frac{2}{4}", "\\frac{1}{2}", True),
    ("0.3333", "\\frac{1}{3}", False),  # math-verify rounds to 6 places
    ("0.333333", "\\frac{1}{3}", True),
    ("0.33", "\\frac{1}{3}", False),
    ("\\text{(C)}", "(C)", True),
    ("\\textbf{Evelyn}", "\\text{Evelyn}", True),
    ("3", "4", False),
    ("\\frac{1}{3}", "\\frac{1}{4}", False),
    ("", "0", False),
    ("\\sqrt[3]{8}", "2", True),
    ("-\\frac{1}{2}", "-0.5", True),
]


@pytest.mark.parametrize("pred,gold,equal", MATH_CASES)
def test_math_equal(pred: str, gold: str, equal: bool) -> None:
    # no time limit: a loaded machine must not turn a slow sympy proof into "unequal"
    assert math_equal(pred, gold, timeout_s=None) is equal
    assert math_equal(gold, pred, timeout_s=None) is equal


def _never_returns(*_: object) -> bool:
    """Blocks far past any limit the tests set (bounded, so a broken limit fails instead of hanging)."""
    threading.Event().wait(120)
    return True


def _double(x: int) -> int:
    return 2 * x


def test_the_time_limit_stops_a_comparison_that_never_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    # whatever the machine's speed, a comparison that never returns is cut off and counts as unequal
    monkeypatch.setattr(math_answers, "_verify", _never_returns)
    assert math_equal("x^2+2x+1", "(x+1)^2", timeout_s=0.2) is False
    with pytest.raises(TimeoutError):
        run_with_time_limit(_never_returns, (), 0.2)


def test_off_the_main_thread_the_limit_runs_in_a_child_process() -> None:
    out: list[object] = []

    def work() -> None:
        out.append(run_with_time_limit(_double, (21,), 600))  # a generous limit: only the result matters
        try:
            run_with_time_limit(_never_returns, (), 0.2)
        except TimeoutError:
            out.append("timed out")

    t = threading.Thread(target=work)
    t.start()
    t.join(600)
    assert out == [42, "timed out"]


@given(st.integers(min_value=-10**6, max_value=10**6), st.integers(min_value=1, max_value=999))
def test_fraction_equals_its_decimal(n: int, d: int) -> None:
    assert math_equal(f"\\frac{{{n}}}{{{d}}}", repr(n / d))


NUMBER_CASES = [
    ("She earns $10 per hour... #### 1,200", "1200", True),
    ("The answer is 72.", "72", True),
    ("so 3 + 4 = 7 and total is 18.00", "18", True),
    ("\\boxed{\\$1,234}", "1234", True),
    ("\\boxed{5}", "6", False),
    ("the result is -3", "-3", True),
]


@pytest.mark.parametrize("output,gold,correct", NUMBER_CASES)
def test_gsm8k_numbers(output: str, gold: str, correct: bool) -> None:
    assert score_answer(AnswerKind.NUMBER, output, gold).correct is correct


def test_extract_number_prefers_marked_answer() -> None:
    assert extract_number("step 1: 5 apples. The answer is 12. Check: 3 items") == "12"
    assert extract_number("no digits") is None


CHOICE_CASES = [
    ("The answer is (B).", "B"),
    ("Answer: C", "C"),
    ("I think (A) is wrong, so (D)", "D"),
    ("\\boxed{B}", "B"),
    ("\\boxed{(C) 12 m/s}", "C"),
    ("\\boxed{\\text{A}}", "A"),
]


@pytest.mark.parametrize("output,letter", CHOICE_CASES)
def test_multiple_choice(output: str, letter: str) -> None:
    scored = score_answer(AnswerKind.MULTIPLE_CHOICE, output, letter)
    assert scored.prediction == letter and scored.correct


def test_extract_choice_none_without_letters() -> None:
    assert extract_choice("no option named here, 42") is None


BBH_CASES = [
    ("Let's think. So the answer is (B).", "(B)", True),
    ("\\boxed{B}", "(B)", True),
    ("\\boxed{(A)}", "(B)", False),
    ("So the answer is True.", "True", True),
    ("So the answer is valid.", "invalid", False),
    ("So the answer is Yes.", "Yes", True),
    ("\\boxed{\\} ]}", "} ]", True),  # an escaped brace inside the box
    ("\\boxed{) ] }}", ") ] }", False),  # a bare '}' closes the box early: the parser cannot know
    ("So the answer is ) ].", ") ]", True),
    ("So the answer is apple banana cherry.", "apple banana cherry", True),
    ("So the answer is 12.", "12", True),
    ("\\boxed{\\text{No}}", "No", True),
]


@pytest.mark.parametrize("output,gold,correct", BBH_CASES)
def test_bbh(output: str, gold: str, correct: bool) -> None:
    assert score_answer(AnswerKind.BBH, output, gold).correct is correct


def test_bbh_equal_option_with_text() -> None:
    assert bbh_equal("(B) 12/25/1937", "(B)")
    assert not bbh_equal("(C) 12/25/1937", "(B)")


AIME_CASES = [
    ("\\boxed{033}", "33", True),
    ("\\boxed{204}", "204", True),
    ("so we get 1,000 - 1 = 999", "999", True),
    ("\\boxed{\\frac{1}{2}} but really 17", "17", True),  # invalid box for AIME: falls back to the parser
    ("\\boxed{12}", "13", False),
]


@pytest.mark.parametrize("output,gold,correct", AIME_CASES)
def test_aime(output: str, gold: str, correct: bool) -> None:
    assert score_answer(AnswerKind.INTEGER, output, gold).correct is correct


def test_extract_integer() -> None:
    assert extract_integer("value 3.5 then 12") == "12"
    assert extract_integer("nothing") is None


def test_score_answer_reports_extraction() -> None:
    assert score_answer(AnswerKind.MATH, "\\boxed{\\dfrac{1}{2}}", "\\frac12").extraction == "boxed"
    parsed = score_answer(AnswerKind.MATH, "The answer is $\\frac{1}{2}$.", "0.5")
    assert parsed.extraction == "parser" and parsed.correct
    assert score_answer(AnswerKind.MATH, "I don't know", "1").extraction == "none"
