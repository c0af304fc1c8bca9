"""The one filter model for reads: which records a search, scan, evidence block or answer may use.

:class:`RecordFilter` is plain data: every backend compiles it into its own query (SQL ``WHERE`` for
scans, a row mask in the in-memory vector index, so a search's top-k is taken *after* filtering), and
:meth:`RecordFilter.matches` is the reference meaning every backend must agree with (the conformance
suite checks it). Unset fields do not filter.

Besides provenance and type, a filter holds metadata conditions (``metadata={"app": "web"}``;
a list value means "one of": ``{"app": ["web", "ios"]}``; a dict of operators such as ``{"gte": 3, "lt": 9}``
or ``{"icontains": "lido"}``; ``AND`` / ``OR`` / ``NOT``: the one condition language of
:mod:`memdesk.metadata_conditions`), an event-time range (``since`` / ``until``), and validity: by default only
memories no later memory had closed by the time of the read match (``now``, default the moment it runs: a
change said ahead of its date, "I leave the bakery at the end of next month", leaves the old memory current
until that date); ``as_of=`` keeps those that held at that time (what the memory said then),
``include_superseded=True`` keeps everything.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from .errors import InvalidInputError
from .metadata_conditions import MAX_TERMS, check_conditions, conditions_hold
from .records import MemoryType, RecordBase, Role, _aware as aware_utc, utcnow

__all__ = ["RecordFilter", "as_filter"]


class RecordFilter(BaseModel):
    """Conditions on a record's provenance and type (all must hold; an unset field matches anything).

    >>> RecordFilter(roles=["user"], sources=["chat"]).matches(record)  # doctest: +SKIP
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    roles: tuple[Role, ...] | None = Field(default=None, description="Keep records from messages of these roles.")
    sources: tuple[str, ...] | None = Field(
        default=None, description="Keep records whose source is one of these (exact match)."
    )
    types: tuple[MemoryType, ...] | None = Field(default=None, description="Keep these memory types.")
    speaker: str | None = Field(default=None, description="Keep one speaker's bank.")
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="Metadata conditions (memdesk.metadata_conditions): key -> value (equality), list of values "
        "(one of), or operators {'eq'|'ne'|'in'|'nin'|'gt'|'gte'|'lt'|'lte'|'contains'|'icontains'|'exists': "
        "operand} (ranges on numbers or ISO times); 'AND' / 'OR' / 'NOT' take lists of such dicts.",
    )
    since: datetime | None = Field(default=None, description="Keep memories whose event time is at or after this.")
    until: datetime | None = Field(default=None, description="Keep memories whose event time is before this.")
    as_of: datetime | None = Field(
        default=None, description="Keep the memories that held at this time (said by then, not yet superseded)."
    )
    include_superseded: bool = Field(default=False, description="Also keep memories a later one superseded.")
    now: datetime | None = Field(
        default=None,
        description="The time the default read counts as now (default: the moment it runs): a memory a later one "
        "closes from a later time is still current. Unused with as_of or include_superseded.",
    )

    @field_validator("roles", "sources", "types", mode="before")
    @classmethod
    def _listlike(cls, v: Any) -> Any:
        if isinstance(v, (str, MemoryType)):
            return (v,)
        if isinstance(v, (set, frozenset)):
            return tuple(sorted(v, key=str))
        return v

    @field_validator("roles", "sources", "types")
    @classmethod
    def _not_empty(cls, v: tuple | None) -> tuple | None:
        if v is not None and not v:
            raise ValueError("an empty list matches nothing: leave the field unset to keep everything")
        if v is not None and len(v) > MAX_TERMS:
            raise ValueError(f"at most {MAX_TERMS} values")
        for item in v or ():
            _utf8(item)
        return tuple(dict.fromkeys(v)) if v is not None else None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise InvalidInputError(f"invalid filter {where}: {err['msg']}") from None

    @field_validator("speaker")
    @classmethod
    def _speaker_text(cls, v: str | None) -> str | None:
        return _utf8(v) if v is not None else None

    @field_validator("since", "until", "as_of", "now")
    @classmethod
    def _aware(cls, v: datetime | None) -> datetime | None:
        return aware_utc(v)

    @field_validator("metadata")
    @classmethod
    def _conditions(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is not None:
            check_conditions(v, "invalid filter metadata")
        return v

    @property
    def is_empty(self) -> bool:
        """True when the filter keeps every current memory."""
        return self == RecordFilter()

    @property
    def store_native(self) -> bool:
        """True when the store's own search and page arguments (types, speaker) say all of it: nothing
        else is asked, superseded memories included."""
        rest = self.model_copy(update={"types": None, "speaker": None, "now": None})
        return rest == RecordFilter(include_superseded=True)

    @property
    def current_only(self) -> bool:
        """True when validity is the default's: the memories no later one had closed by :meth:`read_time`."""
        return self.as_of is None and not self.include_superseded

    def pinned(self, when: datetime | None) -> "RecordFilter":
        """This filter with ``now`` set to ``when`` (default: this moment) when its validity is the default's and no
        ``now`` is set (a search asked at ``when`` reads what held then); else itself."""
        if not self.current_only or self.now is not None:
            return self
        return self.model_copy(update={"now": aware_utc(when) if when is not None else utcnow()})

    def read_time(self) -> datetime:
        """The time the default read counts as now: ``now``, else the moment of the call."""
        return self.now if self.now is not None else utcnow()

    def type_list(self) -> list[MemoryType]:
        """The memory types to search (all of them when ``types`` is unset)."""
        return list(self.types) if self.types else list(MemoryType)

    def provenance_only(self) -> "RecordFilter":
        """The same filter without ``types`` (searches go one type at a time)."""
        return self.model_copy(update={"types": None})

    def matches(self, record: RecordBase) -> bool:
        """The reference meaning of the filter for one record."""
        if self.types is not None and record.memory_type not in self.types:
            return False
        if self.speaker is not None and record.speaker != self.speaker:
            return False
        if self.roles is not None and record.role not in self.roles:
            return False
        if self.sources is not None and record.source not in self.sources:
            return False
        if self.as_of is not None:
            if not record.valid_at(self.as_of):
                return False
        elif not self.include_superseded and record.superseded_by is not None and record.closed_at(self.read_time()):
            return False
        if self.since is not None and (record.event_time is None or record.event_time < self.since):
            return False
        if self.until is not None and (record.event_time is None or record.event_time >= self.until):
            return False
        return conditions_hold(record.metadata, self.metadata)


def _utf8(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("text that is not valid UTF-8 (a lone surrogate)") from None
    return value


def as_filter(
    where: RecordFilter | Mapping[str, Any] | None = None,
    *,
    types: Iterable[MemoryType | str] | MemoryType | str | None = None,
    speaker: str | None = None,
    roles: Sequence[str] | str | None = None,
    sources: Sequence[str] | str | None = None,
    metadata: dict[str, Any] | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    as_of: datetime | None = None,
    include_superseded: bool = False,
    now: datetime | None = None,
) -> RecordFilter:
    """One :class:`RecordFilter` from ``where`` (a filter or its fields as a dict) and the keyword
    shortcuts (``types=``, ``speaker=``, ``roles=``, ``sources=``, ``metadata=``, ``since=``, ``until=``,
    ``as_of=``, ``include_superseded=``, ``now=``); a keyword that ``where`` also sets is an :class:`InvalidInputError`."""
    if isinstance(where, Mapping):
        where = RecordFilter(**where)
    elif where is not None and not isinstance(where, RecordFilter):
        raise InvalidInputError(f"where must be a RecordFilter or a dict, not {type(where).__name__}")
    base = where or RecordFilter()
    given = {
        "types": types, "speaker": speaker, "roles": roles, "sources": sources, "metadata": metadata,
        "since": since, "until": until, "as_of": as_of, "include_superseded": include_superseded or None, "now": now,
    }  # fmt: skip
    extra = {k: v for k, v in given.items() if v is not None}
    defaults = RecordFilter()
    clash = sorted(k for k in extra if getattr(base, k) != getattr(defaults, k))
    if clash:
        raise InvalidInputError(f"{', '.join(clash)} given both as an argument and in where=")
    if not extra:
        return base
    return RecordFilter(**{**base.model_dump(exclude_defaults=True), **extra})
