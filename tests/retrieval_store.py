"""What the read-path tests share: a real SQLite store of 3-d vectors, and records put at chosen directions."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.store import open_store
from memdesk.store.base import EmbeddingInfo


def unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


@pytest.fixture
def store(tmp_path):
    st = open_store(f"sqlite:///{tmp_path}/r.db")
    st.set_embedding_info(EmbeddingInfo(model_id="test", dim=3))
    yield st
    st.close()


def put(store, rec, vec):
    """Write ``rec`` with the unit vector of direction ``vec``."""
    store.write([rec], unit(vec)[None, :])
