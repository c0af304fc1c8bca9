"""The export file: JSON Lines, one typed object a line, versioned by its first line.

    {"kind": "header", "format": "memdesk-export", "format_version": 1, "memdesk_version": ..., "created_at": ...,
     "scope": {...}, "wildcard": false, "vectors": true, "embedder": {"model_id": ..., "dim": 384}}
    {"kind": "record", "record": {...}, "vector": "<base64 float32>", "history": [{...}, ...]}   one per current record
    {"kind": "deleted", "record_id": ..., "history": [{...}]}       records deleted from the scope: their tombstones
    {"kind": "message", "message": {...}}                            raw messages in log order, pending or processed
    {"kind": "bank", "collection": ..., "documents": {"<set>": [[id, payload], ...]}}   a reasoning bank's manifest etc.
    {"kind": "bank_item", "collection": ..., "id": ..., "payload": "...", "vector": "..."}  its examples
    {"kind": "end", "counts": {"record": n, ...}}                   the last line: a file cut short is refused

A record's ``history`` holds its entries written under the exported scope, oldest first (ADD, UPDATE...). Vectors
are little-endian float32 bytes in base64 (bit-exact); without them (``"vectors": false``) an import embeds again.
A reader refuses a ``format_version`` it does not know. The format is part of the public API (CHANGELOG.md).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import datetime
from typing import IO, Annotated, Any, Literal, Union

import numpy as np
from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from ..errors import MalformedFileError
from ..records import HistoryEntry, MemoryRecord, RawMessage, Scope
from ..store.base import EmbeddingInfo

FORMAT = "memdesk-export"
FORMAT_VERSION = 1


class KindCounts(BaseModel):
    """How many records, history entries, raw messages, banks and bank items an export wrote or an import read in:
    the counts both report (each adds its own)."""

    records: int = 0
    history: int = 0
    messages: int = 0
    banks: int = 0
    bank_items: int = 0


class Header(BaseModel):
    kind: Literal["header"] = "header"
    format: str = FORMAT
    format_version: int = FORMAT_VERSION
    memdesk_version: str
    created_at: datetime
    scope: Scope | None = Field(description="The exported scope; None: a whole database.")
    wildcard: bool = False
    vectors: bool = False
    embedder: EmbeddingInfo | None = Field(default=None, description="Who wrote the vectors (with vectors only).")


class RecordLine(BaseModel):
    kind: Literal["record"] = "record"
    record: MemoryRecord
    vector: str | None = None
    history: list[HistoryEntry] = Field(default_factory=list)


class DeletedLine(BaseModel):
    kind: Literal["deleted"] = "deleted"
    record_id: str
    history: list[HistoryEntry]


class MessageLine(BaseModel):
    kind: Literal["message"] = "message"
    message: RawMessage


class BankLine(BaseModel):
    kind: Literal["bank"] = "bank"
    collection: str
    documents: dict[str, list[tuple[str, str]]] = Field(description="Document set name -> (id, payload) items.")


class BankItemLine(BaseModel):
    kind: Literal["bank_item"] = "bank_item"
    collection: str
    id: str
    payload: str
    vector: str | None = None


class EndLine(BaseModel):
    kind: Literal["end"] = "end"
    counts: dict[str, int]


Body = Annotated[Union[RecordLine, DeletedLine, MessageLine, BankLine, BankItemLine], Field(discriminator="kind")]
_BODY: TypeAdapter[Any] = TypeAdapter(Union[Body, EndLine])


def encode_vector(vector: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str, dim: int, where: str) -> np.ndarray:
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError as e:
        raise MalformedFileError(where, f"vector is not base64: {e}") from None
    if len(raw) != 4 * dim:
        raise MalformedFileError(where, f"vector has {len(raw) // 4} dimensions, the header says {dim}")
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


def write_line(out: IO[str], item: BaseModel) -> None:
    out.write(item.model_dump_json(exclude_none=False) + "\n")


def read_header(first: str, path: str) -> Header:
    try:
        data = json.loads(first)
    except ValueError:
        raise MalformedFileError(path, "line 1 is not JSON: not a memdesk export") from None
    if not isinstance(data, dict) or data.get("kind") != "header" or data.get("format") != FORMAT:
        raise MalformedFileError(path, f"line 1 is not a {FORMAT} header")
    if data.get("format_version") != FORMAT_VERSION:
        raise MalformedFileError(
            path, f"format_version {data.get('format_version')!r}: this memdesk reads version {FORMAT_VERSION} only"
        )
    try:
        return Header.model_validate(data)
    except ValidationError as e:
        raise MalformedFileError(path, f"line 1: {e.errors()[0]['msg']}") from None


def read_file(stream: IO[str], path: str) -> tuple[Header, Iterator[tuple[int, Body]]]:
    """The header, and the body lines (numbered) in file order; the last line must be the ``end`` line
    and its counts must match, else MalformedFileError (raised when the iteration reaches it)."""
    first = stream.readline()
    if not first:
        raise MalformedFileError(path, "empty file: not a memdesk export")
    header = read_header(first, path)

    def body() -> Iterator[tuple[int, Body]]:
        counts: dict[str, int] = {}
        end: EndLine | None = None
        for n, line in enumerate(stream, start=2):
            if not line.strip():
                continue
            if end is not None:
                raise MalformedFileError(path, f"line {n}: data after the end line")
            try:
                item = _BODY.validate_json(line)
            except ValidationError as e:
                err = e.errors()[0]
                raise MalformedFileError(path, f"line {n}: {'.'.join(map(str, err['loc']))}: {err['msg']}") from None
            if isinstance(item, EndLine):
                end = item
                continue
            counts[item.kind] = counts.get(item.kind, 0) + 1
            yield n, item
        if end is None:
            raise MalformedFileError(path, "no end line: the file was cut short")
        if {k: v for k, v in end.counts.items() if v} != counts:
            raise MalformedFileError(path, f"the end line counts {end.counts}, the file holds {counts}")

    return header, body()


__all__ = [
    "BankItemLine", "BankLine", "Body", "DeletedLine", "EndLine", "FORMAT", "FORMAT_VERSION", "Header", "KindCounts",
    "MessageLine", "RecordLine", "decode_vector", "encode_vector", "read_file", "read_header", "write_line",
]  # fmt: skip
