"""Which scopes get an HNSW graph, and the graph files kept next to the database.

:class:`LargeScopes` is asked before each search about the in-process indexes it will read
(:meth:`LargeScopes.prepare`): an index of ``min_rows`` rows or more gets an
:class:`~memdesk.store.ann.HNSWGraph`, read from its file when there is one (then reconciled with
the rows just loaded from the database) or built and written. A build runs in a background thread
on a snapshot of the rows (the scope is searched exactly until a later search picks the graph up and
reconciles it with the rows written meanwhile); ``background=False`` builds inside the search. A
graph that holds a scope's vectors a second time is not counted against ``cache_max_rows``. A graph whose dead labels passed
:data:`~memdesk.store.ann.REBUILD_FRACTION` is rebuilt; one with more unsaved changes than
:data:`SAVE_FRACTION` of its rows is written again. Smaller scopes stay exact.

Files: one per (memory type, exact scope), ``<database>-ann/<sha256 of type and scope key>.hnsw``
(0600, in a 0700 folder; the name holds no id in clear), written to a temporary file first and
renamed, so a reader sees a whole file or none (the layout: :mod:`.ann_files`). An in-memory database
keeps its graphs in memory only. Files may be older than the rows (another process wrote since, this
one was stopped before writing its changes; a store's close writes them: :meth:`LargeScopes.save`):
each records the change-log id it reflects (the ``stamp`` of :meth:`LargeScopes.prepare`); one the
log shows current is served without loading the
rows (:meth:`LargeScopes.open_cold`, :mod:`.ann_cold`), any other is reconciled on load and written
again with a fresh stamp (:meth:`LargeScopes.adopt` hands a served graph over when the rows are loaded).

:meth:`LargeScopes.erase` (forget, ``delete_scope``) overwrites a scope's files with zeros, then
unlinks them. A writer that raced a forget in another process removes the file it just wrote if the
scope changed meanwhile (:meth:`LargeScopes.attach`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence, Union

from ..errors import ConfigError, StoreError
from .private_files import tighten_folder
from .ann import DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH, HNSWGraph, weaker_than
from .ann_cold import Fetch, GraphIndex
from .ann_files import GraphFile, open_mapped, read_pair, write_file
from .codec import ScopeTuple, scope_key
from .vector_index import VectorIndex

log = logging.getLogger(__name__)

Key = Union[ScopeTuple, str]
"""An exact scope key (records) or a collection's one key."""

DEFAULT_ANN_MIN_ROWS = 50_000
"""Rows of one (memory type, exact scope) from which it is searched through an HNSW graph (see
bench/results/ann/: exact search of 5x10^4 MiniLM vectors is already past 5 ms here)."""
SAVE_FRACTION = 0.1
_SAVE_MIN = 1000


