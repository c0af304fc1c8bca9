"""Offline memory formats: sentence splitting outside math, condensation, summaries."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memdesk.reasoning.formats import (
    condense_offline,
    split_sentences,
    strip_figures,
    summarize_offline,
)
from memdesk.reasoning.scoring import last_boxed

MATH_SOLUTION = (
    "We complete the square. Note that $x^2 + 6x = (x+3)^2 - 9.$ So the equation becomes $(x+3)^2 = 25$. "
    "Taking roots gives two cases. Therefore $x = 2$ or $x = -8$. The larger is $\\boxed{2}$."
)


def test_split_sentences_never_inside_math() -> None:
    sentences = split_sentences(MATH_SOLUTION)
    assert sentences[1] == "Note that $x^2 + 6x = (x+3)^2 - 9.$ So the equation becomes $(x+3)^2 = 25$."
    assert sentences[-1] == "The larger is $\\boxed{2}$."


def test_condense_keeps_computation_and_the_answer() -> None:
    short = condense_offline(MATH_SOLUTION)
    assert "Taking roots gives two cases." not in short
    assert short.endswith("$\\boxed{2}$.") and "(x+3)^2 = 25" in short
    assert len(short) < len(MATH_SOLUTION)


def test_condense_caps_sentences() -> None:
    trace = " ".join(f"Step {i}: {i} + 1 = {i + 1}." for i in range(20)) + " Done, 21."
    assert len(split_sentences(condense_offline(trace, max_sentences=4))) == 4


def test_summary_is_first_sentence_and_answer() -> None:
    assert summarize_offline(MATH_SOLUTION, "2") == "We complete the square. Answer: 2"
    long_first = " ".join(["word"] * 60) + "."
    assert summarize_offline(long_first, "5").endswith("... Answer: 5")


def test_figures_are_stripped() -> None:
    assert strip_figures("Draw it. [asy]draw((0,0)--(1,1));[/asy] Done.") == "Draw it.  Done."


@given(st.text(alphabet=st.characters(blacklist_characters="{}\\", blacklist_categories=("Cs",)), min_size=1).filter(lambda s: s.strip()))
def test_boxed_round_trip(content: str) -> None:
    assert last_boxed(f"reasoning... \\boxed{{{content}}} done") == content.strip()
