"""Whose words a question asks about: the grammatical person of the question, and the bonus it gives."""

from __future__ import annotations

import pytest

from memdesk.retrieval.question_person import grammatical_person, role_boosts


@pytest.mark.parametrize(
    "question, person",
    [
        ("How many concerts did I go to this year?", "first"),
        ("What is my sister's name?", "first"),
        ("Where did I'd planned... where had I’ve been staying?", "first"),  # both apostrophes
        ("What did you suggest for the herb garden?", "second"),
        ("Which book did you recommend last time?", "second"),
        ("Can you remind me which bakery I liked?", None),  # both: no side taken
        ("Where did Tomasz move from?", None),  # third person
        ("¿Dónde vivo ahora?", None),  # another language: no English pronoun
        ("", None),
        ("Is the timeline of the mine accurate?", "first"),  # "mine" is a pronoun here too: the cue is lexical
    ],
)
def test_grammatical_person(question, person):
    assert grammatical_person(question) == person


def test_role_boosts_name_the_role_and_weight():
    assert role_boosts("What did I plant in May?", 0.3) == {"user": 0.3}
    assert role_boosts("What did you plant in May?", 0.3) == {}  # "you" alone: no side taken (module doc)
    assert role_boosts("What did Ines plant in May?", 0.3) == {}
    assert role_boosts("What did I plant in May?", 0.0) == {}
    assert role_boosts(None, 0.3) == {}


def test_the_setting_reaches_the_default_read_path(tmp_path, monkeypatch):
    from memdesk.factory import build_retriever
    from memdesk.settings import Settings
    from memdesk.store import open_store

    store = open_store(f"sqlite:///{tmp_path / 'm.db'}")
    try:
        assert build_retriever(Settings(), store).person_weight == 3.0
        monkeypatch.setenv("MEMDESK_PERSON_WEIGHT", "0")
        assert build_retriever(Settings(), store).person_weight == 0.0
        monkeypatch.setenv("MEMDESK_PERSON_WEIGHT", "-1")
        with pytest.raises(Exception, match="person_weight"):
            Settings()
    finally:
        store.close()
