"""The part of a :class:`~memdesk.filters.RecordFilter` SQL can say, as a ``WHERE`` condition on a record table.

:func:`filter_sql` compiles roles, sources, validity (memories closed by the read's time, on the day of their
``valid_to``; ``as_of`` by event time), the
event-time range and the metadata conditions it can express (equality with a string, a number or None,
one-of lists of those, ``ne`` / ``nin`` of strings or None, number ranges, ``exists``, ``AND`` / ``OR`` /
``NOT``) into one condition with bound parameters only: values and metadata keys are parameters (SQLite's
JSON path is a parameter built only from keys of a safe alphabet; other keys are not compiled). The
dialect gives the JSON expressions (:meth:`~memdesk.store.dialect.Dialect.json_metadata`).

Text operators: ``contains`` is said exactly (the text value holds the operand: ``instr`` / ``strpos``,
which compare code points as Python's ``in`` does). ``icontains`` is a superset: an ASCII text value is
lowered by SQL exactly as Python lowers it (``A``-``Z`` only), but SQL's ``lower`` does not agree with
Python's on other text (``'İ'.lower()`` is two characters, ``'K'`` (Kelvin) lowers to ASCII ``k``, ...),
so a value with any non-ASCII character is kept for the Python check. A range on ISO times is a superset
too: a value of the shape ``YYYY-MM-DD?HH:MM:SS`` with a UTC tail (none, ``Z``, ``+00:00``, after an
optional fraction) is compared on its whole seconds with the bound's (floor), which keeps every value
Python's instant comparison keeps; any other string and any number (``str(20240101)`` parses as a date)
is kept for the Python check; null, missing and booleans never satisfy it.

Before any JSON is read, a top-level equality with (or ``contains`` of) a string of plain characters
(letters, digits, `` _.:@+-``) is also looked for in the row's raw JSON text (``"value"``, or the
needle): a necessary condition, and a substring search is far cheaper than parsing the record.

The condition only *narrows*: every record the filter keeps satisfies it, and the reader still applies
:meth:`RecordFilter.matches` (the one meaning) to the rows it returns. What it cannot say (booleans,
lists or dicts as values, ``valid_to`` for ``as_of`` and to the instant, huge numbers, strings with NUL) is left out of it,
and inside ``NOT`` (or ``ne`` / ``nin``) only conditions it says *exactly* are compiled.
:attr:`FilterSql.exact` says whether the whole condition is exact (the rows it keeps are those
:meth:`RecordFilter.matches` keeps): a search can then ask for ``k`` rows and get ``k`` (see
:mod:`.pg_search`).
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, NamedTuple

from ..filters import RecordFilter
from .codec import iso_utc
from .shared_metadata import SHARED_BODY

__all__ = ["FilterSql", "JsonRef", "TextFunctions", "filter_sql", "narrowing_sql"]

_EXACT_LIMIT = 2**53
"""Numbers whose size is below this compare the same as float64 in every backend and in Python."""
_EDGES = [iso_utc(datetime.min.replace(tzinfo=timezone.utc)), iso_utc(datetime.max.replace(tzinfo=timezone.utc))]
"""``event_time`` column values that may be clamped (see :func:`~memdesk.store.codec.iso_utc`): never ruled out."""


class TextFunctions(NamedTuple):
    """A dialect's SQL for text, as templates of SQL expressions ``{0}`` (and ``{1}``); constants, never values."""

    find: str
    """The 1-based position of ``{1}`` in ``{0}`` by characters, 0 when absent (``instr`` / ``strpos``)."""
    octets: str
    """The length of ``{0}`` in bytes of UTF-8 (whatever the database encoding)."""
    chars: str
    """The length of ``{0}`` in characters (equal to :attr:`octets` exactly for ASCII text)."""
    ascii_lower: str
    """``{0}`` with ``A``-``Z`` lowered (only used on ASCII text, where it is Python's ``str.lower``)."""
    bytewise: str
    """``{0}`` compared by its bytes, whatever the database's collation."""


class JsonRef(NamedTuple):
    """SQL expressions of one metadata value, each with one parameter mark bound to ``arg``."""

    kind: str
    """Its JSON type in the dialect's names (see ``kinds``); NULL when the key is missing."""
    text: str
    """Its value as text where it is a JSON string."""
    number: str
    """Its value as a number where it is a JSON number (only read under a ``kind`` check)."""
    args: tuple[Any, ...]
    """The parameters of each expression's marks (a record's own metadata keys, then its shared ones:
    :mod:`.shared_metadata`)."""
    mark: str
    """The dialect's parameter mark, for the value compared."""
    kinds: Mapping[str, tuple[str, ...]]
    """The dialect's names of the JSON types ``string``, ``number``, ``bool`` and ``null``."""
    functions: TextFunctions


