"""Stratified, seeded question samples for ``--limit``."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.errors import InvalidInputError
from memdesk.eval.datasets import EvalQuestion
from memdesk.eval.sampling import allocate, stratified_sample


def q(i: int, conv: str, cat: str) -> EvalQuestion:
    return EvalQuestion(id=f"{conv}:{i}", conversation_id=conv, question=f"q{i}?", answer="a", category=cat)


def file_like() -> list[EvalQuestion]:
    """Three conversations in file order, each sorted by category as LoCoMo's is: the first ten
    questions are all one conversation's 'single-hop'."""
    out, i = [], 0
    for conv in ("c1", "c2", "c3"):
        for cat, n in (("single-hop", 12), ("temporal", 6), ("multi-hop", 4), ("adversarial", 3)):
            for _ in range(n):
                out.append(q(i, conv, cat))
                i += 1
    return out


def test_allocation_is_proportional_with_largest_remainders() -> None:
    rng = random.Random(0)
    assert allocate({"a": 50, "b": 30, "c": 20}, 10, rng) == {"a": 5, "b": 3, "c": 2}
    assert allocate({"a": 2, "b": 1}, 9, rng) == {"a": 2, "b": 1}  # never more than a group holds
    assert allocate({"a": 97, "b": 2, "c": 1}, 3, rng, at_least_one=True) == {"a": 1, "b": 1, "c": 1}
    assert sum(allocate({"a": 1, "b": 1, "c": 1}, 2, rng).values()) == 2


def test_a_small_sample_covers_every_category_and_conversation() -> None:
    qs = file_like()
    sample = stratified_sample(qs, 10, seed=3)
    assert len(sample) == 10
    assert set(Counter(s.category for s in sample)) == {"single-hop", "temporal", "multi-hop", "adversarial"}
    assert set(s.conversation_id for s in sample) == {"c1", "c2", "c3"}
    assert Counter(s.category for s in sample)["single-hop"] >= 4  # about 48 % of the file
    # the first ten of the file would have been one conversation's single-hop questions only
    assert {(x.conversation_id, x.category) for x in qs[:10]} == {("c1", "single-hop")}


def test_the_seed_names_the_sample() -> None:
    qs = file_like()
    a, b = stratified_sample(qs, 12, seed=7), stratified_sample(qs, 12, seed=7)
    assert [x.id for x in a] == [x.id for x in b]
    assert any([x.id for x in stratified_sample(qs, 12, seed=s)] != [x.id for x in a] for s in range(8))
    assert [x.id for x in a] == sorted((x.id for x in a), key=lambda i: int(i.split(":")[1]))  # file order


def test_limits() -> None:
    qs = file_like()
    assert stratified_sample(qs, 500) == qs
    with pytest.raises(InvalidInputError):
        stratified_sample(qs, 0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xyzw")), min_size=1, max_size=60),
       st.integers(1, 70), st.integers(0, 5))
def test_any_sample_has_the_right_size_no_repeats_and_every_category_it_can(cells, n, seed) -> None:
    qs = [q(i, conv, cat) for i, (conv, cat) in enumerate(cells)]
    sample = stratified_sample(qs, n, seed)
    ids = [x.id for x in sample]
    assert len(ids) == min(n, len(qs)) == len(set(ids))
    cats = {x.category for x in qs}
    if n >= len(cats):
        assert {x.category for x in sample} == cats


def test_thirty_locomo_questions_cover_every_conversation_and_category() -> None:
    from memdesk.runtime.datapaths import default_data_dir
    from memdesk.eval.datasets import load_locomo

    path = default_data_dir() / "locomo" / "locomo_dev5.json"
    if not path.exists():
        pytest.skip("LoCoMo data not found")
    ds = load_locomo(path)
    sample = stratified_sample(ds.questions, 30, seed=0)
    assert {x.conversation_id for x in sample} == set(ds.conversations)
    assert {x.category for x in sample} == set(ds.categories)


def test_a_limited_run_records_its_seed_and_question_ids(locomo_file, tmp_path) -> None:
    import json

    from memdesk.embed import HashingEmbedder
    from memdesk.eval.datasets import load_locomo
    from memdesk.eval import run_eval

    out = tmp_path / "run"
    summary = run_eval("locomo", locomo_file, out, systems=["flat-rag"], limit=4, seed=11, sweep=False,
                       embedder=HashingEmbedder(64), progress=False)
    expected = [x.id for x in stratified_sample(load_locomo(locomo_file).questions, 4, 11)]
    assert summary.config["seed"] == 11 and summary.config["limit"] == 4
    assert summary.question_ids == expected and len(set(expected)) == 4
    assert sorted({json.loads(line)["question_id"] for line in (out / "results.jsonl").read_text().splitlines()}) == sorted(expected)
    assert "seed 11" in (out / "report.md").read_text()


def test_select_categories_filters_before_the_sample() -> None:
    from memdesk.eval.sampling import select_categories

    qs = file_like()
    known, headline = ["single-hop", "temporal", "multi-hop", "adversarial"], ["single-hop", "temporal", "multi-hop"]
    assert select_categories(qs, None, known, headline) == qs
    picked = select_categories(qs, ["headline"], known, headline)
    assert len(picked) == 3 * (12 + 6 + 4)  # every question but the 9 adversarial ones, in file order
    assert all(x.category != "adversarial" for x in picked) and picked == [x for x in qs if x in picked]
    assert {x.category for x in select_categories(qs, ["temporal"], known, headline)} == {"temporal"}
    sample = stratified_sample(picked, 11, seed=0)
    assert Counter(x.category for x in sample) == {"single-hop": 6, "temporal": 3, "multi-hop": 2}
    with pytest.raises(InvalidInputError, match="unknown category 'sports'"):
        select_categories(qs, ["sports"], known, headline)
    with pytest.raises(InvalidInputError):
        select_categories(qs, [], known, headline)
