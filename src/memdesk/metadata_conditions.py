"""The one language of metadata conditions, used by :class:`~memdesk.filters.RecordFilter` on every face.

A condition set is a dict ``{key: condition, ...}`` (all must hold) whose values are:

* a plain value: equality (``{"app": "web"}``);
* a list: one of (``{"app": ["web", "ios"]}``);
* a dict of operators, all of which must hold: ``eq``, ``ne``, ``in`` / ``nin`` (a list), ``gt`` / ``gte``
  / ``lt`` / ``lte`` (a range on numbers, or on ISO times), ``contains`` / ``icontains`` (a substring of
  a string value, the second ignoring case), ``exists`` (``True``: the key is set; ``False``: it is not).

and the keys ``"AND"``, ``"OR"``, ``"NOT"`` take a list of condition sets: all of them, any of them, none
of them. A missing key reads as ``None`` (so ``ne`` and ``nin`` hold for it, a range does not); values of
kinds that do not order (a number and a word) never satisfy a range. :func:`check_conditions` validates a
set up front (an :class:`~memdesk.errors.InvalidInputError` naming the key), :func:`conditions_hold` is the
meaning, the reference every backend agrees with.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Mapping

from .errors import InvalidInputError
from .records import _aware as aware_utc

__all__ = ["LOGIC", "MAX_DEPTH", "MAX_TERMS", "OPERATORS", "check_conditions", "conditions_hold"]

MAX_DEPTH = 16
"""The deepest nesting of AND / OR / NOT a condition set may have."""
MAX_TERMS = 256
"""The most conditions (keys, operators and list values, counted together) one condition set may hold."""

LOGIC = ("AND", "OR", "NOT")
_RANGE: dict[str, Callable[[Any, Any], bool]] = {
    "gt": lambda a, b: a > b,
    "gte": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "lte": lambda a, b: a <= b,
}
_LISTS = ("in", "nin")
OPERATORS = ("eq", "ne", *_LISTS, *_RANGE, "contains", "icontains", "exists")
_MISSING = object()


def check_conditions(conditions: Any, where: str = "metadata") -> None:
    """Raise :class:`InvalidInputError` unless ``conditions`` is a valid condition set (see the module docstring):
    well-formed, at most :data:`MAX_DEPTH` deep and :data:`MAX_TERMS` terms wide, its text valid UTF-8."""
    _check_bounds(conditions, where)
    _check_shape(conditions, where)


def _check_bounds(conditions: Any, where: str) -> None:
    """Depth, width and text of a condition set, walked without recursion (so no depth can overflow the stack)."""
    terms = 0
    stack: list[tuple[Any, int]] = [(conditions, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > 2 * MAX_DEPTH + 2:  # a logic level is a dict and a list
            raise InvalidInputError(f"{where}: conditions nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, str):
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise InvalidInputError(f"{where}: text that is not valid UTF-8 (a lone surrogate)") from None
        elif isinstance(value, Mapping):
            terms += len(value)
            stack.extend((k, depth + 1) for k in value)
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, (list, tuple)):
            terms += len(value)
            stack.extend((v, depth + 1) for v in value)
        if terms > MAX_TERMS:
            raise InvalidInputError(f"{where}: more than {MAX_TERMS} conditions and values in one filter")


def _check_shape(conditions: Any, where: str) -> None:
    if not isinstance(conditions, Mapping):
        raise InvalidInputError(f"{where}: conditions must be a dict of key -> condition")
    for key, cond in conditions.items():
        if not isinstance(key, str) or not key:
            raise InvalidInputError(f"{where}: a condition key must be a non-empty string, not {key!r}")
        here = f"{where}.{key}"
        if key in LOGIC:
            if not isinstance(cond, (list, tuple)) or not cond:
                raise InvalidInputError(f"{here} takes a non-empty list of condition dicts")
            for i, part in enumerate(cond):
                _check_shape(part, f"{here}[{i}]")
        elif isinstance(cond, (list, tuple)) and not cond:
            raise InvalidInputError(f"{here}: an empty list matches nothing")
        elif isinstance(cond, Mapping):
            unknown = sorted(set(cond) - set(OPERATORS))
            if unknown or not cond:
                raise InvalidInputError(f"{here}: unknown operators {unknown}; use {list(OPERATORS)}")
            for op in _LISTS:
                if op in cond and not isinstance(cond[op], (list, tuple)):
                    raise InvalidInputError(f"{here}.{op} takes a list")
            if "exists" in cond and not isinstance(cond["exists"], bool):
                raise InvalidInputError(f"{here}.exists takes true or false")


def conditions_hold(metadata: Mapping[str, Any], conditions: Mapping[str, Any] | None) -> bool:
    """Whether a record's ``metadata`` satisfies ``conditions`` (checked by :func:`check_conditions`)."""
    for key, cond in (conditions or {}).items():
        if key == "AND":
            ok = all(conditions_hold(metadata, part) for part in cond)
        elif key == "OR":
            ok = any(conditions_hold(metadata, part) for part in cond)
        elif key == "NOT":
            ok = not any(conditions_hold(metadata, part) for part in cond)
        else:
            ok = _holds(metadata.get(key, _MISSING), cond)
        if not ok:
            return False
    return True


def _holds(value: Any, cond: Any) -> bool:
    present = value is not _MISSING
    value = value if present else None
    if isinstance(cond, (list, tuple)):
        return value in cond
    if not isinstance(cond, Mapping):
        return value == cond
    for op, operand in cond.items():
        if op == "exists":
            ok = present is operand
        elif op == "eq":
            ok = value == operand
        elif op == "ne":
            ok = value != operand
        elif op == "in":
            ok = value in operand
        elif op == "nin":
            ok = value not in operand
        elif op in _RANGE:
            pair = None if value is None else _comparable(value, operand)
            ok = pair is not None and _RANGE[op](*pair)
        else:  # contains, icontains
            text, part = (value, str(operand)) if op == "contains" else (str(value).lower(), str(operand).lower())
            ok = isinstance(value, str) and part in text
        if not ok:
            return False
    return True


def _comparable(value: Any, bound: Any) -> tuple[Any, Any] | None:
    """(value, bound) as two numbers or two aware datetimes, or None when they do not compare."""
    if isinstance(bound, (int, float)) and not isinstance(bound, bool):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return (value, bound) if ok else None
    try:
        b = aware_utc(bound if isinstance(bound, datetime) else datetime.fromisoformat(str(bound)))
        v = aware_utc(value if isinstance(value, datetime) else datetime.fromisoformat(str(value)))
    except (TypeError, ValueError):
        return None
    return v, b