class FilterSql(NamedTuple):
    """A compiled filter: a condition on a record table and its parameters."""

    sql: str
    params: list[Any]
    exact: bool
    """True when the condition keeps exactly the rows :meth:`RecordFilter.matches` keeps (else a superset)."""


class _Sql(NamedTuple):
    sql: str
    params: list[Any]
    exact: bool
    hints: tuple[str, ...] = ()
    """Texts the row's raw JSON holds whenever the condition holds (see :func:`_hint`)."""


def narrowing_sql(where: RecordFilter, dialect: Any) -> FilterSql | None:
    """:func:`filter_sql` of ``where`` when it says more than validity, else None: a search then asks for a
    few more candidates than ``k`` instead (most records are current, and reading the filter on every row
    of a scope costs more than that)."""
    if where.model_copy(update={"types": None, "speaker": None, "include_superseded": True, "now": None}) == RecordFilter(
        include_superseded=True
    ):
        return None
    return filter_sql(where, dialect)


def filter_sql(where: RecordFilter, dialect: Any) -> FilterSql | None:
    """The condition every record ``where`` keeps satisfies, on a record table (types and speaker are the
    store's own arguments, not part of it); None when nothing else of ``where`` can be said in SQL."""
    p = dialect.param
    parts: list[_Sql | None] = []
    for field, values in (("role", where.roles), ("source", where.sources)):
        if values is not None:
            column = dialect.json_field(field)
            parts.append(_Sql(f"COALESCE({column} IN ({', '.join([p] * len(values))}), FALSE)", list(values), True))
    if where.as_of is not None:
        parts.append(_event_time("<=", where.as_of, dialect, allow_null=True))
    elif not where.include_superseded:
        parts.append(_open_at(where.read_time(), dialect))
    if where.since is not None:
        parts.append(_event_time(">=", where.since, dialect))
    if where.until is not None:
        parts.append(_event_time("<", where.until, dialect))
    said = _and([*parts, _conditions(where.metadata, dialect, False)] if where.metadata else parts)
    if said is None:
        return None
    sql, params = dialect.json_guard(said.sql, said.params)
    if where.metadata:  # a row with shared metadata (memdesk.store.shared_metadata) reads a key there too
        joined = _and([*parts, _conditions(where.metadata, dialect, True)])
        if joined is not None:
            other, more = dialect.json_guard(joined.sql, joined.params, shared=True)
            sql, params = f"CASE WHEN metadata_ref IS NULL THEN ({sql}) ELSE ({other}) END", [*params, *more]
    if said.hints:  # first: a substring search of the row's text is far cheaper than reading its JSON
        find = dialect.text_functions.find
        shared = f"metadata_ref IS NOT NULL AND {find.format(SHARED_BODY, p)} > 0"  # its shared metadata's text
        found = [f"({find.format('record', p)} > 0 OR ({shared}))" for _ in said.hints]
        sql, params = f"{' AND '.join(found)} AND ({sql})", [*(h for h in said.hints for _ in (0, 1)), *params]
    return FilterSql(sql, params, said.exact)


def _open_at(now: datetime, dialect: Any) -> _Sql:
    """Not closed by ``now``: never superseded, or closed from a day no earlier than the day before ``now``'s (UTC).
    ``valid_to`` is JSON text in whatever offset it was written with, so its day (the first ten characters,
    ``YYYY-MM-DD``) is compared with a day's margin: a superset, and :meth:`RecordFilter.matches` has the last word."""
    day = (now.astimezone(timezone.utc) - timedelta(days=1)).date().isoformat() if now.year > 1 else "0001-01-01"
    valid_to = dialect.json_field("valid_to")
    sql = f"({dialect.json_field('superseded_by')} IS NULL OR ({valid_to} IS NOT NULL AND substr({valid_to}, 1, 10) >= {dialect.param}))"
    return _Sql(sql, [day], False)


def _event_time(op: str, when: datetime, dialect: Any, *, allow_null: bool = False) -> _Sql:
    """``event_time op when``, and the clamped extreme values always kept (so not exact); for ``as_of``
    (``allow_null``) this is only the event-time half (``valid_to`` is left to the Python check)."""
    t = dialect.time_mark
    null = "event_time IS NULL OR " if allow_null else ""
    return _Sql(f"{null}event_time {op} {t} OR event_time IN ({t}, {t})", [iso_utc(when), *_EDGES], False)


def _and(parts: list[_Sql | None]) -> _Sql | None:
    said = [s for s in parts if s is not None]
    if not said:
        return None
    exact = len(said) == len(parts) and all(s.exact for s in said)
    hints = tuple(dict.fromkeys(h for s in said for h in s.hints))
    return _Sql(" AND ".join(f"({s.sql})" for s in said), [x for s in said for x in s.params], exact, hints)


