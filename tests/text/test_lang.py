"""memdesk.text.lang: scripts and whether the English rules apply."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdesk.text.lang import dominant_script, is_english, scripts_of


@pytest.mark.parametrize(
    "text,script",
    [("上海很大", "Han"), ("こんにちは", "Hiragana"), ("שלום", "Hebrew"), ("مرحبا", "Arabic"), ("नमस्ते", "Devanagari"),
     ("Привет", "Cyrillic"), ("Hola", "Latin"), ("123 !?", None)],
)  # fmt: skip
def test_dominant_script(text: str, script: str | None) -> None:
    assert dominant_script(text) == script


@pytest.mark.parametrize(
    "text", ["I'm moving to Leeds in May!", "Wow!!", "Sushi tonight?", "José and I went to the café.", "Naïve question: is it far?", ""]
)
def test_english_or_no_evidence_against_it(text: str) -> None:
    assert is_english(text)


@pytest.mark.parametrize(
    "text",
    ["Me mudé a Sevilla el mes pasado.", "Je suis allée à Lyon hier.", "Ich bin gestern nach Köln gezogen.",
     "Mudei-me para o Porto.", "Mi sono trasferito a Roma.", "Ik ben gisteren verhuisd.", "Saya pindah ke Bandung kemarin.",
     "Я переехал в Казань.", "我搬家了", "Adiós, amigo"],
)  # fmt: skip
def test_other_languages(text: str) -> None:
    assert not is_english(text)


@given(st.text(max_size=80))
def test_total(text: str) -> None:
    assert isinstance(is_english(text), bool)
    assert sum(scripts_of(text).values()) <= len(text)
