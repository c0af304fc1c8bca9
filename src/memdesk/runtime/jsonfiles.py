"""Reading data files so that only memdesk errors come out, whatever the bytes.

A missing file is :class:`~memdesk.errors.DataNotFoundError`; anything that cannot be read as the
expected text (not UTF-8, cut-off gzip, invalid JSON, JSON nested too deeply to parse, an integer
too long to convert) is :class:`~memdesk.errors.MalformedFileError` naming the file and the place.
Files ending in ``.gz`` are decompressed.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import DataNotFoundError, MalformedFileError


def read_text(path: str | Path) -> str:
    """The whole file as UTF-8 text."""
    p = Path(path)
    if not p.exists():
        raise DataNotFoundError(str(p))
    try:
        raw = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
    except IsADirectoryError as e:
        raise MalformedFileError(str(p), "is a folder, not a file") from e
    except OSError as e:  # permissions, a cut-off or corrupt gzip stream (BadGzipFile is an OSError)
        raise MalformedFileError(str(p), f"cannot read: {e}") from e
    except (EOFError, zlib.error) as e:
        raise MalformedFileError(str(p), f"cut-off or corrupt gzip data: {e}") from e
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MalformedFileError(str(p), f"not UTF-8 text (byte {e.start})") from e


def parse_json(text: str, where: str, path: str) -> Any:
    """``json.loads`` with every failure as :class:`MalformedFileError` (``where``: e.g. ``line 3``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise MalformedFileError(path, f"{where}not valid JSON: {e}") from e
    except RecursionError as e:
        raise MalformedFileError(path, f"{where}JSON nested too deeply") from e
    except ValueError as e:  # e.g. an integer with more digits than Python converts
        raise MalformedFileError(path, f"{where}unreadable JSON value: {e}") from e


def read_json(path: str | Path) -> Any:
    """The JSON document in ``path``."""
    return parse_json(read_text(path), "", str(path))


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) of every non-blank line of a JSON-lines file."""
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if line.strip():
            yield n, parse_json(line, f"line {n}: ", str(path))