def _or(parts: list[_Sql | None]) -> _Sql | None:
    if not parts or any(s is None for s in parts):
        return None
    said = [s for s in parts if s is not None]
    hints = said[0].hints if len(said) == 1 else ()
    return _Sql(" OR ".join(f"({s.sql})" for s in said), [x for s in said for x in s.params], all(s.exact for s in said), hints)


def _not(part: _Sql | None) -> _Sql | None:
    return None if part is None or not part.exact else _Sql(f"NOT ({part.sql})", part.params, True)


def _conditions(conditions: Mapping[str, Any], dialect: Any, shared: bool) -> _Sql | None:
    """The metadata conditions, reading the record's own keys (and, with ``shared``, its shared ones)."""
    parts: list[_Sql | None] = []
    for key, cond in conditions.items():
        if key == "AND":
            parts.append(_and([_conditions(c, dialect, shared) for c in cond]))
        elif key == "OR":
            parts.append(_or([_conditions(c, dialect, shared) for c in cond]))
        elif key == "NOT":
            parts.append(_not(_or([_conditions(c, dialect, shared) for c in cond])))
        else:
            ref = dialect.json_metadata(key, shared=shared)
            parts.append(None if ref is None else _condition(ref, cond))
    return _and(parts)


def _condition(ref: JsonRef, cond: Any) -> _Sql | None:
    if isinstance(cond, (list, tuple)):
        return _or([_equal(ref, v) for v in cond])
    if not isinstance(cond, Mapping):
        return _equal(ref, cond)
    parts: list[_Sql | None] = []
    for op, operand in cond.items():
        if op == "eq":
            parts.append(_equal(ref, operand))
        elif op == "in":
            parts.append(_or([_equal(ref, v) for v in operand]))
        elif op == "ne":
            parts.append(_not(_equal(ref, operand)))
        elif op == "nin":
            parts.append(_not(_or([_equal(ref, v) for v in operand])))
        elif op in _RANGE_OPS:
            parts.append(_range(ref, _RANGE_OPS[op], operand))
        elif op == "exists":
            present = f"{ref.kind} IS NOT NULL"
            parts.append(_Sql(present if operand else f"NOT ({present})", [*ref.args], True))
        elif op == "contains":
            parts.append(_contains(ref, str(operand)))
        else:
            parts.append(_icontains(ref, str(operand).lower()))
    return _and(parts)


_RANGE_OPS = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def _names(ref: JsonRef, kind: str) -> str:
    return ", ".join(f"'{name}'" for name in ref.kinds[kind])  # the dialect's constants, never a value


def _is_number(value: Any) -> bool:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return ok and math.isfinite(value) and abs(value) < _EXACT_LIMIT


def _bindable(text: str) -> bool:
    """Whether ``text`` can be a text parameter on every backend (no NUL, no lone surrogate)."""
    if "\x00" in text:
        return False
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _equal(ref: JsonRef, value: Any) -> _Sql | None:
    """``value == metadata[key]`` (a missing key reads as None), or None where SQL is not asked."""
    if value is None:
        return _Sql(f"{ref.kind} IS NULL OR {ref.kind} IN ({_names(ref, 'null')})", [*ref.args, *ref.args], True)
    if isinstance(value, str) and _bindable(value):
        sql = f"COALESCE({ref.kind} IN ({_names(ref, 'string')}) AND {ref.text} = {ref.mark}, FALSE)"
        return _Sql(sql, [*ref.args, *ref.args, value], True, _hint(f'"{value}"', value))
    if _is_number(value):  # Python's 1 == 1.0 == True: booleans are left to the Python check
        return _number(ref, "=", value, keep_bool=True)
    return None


_PLAIN = re.compile(r"[A-Za-z0-9_ .:@+-]+")
"""Characters every JSON writer writes as themselves (never escaped), in a string or a key."""


def _hint(text: str, value: str) -> tuple[str, ...]:
    """``(text,)`` when a string ``value`` made of :data:`_PLAIN` characters must appear as ``text`` in the
    raw JSON of a record that holds it (a string equal to it is written ``"value"``; one that contains it
    contains its characters), else ``()``: a cheap necessary condition checked before the JSON is read."""
    return (text,) if _PLAIN.fullmatch(value) else ()


def _is_string(ref: JsonRef) -> str:
    return f"{ref.kind} IN ({_names(ref, 'string')})"


def _contains(ref: JsonRef, part: str) -> _Sql | None:
    """A string value holding ``part`` (Python's ``part in value``): exact."""
    if not _bindable(part):
        return None
    if not part:  # "" is in every string
        return _Sql(f"COALESCE({_is_string(ref)}, FALSE)", [*ref.args], True)
    found = ref.functions.find.format(ref.text, ref.mark)
    return _Sql(f"COALESCE({_is_string(ref)} AND {found} > 0, FALSE)", [*ref.args, *ref.args, part], True, _hint(part, part))


