"""The part of a :class:`~memdesk.filters.RecordFilter` SQL can say, as a ``WHERE`` condition on a record table.

:func:`filter_sql` compiles roles, sources, validity (superseded memories; ``as_of`` by event time), the
event-time range and the metadata conditions it can express (equality with a string, a number or None,
one-of lists of those, ``ne`` / ``nin`` of strings or None, number ranges, ``exists``, ``AND`` / ``OR`` /
``NOT``) into one condition with bound parameters only: values and metadata keys are parameters (SQLite's
JSON path is a parameter built only from keys of a safe alphabet; other keys are not compiled). The
dialect gives the JSON expressions (:meth:`~memdesk.store.dialect.Dialect.json_metadata`).

The condition only *narrows*: every record the filter keeps satisfies it, and the reader still applies
:meth:`RecordFilter.matches` (the one meaning) to the rows it returns. What it cannot say (``contains``,
ranges on ISO times, booleans, lists or dicts as values, ``valid_to`` for ``as_of``, huge numbers) is
left out of it, and inside ``NOT`` (or ``ne`` / ``nin``) only conditions it says *exactly* are compiled.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any, Mapping, NamedTuple

from ..filters import RecordFilter
from .codec import iso_utc

__all__ = ["JsonRef", "filter_sql"]

_EXACT_LIMIT = 2**53
"""Numbers whose size is below this compare the same as float64 in every backend and in Python."""
_EDGES = [iso_utc(datetime.min.replace(tzinfo=timezone.utc)), iso_utc(datetime.max.replace(tzinfo=timezone.utc))]
"""``event_time`` column values that may be clamped (see :func:`~memdesk.store.codec.iso_utc`): never ruled out."""


class JsonRef(NamedTuple):
    """SQL expressions of one metadata value, each with one parameter mark bound to ``arg``."""

    kind: str
    """Its JSON type in the dialect's names (see ``kinds``); NULL when the key is missing."""
    text: str
    """Its value as text where it is a JSON string."""
    number: str
    """Its value as a number where it is a JSON number (only read under a ``kind`` check)."""
    arg: Any
    mark: str
    """The dialect's parameter mark, for the value compared."""
    kinds: Mapping[str, tuple[str, ...]]
    """The dialect's names of the JSON types ``string``, ``number``, ``bool`` and ``null``."""


class _Sql(NamedTuple):
    sql: str
    params: list[Any]
    exact: bool


def filter_sql(where: RecordFilter, dialect: Any) -> tuple[str, list[Any]] | None:
    """(condition, parameters) every record ``where`` keeps satisfies, on a record table; None when
    nothing of ``where`` beyond types and speaker can be said in SQL."""
    p = dialect.param
    parts: list[_Sql] = []
    for field, values in (("role", where.roles), ("source", where.sources)):
        if values is not None:
            column = dialect.json_field(field)
            parts.append(_Sql(f"COALESCE({column} IN ({', '.join([p] * len(values))}), FALSE)", list(values), True))
    if where.as_of is not None:
        parts.append(_event_time("<=", where.as_of, dialect, allow_null=True))
    elif not where.include_superseded:
        parts.append(_Sql(f"{dialect.json_field('superseded_by')} IS NULL", [], True))
    if where.since is not None:
        parts.append(_event_time(">=", where.since, dialect))
    if where.until is not None:
        parts.append(_event_time("<", where.until, dialect))
    if where.metadata:
        meta = _conditions(where.metadata, dialect)
        if meta is not None:
            parts.append(meta)
    if not parts:
        return None
    sql = " AND ".join(f"({s.sql})" for s in parts)
    return dialect.json_guard(sql, [x for s in parts for x in s.params])


def _event_time(op: str, when: datetime, dialect: Any, *, allow_null: bool = False) -> _Sql:
    t = dialect.time_mark
    null = "event_time IS NULL OR " if allow_null else ""
    return _Sql(f"{null}event_time {op} {t} OR event_time IN ({t}, {t})", [iso_utc(when), *_EDGES], True)


def _and(parts: list[_Sql | None]) -> _Sql | None:
    said = [s for s in parts if s is not None]
    if not said:
        return None
    exact = len(said) == len(parts) and all(s.exact for s in said)
    return _Sql(" AND ".join(f"({s.sql})" for s in said), [x for s in said for x in s.params], exact)


def _or(parts: list[_Sql | None]) -> _Sql | None:
    if not parts or any(s is None for s in parts):
        return None
    said = [s for s in parts if s is not None]
    return _Sql(" OR ".join(f"({s.sql})" for s in said), [x for s in said for x in s.params], all(s.exact for s in said))


def _not(part: _Sql | None) -> _Sql | None:
    return None if part is None or not part.exact else _Sql(f"NOT ({part.sql})", part.params, True)


def _conditions(conditions: Mapping[str, Any], dialect: Any) -> _Sql | None:
    parts: list[_Sql | None] = []
    for key, cond in conditions.items():
        if key == "AND":
            parts.append(_and([_conditions(c, dialect) for c in cond]))
        elif key == "OR":
            parts.append(_or([_conditions(c, dialect) for c in cond]))
        elif key == "NOT":
            parts.append(_not(_or([_conditions(c, dialect) for c in cond])))
        else:
            ref = dialect.json_metadata(key)
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
            parts.append(_Sql(present if operand else f"NOT ({present})", [ref.arg], True))
        else:  # contains, icontains: left to the Python check
            parts.append(None)
    return _and(parts)


_RANGE_OPS = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<="}


def _names(ref: JsonRef, kind: str) -> str:
    return ", ".join(f"'{name}'" for name in ref.kinds[kind])  # the dialect's constants, never a value


def _is_number(value: Any) -> bool:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return ok and math.isfinite(value) and abs(value) < _EXACT_LIMIT


def _equal(ref: JsonRef, value: Any) -> _Sql | None:
    """``value == metadata[key]`` (a missing key reads as None), or None where SQL is not asked."""
    if value is None:
        return _Sql(f"{ref.kind} IS NULL OR {ref.kind} IN ({_names(ref, 'null')})", [ref.arg, ref.arg], True)
    if isinstance(value, str) and "\x00" not in value:
        sql = f"COALESCE({ref.kind} IN ({_names(ref, 'string')}) AND {ref.text} = {ref.mark}, FALSE)"
        return _Sql(sql, [ref.arg, ref.arg, value], True)
    if _is_number(value):  # Python's 1 == 1.0 == True: booleans are left to the Python check
        return _number(ref, "=", value, keep_bool=True)
    return None


def _range(ref: JsonRef, op: str, bound: Any) -> _Sql | None:
    return _number(ref, op, bound, keep_bool=False) if _is_number(bound) else None


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
    return _Sql(sql, [ref.arg, ref.arg, ref.arg, ref.arg, bound, *([ref.arg] if keep_bool else [])], False)
