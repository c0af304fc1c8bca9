"""Checks that text can be stored and sent: every string memdesk accepts must be valid UTF-8 without NUL.

A lone UTF-16 surrogate (``"\\ud800"``, which JSON can carry as an escape) cannot be encoded as UTF-8, and
PostgreSQL text and JSON cannot hold ``\\x00``; either would fail deep inside a store or a response. These
functions turn them into :class:`~memdesk.errors.InvalidInputError` at the edge, before anything is written;
:func:`list_of` checks that a sequence argument holds one type of item, :func:`member_of` that a value names
a member of an enum.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any, TypeVar

from ..errors import InvalidInputError

MAX_DEPTH = 32
"""How deeply lists and mappings may nest inside one value (metadata, update fields)."""

E = TypeVar("E", bound=Enum)


def list_of(items: Iterable[Any], kind: type | tuple[type, ...], message: str) -> list[Any]:
    """``items`` as a list, each an instance of ``kind``; else InvalidInputError with ``message``, whose
    ``{}`` is the type name of the first item that is not."""
    out = list(items)
    for item in out:
        if not isinstance(item, kind):
            raise InvalidInputError(message.format(type(item).__name__))
    return out


def member_of(kind: type[E], value: Any, what: str) -> E:
    """``value`` as a member of the enum ``kind`` (a member or its value); else InvalidInputError naming
    ``what`` and the values allowed."""
    try:
        return kind(value)
    except ValueError:
        raise InvalidInputError(f"unknown {what} {value!r}; one of {[m.value for m in kind]}") from None


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be stored (a lone surrogate, a NUL character), or None if it can."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        return f"it holds an unencodable character {value[e.start]!r} (a lone UTF-16 surrogate) at index {e.start}"
    if "\x00" in value:
        return f"it holds a NUL character at index {value.index(chr(0))}"
    return None


def check_text(value: Any, where: str) -> None:
    """Raise InvalidInputError if ``value`` is a string that cannot be stored (other types pass)."""
    if isinstance(value, str):
        problem = text_problem(value)
        if problem is not None:
            raise InvalidInputError(f"{where}: {problem}")


def check_strings(value: Any, where: str, _depth: int = 0) -> None:
    """:func:`check_text` on every string inside ``value`` (mapping keys and values, list items), which may
    nest at most :data:`MAX_DEPTH` levels."""
    if isinstance(value, str):
        check_text(value, where)
    elif isinstance(value, Mapping):
        if _depth >= MAX_DEPTH:
            raise InvalidInputError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        for k, v in value.items():
            check_text(k, f"{where} key")
            check_strings(v, f"{where}.{k}" if isinstance(k, str) and text_problem(k) is None else where, _depth + 1)
    elif isinstance(value, (list, tuple, set, frozenset)):
        if _depth >= MAX_DEPTH:
            raise InvalidInputError(f"{where}: nested deeper than {MAX_DEPTH} levels")
        for i, v in enumerate(value):
            check_strings(v, f"{where}[{i}]", _depth + 1)