def _icontains(ref: JsonRef, part: str) -> _Sql | None:
    """A string value whose Python ``lower()`` holds ``part`` (already lowered): exact on ASCII values,
    every value with a non-ASCII character kept (see the module docstring), so a superset."""
    if not _bindable(part):
        return None
    if not part:
        return _Sql(f"COALESCE({_is_string(ref)}, FALSE)", [*ref.args], True)
    f = ref.functions
    non_ascii = f"{f.octets.format(ref.text)} <> {f.chars.format(ref.text)}"
    found = f.find.format(f.ascii_lower.format(ref.text), ref.mark)
    sql = f"COALESCE({_is_string(ref)} AND ({non_ascii} OR {found} > 0), FALSE)"
    return _Sql(sql, [*ref.args, *ref.args, *ref.args, *ref.args, part], False)


def _range(ref: JsonRef, op: str, bound: Any) -> _Sql | None:
    if _is_number(bound):
        return _number(ref, op, bound, keep_bool=False)
    if isinstance(bound, (int, float)) and not isinstance(bound, bool):  # huge or not finite: Python decides
        return None
    seconds = _iso_seconds(bound)
    return None if seconds is None else _iso_range(ref, ">=" if op[0] == ">" else "<=", seconds)


_ISO_SHAPE = "____-__-_____:__:__%"
"""``LIKE`` pattern of a text starting ``YYYY-MM-DD?HH:MM:SS`` (any separator, as Python's ``fromisoformat``)."""
_UTC_TAILS = ("", "Z", "+00:00")
"""What may follow the seconds (after a fraction's digits) for the text to be a UTC time to Python."""


def _iso_seconds(bound: Any) -> str | None:
    """``bound`` as Python's range reads it (an aware instant, naive = UTC), in UTC, to the whole second
    (``YYYY-MM-DDTHH:MM:SS``); None when Python cannot read it as a time (then nothing is in range)."""
    try:
        when = bound if isinstance(bound, datetime) else datetime.fromisoformat(str(bound))
        when = (when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)).astimezone(timezone.utc)
    except (TypeError, ValueError, OverflowError):
        return None
    return when.isoformat()[:19]


def _iso_range(ref: JsonRef, op: str, seconds: str) -> _Sql:
    """A superset of Python's ISO-time range (see the module docstring). If value ``v`` and bound ``b``
    floor to whole seconds ``V`` and ``B``, ``v > b`` or ``v >= b`` imply ``V >= B`` and ``v < b`` or
    ``v <= b`` imply ``V <= B``; ``V`` is the value's first 19 characters with its separator read as
    ``T``, compared bytewise with ``B``."""
    f, t, m = ref.functions, ref.text, ref.mark
    tails = ", ".join([m] * len(_UTC_TAILS))
    utc = f"{t} LIKE {m} AND ltrim(substr({t}, 20), {m}) IN ({tails})"
    floor = f.bytewise.format(f"substr({t}, 1, 10) || 'T' || substr({t}, 12, 8)")
    sql = (
        f"COALESCE(CASE WHEN {_is_string(ref)} THEN (CASE WHEN {utc} THEN {floor} {op} {m} ELSE TRUE END) "
        f"WHEN {ref.kind} IN ({_names(ref, 'number')}) THEN TRUE ELSE FALSE END, FALSE)"
    )
    params = [*ref.args, *ref.args, _ISO_SHAPE, *ref.args, ".0123456789", *_UTC_TAILS, *ref.args, *ref.args, seconds, *ref.args]
    return _Sql(sql, params, False)


def _number(ref: JsonRef, op: str, bound: Any, *, keep_bool: bool) -> _Sql:
    """Numbers compared with ``bound``; numbers too large to compare exactly (and booleans if
    ``keep_bool``) are kept for the Python check, so it narrows but is not exact."""
    n, big = ref.number, _EXACT_LIMIT
    boolean = f" WHEN {ref.kind} IN ({_names(ref, 'bool')}) THEN TRUE" if keep_bool else ""
    sql = (
        f"COALESCE(CASE WHEN {ref.kind} IN ({_names(ref, 'number')}) THEN "
        f"CASE WHEN {n} >= {big} OR {n} <= -{big} THEN TRUE ELSE {n} {op} {ref.mark} END"
        f"{boolean} ELSE FALSE END, FALSE)"
    )
    return _Sql(sql, [*ref.args, *ref.args, *ref.args, *ref.args, bound, *([*ref.args] if keep_bool else [])], False)
