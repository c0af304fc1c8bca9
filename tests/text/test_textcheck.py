"""Text memdesk cannot store (lone surrogates, NUL) is an InvalidInputError at the edge."""

from __future__ import annotations

import pytest

from memdesk.errors import InvalidInputError
from memdesk.text.textcheck import MAX_DEPTH, check_strings, check_text, text_problem


@pytest.mark.parametrize("bad", ["\ud800", "ok\udfffok", "\x00", "a\x00"])
def test_unstorable_text_is_named(bad):
    assert text_problem(bad)
    with pytest.raises(InvalidInputError, match="where"):
        check_text(bad, "where")


@pytest.mark.parametrize("good", ["", "plain", "é 𝄞 \u202e", "tab\tnewline\n"])
def test_storable_text_passes(good):
    assert text_problem(good) is None
    check_text(good, "x")


def test_every_string_inside_a_value_is_checked():
    check_strings({"a": ["b", {"c": 1}], "d": None}, "m")
    for bad in ({"\ud800": 1}, {"a": ["ok", "\x00"]}, [{"k": ("v", "\udc00")}]):
        with pytest.raises(InvalidInputError):
            check_strings(bad, "m")


def test_nesting_is_bounded():
    deep: object = "leaf"
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(InvalidInputError, match="nested"):
        check_strings(deep, "m")
