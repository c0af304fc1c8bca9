"""The file of a persisted HNSW graph: faiss's own serialization first, then the labels' ids.

A graph of one (memory type, exact scope) is one file, ``<database>-ann/<stem>.hnsw``:

* first ``faiss.write_index`` of the graph, so :func:`open_mapped` can map it into memory
  (``IO_FLAG_MMAP_IFC``; faiss ignores what follows): its vectors are read from the page cache as a
  search touches them, not copied in;
* then a magic string, a JSON head (format, model, dimension, the change-log position the graph
  reflects and which database's, its row and label counts) and flat arrays: the byte offsets of the ids, where each
  label's ids start, the 16-byte digest of each label's vector, the ids themselves (UTF-8). They are
  read with ``np.frombuffer``: no Python object per row, so a graph of 10^6 rows opens in well under
  a second;
* last, the head's offset and the magic string again.

It is written to a temporary file (0600) and renamed, so a reader sees a whole file; a reader maps the
file it read the head of (the inode is checked, :func:`open_mapped`). A file replaced or unlinked while
another process has it mapped stays whole for that process; a forget zeroes it in place first
(:mod:`.ann_scopes`), and that process drops its copy at its next sync. The older format 1
(``MDHNSW01`` first, ids as JSON, then faiss) is still read (:func:`.ann.read_graph`).
"""

from __future__ import annotations

import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from ..errors import StoreError
from .private_files import create_exclusive
from .ann import MAGIC, HNSWGraph, _faiss, read_graph

MAGIC2 = b"MDHNSW02"
FORMAT2 = 2
DIGEST = 16


@dataclass
class GraphFile:
    """A format-2 header: the labels' ids as flat arrays, and which faiss file holds the graph."""

    model_id: str
    dim: int
    stamp: int
    """The change-log id up to which the graph reflects the scope's rows (0: unknown)."""
    database: str
    """Which database that id is of (:func:`.ann_cold.database_id`)."""
    rows: int
    id_offsets: np.ndarray
    label_start: np.ndarray
    digests: bytes
    id_blob: bytes

    @property
    def labels(self) -> int:
        return len(self.label_start) - 1

    def ids_of(self, label: int) -> list[str]:
        off, blob = self.id_offsets, self.id_blob
        return [blob[off[n] : off[n + 1]].decode() for n in range(self.label_start[label], self.label_start[label + 1])]

    def members(self) -> list[list[str]]:
        off, blob, start = self.id_offsets.tolist(), self.id_blob, self.label_start.tolist()
        ids = [blob[off[n] : off[n + 1]].decode() for n in range(len(off) - 1)]
        return [ids[start[n] : start[n + 1]] for n in range(len(start) - 1)]

    def digest_list(self) -> list[bytes]:
        d = self.digests
        return [d[n : n + DIGEST] for n in range(0, len(d), DIGEST)]

    def live(self) -> np.ndarray:
        return np.diff(self.label_start) > 0


def write_file(path: Path, graph: HNSWGraph, model_id: str, stamp: int, database: str = "") -> None:
    """Write ``graph`` to ``path`` (see the module docstring); OSError on failure (the temporary file
    is removed)."""
    faiss = _faiss()
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    encoded = [i.encode() for m in graph.members for i in m]
    offsets = np.zeros(len(encoded) + 1, dtype="<i8")
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    starts = np.zeros(graph.labels + 1, dtype="<i8")
    np.cumsum([len(m) for m in graph.members], out=starts[1:])
    head = json.dumps(
        {"format": FORMAT2, "model_id": model_id, "dim": graph.dim, "stamp": int(stamp), "database": database, "rows": len(encoded),
         "labels": graph.labels, "id_bytes": int(offsets[-1])}  # fmt: skip
    ).encode()
    try:
        tmp.unlink(missing_ok=True)  # a leftover of a crashed writer of this pid (or a planted link): not written through
        with os.fdopen(create_exclusive(tmp), "wb") as f:
            writer = faiss.PyCallbackIOWriter(f.write)
            faiss.write_index(graph._index, writer)
            del writer  # flushes
            at = f.tell()
            f.write(MAGIC2 + struct.pack("<Q", len(head)) + head)
            f.write(offsets.tobytes() + starts.tobytes() + b"".join(graph._digests) + b"".join(encoded))
            f.write(struct.pack("<Q", at) + MAGIC2)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    graph.unsaved = 0


