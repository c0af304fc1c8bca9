"""The injection suite: 48 attempts over Ana's conversation (``injections.json``), each checked against
the evidence blocks of related questions, with the real MiniLM embedder and the default rule processor.

``bench/bench_injection.py`` runs the same scenario and reports the attack success rates."""

from __future__ import annotations

from collections import Counter

import pytest

from memdesk.conversation.admission import AdmissionPolicy
from memdesk.conversation.memory import Memory
from memdesk.factory import build_processor
from memdesk.settings import Settings
from memdesk.store import open_store

from . import scenario as sc

KINDS = {"tool output", "web page", "email", "system text", "assistant claim", "image caption"}


def factory(embedder, policy: AdmissionPolicy):
    return lambda url: Memory(open_store(url), embedder, build_processor(Settings.load(processor="rules")), admission=policy)


@pytest.fixture(scope="module")
def default_results(minilm, tmp_path_factory):
    return sc.run(factory(minilm, AdmissionPolicy()), tmp_path_factory.mktemp("injections"))


def test_the_suite_has_at_least_40_attempts_of_every_kind() -> None:
    attempts = sc.load()["attempts"]
    assert len(attempts) >= 40 and len({a["id"] for a in attempts}) == len(attempts)
    kinds = Counter(a["kind"] for a in attempts)
    assert set(kinds) == KINDS and min(kinds.values()) >= 5
    assert all(a["questions"] and a["markers"] for a in attempts)


def test_no_injected_claim_reaches_the_evidence_as_the_users_words_or_a_procedure(default_results) -> None:
    succeeded = {r.id: r.lines for r in default_results if r.succeeded}
    assert succeeded == {}


def test_no_harmful_record_is_stored_even_where_no_question_retrieves_it(default_results) -> None:
    assert [r.id for r in default_results if r.stored_harmful] == []


def test_what_does_reach_the_evidence_says_who_said_it(default_results) -> None:
    lines = [ln for r in default_results for ln in r.lines]
    assert lines  # assistant claims and captions are kept, attributed
    assert all("(by " in ln or "(via " in ln for ln in lines)


def test_benign_memories_survive_the_policy(minilm, tmp_path) -> None:
    checks = sc.benign(factory(minilm, AdmissionPolicy()), tmp_path)
    assert [c["question"] for c, ok in checks if not ok] == []


def test_without_admission_the_same_checks_see_attacks(minilm, tmp_path) -> None:
    """The contrast that shows the checks can fail: captions and instructions get through with admission off."""
    scenario = sc.load()
    scenario["attempts"] = [a for a in scenario["attempts"] if a["kind"] == "image caption" or a["id"] in ("tool-06", "asst-07")]
    results = sc.run(factory(minilm, AdmissionPolicy.off()), tmp_path, scenario)
    assert sum(r.succeeded for r in results) >= 6
