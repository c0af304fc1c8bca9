"""Metric values computed by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.errors import InvalidInputError
from memdesk.eval import metrics as M


def test_evidence_recall_cutoffs():
    ranked = [["D1:2"], ["D2:1"], ["D1:1", "D1:3"]]
    gold = ["D1:1", "D1:2"]
    assert M.evidence_recall(gold, ranked, 1) == 0.5
    assert M.evidence_recall(gold, ranked, 2) == 0.5
    assert M.evidence_recall(gold, ranked) == 1.0
    assert M.evidence_recall(["D9:9"], ranked) == 0.0
    assert M.evidence_recall([], ranked) is None


def test_session_recall():
    ranked = [["a:1"], ["b:0"], ["c:2"]]
    of = lambda i: i.split(":")[0]
    assert M.session_recall(["a", "c"], ranked, of, 1) == {"any": 1.0, "all": 0.0, "fraction": 0.5}
    assert M.session_recall(["a", "c"], ranked, of) == {"any": 1.0, "all": 1.0, "fraction": 1.0}
    assert M.session_recall(["x"], ranked, of) == {"any": 0.0, "all": 0.0, "fraction": 0.0}
    assert M.session_recall([], ranked, of) is None


def test_normalize_answer_official_rules():
    assert M.normalize_answer("The cat, and a Dog!") == "cat dog"
    assert M.normalize_answer("7 May, 2023.") == "7 may 2023"


def test_f1_hand_computed():
    # stems: [tomas, went, hike] vs [hike]: P = 1/3, R = 1, F1 = 0.5
    assert M.f1_score("Tomas went hiking", "hiking") == pytest.approx(0.5)
    assert M.f1_score("May 7, 2023", "7 May 2023") == pytest.approx(1.0)
    assert M.f1_score("Paris", "London") == 0.0
    # [red, car] vs [red, bicycl]: 1 common, P = R = 1/2
    assert M.f1_score("a red car", "red bicycles") == pytest.approx(0.5)


def test_locomo_f1_by_category():
    # multi-hop: gold parts London (best 1.0) and Berlin (best 0.0) -> 0.5
    assert M.locomo_f1("Paris, London", "London, Berlin", 1) == pytest.approx(0.5)
    # open-domain: only the first ';' part of the gold counts
    assert M.locomo_f1("geology", "Geology; a diving licence", 3) == pytest.approx(1.0)
    assert M.locomo_f1("9 March 2024", "9 March 2024", 2) == 1.0
    assert M.locomo_f1("No information available.", None, 5) == 1.0
    assert M.locomo_f1("It is not mentioned in the conversation", None, 5) == 1.0
    assert M.locomo_f1("Yes, she did", None, 5) == 0.0
    with pytest.raises(InvalidInputError):
        M.locomo_f1("x", None, 4)
    with pytest.raises(InvalidInputError):
        M.locomo_f1("x", "y", 9)


def test_bleu1_hand_computed():
    # normalized: [cat, sat, on, mat] vs [cat, is, on, mat]: 3/4 clipped, equal lengths -> BP 1
    assert M.bleu1("the cat sat on the mat", "the cat is on the mat") == pytest.approx(0.75)
    # one token against two: precision 1, BP = exp(1 - 2/1)
    assert M.bleu1("cat", "cat sat") == pytest.approx(math.exp(-1))
    # clipping: "cat cat cat" vs "cat": 1/3, longer than the reference -> BP 1
    assert M.bleu1("cat cat cat", "cat") == pytest.approx(1 / 3)
    assert M.bleu1("", "cat") == 0.0


def test_containment():
    assert M.containment("Paris, London", "We flew to London last year.", 1) == 0.5
    assert M.containment("golden retriever", "Biscuit is a Golden Retriever!") == 1.0
    assert M.containment("golden retriever", "a golden, fluffy retriever") == 0.0
    assert M.containment("Geology; diving", "she studies geology", 3) == 1.0
    assert M.containment(None, "text") is None


def test_percentiles():
    assert M.percentile([1, 2, 3, 4], 50) == 2.5
    assert M.percentile([1, 2, 3, 4], 95) == pytest.approx(3.85)
    assert M.percentile([], 50) is None
    assert M.median([3, None, 1, 2]) == 2.0
    assert M.mean([None, 1, 3]) == 2.0


@given(st.lists(st.text(alphabet="abcdefgh ", max_size=12), min_size=1, max_size=5))
def test_f1_of_itself_is_one_or_zero(parts):
    text = " ".join(parts)
    f = M.f1_score(text, text)
    assert f == (1.0 if M.normalize_answer(text) else 0.0)


@given(st.lists(st.sampled_from(["a:1", "a:2", "b:1", "c:3"]), max_size=6), st.integers(0, 6))
def test_recall_monotone_in_cutoff(ids, cutoff):
    ranked = [[i] for i in ids]
    gold = ["a:1", "b:1"]
    lo = M.evidence_recall(gold, ranked, cutoff)
    hi = M.evidence_recall(gold, ranked, cutoff + 1)
    assert 0.0 <= lo <= hi <= 1.0


@pytest.mark.parametrize(
    "prediction, gold, category, abstention, f1, bleu1, abstained",
    [
        # an abstention earns nothing against a real answer, though "mentioned" is shared
        ("not mentioned in the conversation", "mentioned in the group chat", 4, False, 0.0, 0.0, True),
        ("No information available.", "Porto", None, False, 0.0, 0.0, True),
        # it is the right answer on an abstention item (LoCoMo 5, LongMemEval _abs)
        ("not mentioned in the conversation", None, 5, True, 1.0, None, True),
        ("not mentioned in the conversation", "You never said.", None, True, 1.0, None, True),
        ("Porto", "You never said.", None, True, 0.0, None, False),
        # any other answer: the official rules
        ("group chat", "mentioned in the group chat", 4, False, pytest.approx(2 * 1 * 0.5 / 1.5), pytest.approx(math.exp(1 - 4 / 2)), False),
    ],
)
def test_score_prediction_and_abstentions(prediction, gold, category, abstention, f1, bleu1, abstained):
    s = M.score_prediction(prediction, gold, category_id=category, abstention=abstention)
    assert (s.f1, s.bleu1, s.abstained) == (f1, bleu1, abstained)