def check_ann_options(
    min_rows: object, ef_search: object, ef_construction: object = DEFAULT_EF_CONSTRUCTION
) -> tuple[int | None, int, int]:
    if min_rows is not None and (isinstance(min_rows, bool) or not isinstance(min_rows, int) or min_rows < 1):
        raise ConfigError(f"ann_min_rows must be a positive integer or None (no approximate search), got {min_rows!r}")
    for name, value in (("ann_ef_search", ef_search), ("ann_ef_construction", ef_construction)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{name} must be a positive integer, got {value!r}")
    return min_rows, ef_search, ef_construction  # type: ignore[return-value]


def file_stem(namespace: str, key: Key) -> str:
    """The file name of a graph: a hash of the memory type (or collection) and the scope key."""
    text = key if isinstance(key, str) else scope_key(key)
    return hashlib.sha256(f"{namespace}\x00{text}".encode()).hexdigest()[:40]


class _Build:
    """A graph built in a background thread from a snapshot of a scope's rows."""

    def __init__(self, dim: int, index: VectorIndex, options: dict[str, Any]) -> None:
        ids, matrix, codes = index.rows()
        self._rows = (list(ids), matrix.copy(), codes.copy())  # the index changes under the thread
        self._dim, self._options = dim, options
        self.graph: HNSWGraph | None = None
        self.failed = False
        self.thread = threading.Thread(target=self._run, name="memdesk-hnsw-build", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        started = time.perf_counter()
        try:
            self.graph = HNSWGraph.from_rows(self._dim, *self._rows, **self._options)
        except Exception:  # noqa: BLE001 - a thread has no caller: log it, the scope stays exact
            self.failed = True
            log.exception("building an HNSW graph failed; the scope stays on exact search")
        finally:
            self._rows = None  # type: ignore[assignment]
        if self.graph is not None:
            log.info("HNSW graph: %d rows in %.1f s", len(self.graph), time.perf_counter() - started)


class LargeScopes:
    """The HNSW graphs of the large scopes of one database (see the module docstring)."""

    def __init__(
        self,
        folder: Path | None,
        *,
        min_rows: int,
        ef_search: int = DEFAULT_EF_SEARCH,
        ef_construction: int = DEFAULT_EF_CONSTRUCTION,
        background: bool = True,
    ) -> None:
        self.folder = folder
        self.min_rows, self.ef_search, self.ef_construction = check_ann_options(min_rows, ef_search, ef_construction)
        self.background = background
        self._builds: dict[tuple[str, Key], _Build] = {}
        self.builds = 0
        """Graphs built (not read from a file) by this process: the persistence tests read it."""
        self.reads = 0
        self.cold = 0
        """Graphs attached from a current file without loading the scope's rows (:mod:`.ann_cold`)."""
        self._adopted: dict[tuple[str, Key], HNSWGraph | None] = {}  # graphs of entries reloaded with their rows
        self._restamp: set[tuple[str, Key]] = set()  # files found not current: written again once reconciled

    def path(self, namespace: str, key: Key) -> Path | None:
        return None if self.folder is None else self.folder / f"{file_stem(namespace, key)}.hnsw"

    def prepare(
        self, namespace: str, keys: Sequence[Key], indexes: Sequence[Any], model_id: str, stamp: tuple[int, str] = (0, "")
    ) -> list[Key]:
        """Attach, (re)build or write the graphs of the large ``indexes`` (one per key); returns the
        keys whose file was written now. A scope whose graph is still being built stays exact.
        ``stamp``: the change-log id the indexes reflect and the database's id, written with each file
        (0: none)."""
        written = []
        for key, index in zip(keys, indexes):
            if isinstance(index, GraphIndex):  # attached from its file; written again once changed enough
                graph = index.materialized
                if graph is not None and self._stale(graph) and self._write(namespace, key, graph, model_id, stamp):
                    written.append(key)
                continue
            graph = index.ann
            if graph is None and len(index) < self.min_rows:
                self._builds.pop((namespace, key), None)
                continue
            built = restamp = False
            if not isinstance(graph, HNSWGraph):
                graph = self._read(namespace, key, index, model_id)
                restamp = (namespace, key) in self._restamp and graph is not None
            if graph is None or graph.needs_rebuild():
                fresh = self._built(namespace, key, index)
                if fresh is not None:
                    graph, built = fresh, True
            if graph is None:
                continue
            self._restamp.discard((namespace, key))
            index.ann = graph
            if (built or restamp or self._stale(graph)) and self._write(namespace, key, graph, model_id, stamp):
                written.append(key)
        return written

    @staticmethod
    def _stale(graph: HNSWGraph) -> bool:
        return graph.unsaved > max(_SAVE_MIN, SAVE_FRACTION * len(graph))

    def open_cold(
        self, namespace: str, key: Key, model_id: str, dim: int, current: Callable[[GraphFile], bool], fetch: Fetch
    ) -> GraphIndex | None:
        """The scope's graph file as a :class:`GraphIndex` if ``current`` says it still shows the
        scope's rows (:func:`.ann_cold.is_current`); None otherwise (the owner loads the rows, and the
        file is written again once reconciled)."""
        path = self.path(namespace, key)
        if path is None or (namespace, key) in self._adopted or not path.exists():
            return None
        try:
            opened = open_mapped(path, model_id, dim)
        except (OSError, StoreError):
            opened = None  # the full read says why (and rebuilds)
        weak = opened is not None and weaker_than(opened[1], self.ef_construction)  # rebuilt once the rows are loaded
        if opened is None or weak or opened[0].rows < self.min_rows or not current(opened[0]):
            if opened is not None:
                opened[2].close()
            self._restamp.add((namespace, key))
            return None
        self.cold += 1
        self.reads += 1
        return GraphIndex(*opened, fetch, **self._options())

    def adopt(self, namespace: str, key: Key, graph: HNSWGraph | None) -> None:
        """The graph of an entry about to be reloaded with its rows: the next :meth:`prepare` of ``key``
        reconciles it with them instead of reading the file."""
        self._adopted[(namespace, key)] = graph  # None: the file is current, the next prepare reads it
        if graph is not None and graph.unsaved:  # its file is behind
            self._restamp.add((namespace, key))

    def attach(
        self,
        namespace: str,
        keys: Sequence[Key],
        indexes: Sequence[VectorIndex],
        model_id: str,
        *,
        sync: Callable[[], None],
        still_loaded: Callable[[Key], bool],
        stamp: tuple[int, str] = (0, ""),
    ) -> None:
        """:meth:`prepare`, then, if files were written: ``sync`` (take in other connections' commits)
        and remove the file of every key whose index is no longer loaded (someone changed it
        meanwhile, perhaps forgot it), so no file outlives a forget that raced its writing."""
        self._checked(namespace, self.prepare(namespace, keys, indexes, model_id, stamp), sync, still_loaded)

    def save(
        self,
        namespace: str,
        graphs: Sequence[tuple[Key, HNSWGraph]],
        model_id: str,
        *,
        sync: Callable[[], None],
        still_loaded: Callable[[Key], bool],
        stamp: tuple[int, str] = (0, ""),
    ) -> None:
        """Write the file of every graph with changes its file lacks (a store's close: the owner synced
        first, so each graph shows the rows up to ``stamp``), then :meth:`attach`'s check."""
        written = [key for key, graph in graphs if graph.unsaved and self._write(namespace, key, graph, model_id, stamp)]
        self._checked(namespace, written, sync, still_loaded)

    def _checked(
        self, namespace: str, written: list[Key], sync: Callable[[], None], still_loaded: Callable[[Key], bool]
    ) -> None:
        """After writing ``written``'s files: take in other connections' commits and remove the file of
        every key no longer loaded (changed meanwhile, perhaps forgotten): no file outlives a forget."""
        if written:
            sync()
            stale = [key for key in written if not still_loaded(key)]
            if stale:
                self.erase(namespace, stale)

    def _options(self) -> dict[str, Any]:
        return {"ef_search": self.ef_search, "ef_construction": self.ef_construction, "min_rows": self.min_rows}

    def _built(self, namespace: str, key: Key, index: VectorIndex) -> HNSWGraph | None:
        """The graph of ``index`` once built (started now if not yet), reconciled with its rows; None
        while the build runs (or after it failed)."""
        job = self._builds.get((namespace, key))
        if job is None:
            job = self._builds[(namespace, key)] = _Build(index.dim, index, self._options())
        if not self.background:
            job.thread.join()
        if job.thread.is_alive() or job.graph is None:
            return None
        del self._builds[(namespace, key)]
        self.builds += 1
        job.graph.reconcile(index)  # rows written while it was built
        return job.graph

    def wait(self) -> None:
        """Wait for the builds under way (tests, benchmarks); the next search of each scope uses its graph."""
        for job in list(self._builds.values()):
            job.thread.join()

    def clear(self) -> None:
        """Drop the builds under way (their results are not used): everything may have changed."""
        self._builds.clear()
        self._adopted.clear()

    def _read(self, namespace: str, key: Key, index: VectorIndex, model_id: str) -> HNSWGraph | None:
        graph = self._adopted.pop((namespace, key), None)
        path = self.path(namespace, key)
        if graph is None and path is not None:
            try:
                graph, _ = read_pair(path, model_id, index.dim, **self._options())
            except FileNotFoundError:
                return None
            except (OSError, StoreError) as e:
                log.warning("HNSW index file %s not used (%s): building the graph again", path.name, e)
                return None
            self.reads += 1
        if graph is not None:
            graph.reconcile(index)
        return graph

    def _write(self, namespace: str, key: Key, graph: HNSWGraph, model_id: str, stamp: tuple[int, str] = (0, "")) -> bool:
        path = self.path(namespace, key)
        if path is None:
            graph.unsaved = 0
            return False
        try:
            make_folder(path.parent)
            write_file(path, graph, model_id, *stamp)
        except OSError as e:
            log.warning("could not write the HNSW index file %s (%s); the graph stays in memory", path.name, e)
            return False
        return True

    def erase(self, namespace: str, keys: Iterable[Key]) -> None:
        """Remove the files of ``keys`` (and any half-written ones), overwritten with zeros first, and
        drop their builds under way."""
        keys = list(keys)
        for key in keys:
            self._builds.pop((namespace, key), None)
            self._adopted.pop((namespace, key), None)
        if self.folder is None or not self.folder.exists():
            return
        for key in keys:
            for path in self.folder.glob(f"{file_stem(namespace, key)}.hnsw*"):
                shred(path)


def make_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        tighten_folder(folder)  # one found with a looser mode (and its files) is made private


def shred(path: Path) -> None:
    """Overwrite a file with zeros, then unlink it (the filesystem may still keep old blocks: a
    copy-on-write or journaling one, an SSD's remapping; the database's own files have the same limit)."""
    try:
        size = path.stat().st_size
        with open(path, "r+b") as f:
            zeros = bytes(1 << 20)
            for start in range(0, size, len(zeros)):
                f.write(zeros[: min(len(zeros), size - start)])
            f.flush()
            os.fsync(f.fileno())
    except FileNotFoundError:
        return
    except OSError as e:
        log.warning("could not overwrite %s before removing it: %s", path.name, e)
    _unlink(path)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


__all__ = ["DEFAULT_ANN_MIN_ROWS", "LargeScopes", "check_ann_options"]
