"""One resumable results file for every harness: JSON lines of one pydantic model, appended and
flushed one line at a time.

A harness reads what an earlier (interrupted) run wrote, skips what is done and appends the rest.
A truncated last line (a crash mid-write) is dropped from the file; any other line that does not
parse is an error (the file belongs to another run or was edited), never skipped silently.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from ..errors import MalformedFileError

logger = logging.getLogger(__name__)

Row = TypeVar("Row", bound=BaseModel)


class ResultsFile(Generic[Row]):
    """``path`` as JSON lines of ``model``.

    Args:
        path: the file (created on the first append).
        model: the row model; every line is validated into it.
        exclude_none: leave fields that are None out of the written lines (for row models whose
            optional fields all default to None).
    """

    def __init__(self, path: str | Path, model: type[Row], *, exclude_none: bool = False) -> None:
        self.path = Path(path)
        self.model = model
        self.exclude_none = exclude_none

    def read(self) -> list[Row]:
        """Every complete row, in file order; a truncated last line is removed from the file."""
        if not self.path.exists():
            return []
        lines = self.path.read_bytes().split(b"\n")
        out: list[Row] = []
        good_bytes = 0
        for i, line in enumerate(lines):
            last = i == len(lines) - 1 or all(not rest.strip() for rest in lines[i + 1 :])
            if line.strip():
                try:
                    out.append(self.model.model_validate_json(line))
                except ValidationError as e:
                    if last and _is_truncated(line):
                        logger.warning("dropping a truncated last line of %s", self.path)
                        with open(self.path, "r+b") as f:
                            f.truncate(good_bytes)
                        break
                    raise MalformedFileError(
                        str(self.path), f"line {i + 1} is not a {self.model.__name__} ({e.errors()[0]['msg']}); "
                        "move the file away to start over"
                    ) from e
            good_bytes += len(line) + (1 if i < len(lines) - 1 else 0)
        return out

    def append(self, row: Row) -> None:
        """Write one row and flush it."""
        self.extend([row])

    def extend(self, rows: Iterable[Row]) -> None:
        """Write rows, each flushed as soon as it is written."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as f:
            for row in rows:
                f.write(row.model_dump_json(exclude_none=self.exclude_none) + "\n")
                f.flush()


def _is_truncated(line: bytes) -> bool:
    """Whether a line is a cut-off JSON text (not valid JSON at all) rather than a wrong row."""
    try:
        json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return True
    return False
