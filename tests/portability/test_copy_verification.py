"""A copy that loses or alters a row is caught by the final comparison, not reported as done."""

from __future__ import annotations

import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import CopyMismatchError, StoreError
from memdesk.portability.copy import copy_store
from memdesk.records import Scope
from memdesk.store import open_store


class Lossy:
    """A destination store whose restore silently drops the last record of every batch (with its history)."""

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        return getattr(self._store, name)

    def restore(self, records=(), vectors=None, **kw):
        records = list(records)
        if len(records) > 1:
            lost = records[-1].id
            records, vectors = records[:-1], vectors[:-1]
            kw["history"] = [e for e in kw.get("history", ()) if e.record_id != lost]
        return self._store.restore(records, vectors, **kw)


def test_a_destination_that_loses_rows_fails_the_copy(tmp_path):
    mem = Memory(open_store(f"sqlite:///{tmp_path}/src.db"), HashingEmbedder(256), RawTurnProcessor())
    dst = open_store(f"sqlite:///{tmp_path}/dst.db")
    try:
        mem.add(["one note", "two notes", "three notes"], scope=Scope(user_id="ana"))
        with pytest.raises(CopyMismatchError) as err:
            copy_store(mem.store, Lossy(dst))
        assert isinstance(err.value, StoreError)
        assert err.value.source.counts["records"] == 3 and err.value.destination.counts["records"] == 2
        assert err.value.destination.counts["history"] == 2
        done = copy_store(mem.store, dst)  # run again: the missing record is copied, the rest skipped
        assert done.written["records"] == 1 and done.source == done.destination
    finally:
        mem.close()
        dst.close()