def _header(f: Any) -> GraphFile | None:
    """The format-2 head of the open file ``f``; None if it is format 1; StoreError if damaged."""
    if f.read(len(MAGIC)) == MAGIC:
        return None
    tail = len(MAGIC2) + 8
    size = f.seek(0, os.SEEK_END)
    if size < 2 * tail:
        raise StoreError("not a memdesk HNSW index file")
    f.seek(size - tail)
    trailer = f.read(tail)
    (at,) = struct.unpack("<Q", trailer[:8])
    if trailer[8:] != MAGIC2 or not 0 < at <= size - 2 * tail:
        raise StoreError("not a memdesk HNSW index file (or a damaged one)")
    f.seek(at)
    data = f.read(size - tail - at)
    if data[: len(MAGIC2)] != MAGIC2:
        raise StoreError("a damaged HNSW index file")
    (length,) = struct.unpack("<Q", data[len(MAGIC2) : len(MAGIC2) + 8])
    at = len(MAGIC2) + 8 + length
    try:
        head = json.loads(data[len(MAGIC2) + 8 : at])
        rows, labels, id_bytes = int(head["rows"]), int(head["labels"]), int(head["id_bytes"])
        offsets = np.frombuffer(data, dtype="<i8", count=rows + 1, offset=at)
        at += 8 * (rows + 1)
        starts = np.frombuffer(data, dtype="<i8", count=labels + 1, offset=at)
        at += 8 * (labels + 1)
        digests = data[at : at + DIGEST * labels]
        blob = data[at + DIGEST * labels :]
        ok = head["format"] == FORMAT2 and len(digests) == DIGEST * labels and len(blob) == id_bytes == offsets[-1]
        ok = ok and starts[-1] == rows and bool(np.all(np.diff(starts) >= 0)) and bool(np.all(np.diff(offsets) >= 0))
        header = GraphFile(
            str(head["model_id"]), int(head["dim"]), int(head["stamp"]), str(head["database"]), rows, offsets, starts, digests, blob
        )
    except (ValueError, KeyError, TypeError) as e:
        raise StoreError(f"a damaged HNSW index header: {e}") from e
    if not ok:
        raise StoreError("a damaged HNSW index header")
    return header


def read_header(path: Path) -> GraphFile | None:
    """The format-2 head of the file at ``path``; None if it is format 1; StoreError if damaged."""
    with open(path, "rb") as f:
        return _header(f)


def _faiss_of(path: Path, header: GraphFile, flags: int) -> Any:
    faiss = _faiss()
    try:
        index = faiss.read_index(str(path), flags)
    except RuntimeError as e:
        raise StoreError(f"a damaged HNSW index: {e}") from e
    if index.ntotal != header.labels or index.d != header.dim or not hasattr(index, "hnsw"):
        raise StoreError("an HNSW index file whose labels do not match its graph")
    return index


def open_mapped(path: Path, model_id: str, dim: int) -> tuple[GraphFile, Any, IO[bytes]] | None:
    """The format-2 head of ``path``, its faiss index mapped into memory and the open file (the same
    file: its inode is checked after mapping; :func:`owned` reads the graph from it); None if the file
    is format 1 or was replaced meanwhile; StoreError if it is damaged or for another model or
    dimension, FileNotFoundError if there is none."""
    faiss = _faiss()
    f = open(path, "rb")
    try:
        header = _header(f)
        if header is not None:
            check_header(header, model_id, dim)
            index = _faiss_of(path, header, faiss.IO_FLAG_MMAP_IFC)
            if os.stat(path).st_ino == os.fstat(f.fileno()).st_ino:
                return header, index, f
    except BaseException:
        f.close()
        raise
    f.close()
    return None


def owned(source: IO[bytes]) -> Any:
    """The faiss index of an open graph file read into memory (a mapped one cannot grow); the file is closed."""
    faiss = _faiss()
    with source:
        source.seek(0)
        try:
            return faiss.read_index(faiss.PyCallbackIOReader(source.read))
        except RuntimeError as e:
            raise StoreError(f"a damaged HNSW index: {e}") from e


def read_pair(path: Path, model_id: str, dim: int, **options: Any) -> tuple[HNSWGraph, int]:
    """The graph at ``path`` (either format) read into memory, and its stamp (0 for format 1);
    StoreError if it is not one for ``model_id`` / ``dim`` or damaged, FileNotFoundError if there is
    none. Not yet reconciled."""
    with open(path, "rb") as f:
        header = _header(f)
        f.seek(0)
        if header is None:
            return read_graph(f, model_id, dim, **options), 0
        check_header(header, model_id, dim)
        try:
            index = _faiss().read_index(_faiss().PyCallbackIOReader(f.read))
        except RuntimeError as e:
            raise StoreError(f"a damaged HNSW index: {e}") from e
    if index.ntotal != header.labels or index.d != dim or not hasattr(index, "hnsw"):
        raise StoreError("an HNSW index file whose labels do not match its graph")
    return HNSWGraph.restore(index, header.members(), header.digest_list(), **options), header.stamp


def check_header(header: GraphFile, model_id: str, dim: int) -> None:
    if header.model_id != model_id or header.dim != dim:
        raise StoreError("an HNSW index file of another format, model or dimension")


__all__ = ["GraphFile", "open_mapped", "owned", "read_header", "read_pair", "write_file"]
