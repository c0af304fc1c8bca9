"""pgvector ``vector`` values over psycopg's binary protocol: bit-exact float32 both ways.

A vector read back is the float32 vector written, -0.0 and subnormals included; it is loaded as the
little-endian float32 bytes :mod:`.codec` uses. :func:`register_vector` installs both on a
connection's adapters (the store's synchronous connection and each async one of :mod:`.pg_loop`).
"""

from __future__ import annotations

import struct
import sys
from array import array
from typing import Any

import numpy as np
import psycopg
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format

from ..errors import StoreError
from .codec import FLOAT32

_VECTOR_HEADER = struct.Struct(">hh")  # pgvector binary format: dim, unused, then big-endian float4s
_LITTLE_ENDIAN = sys.byteorder == "little" and array("f").itemsize == 4


class PgVector:
    """A float32 vector to send as a pgvector ``vector`` parameter (binary, bit-exact)."""

    __slots__ = ("array",)

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


class _VectorDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj: PgVector) -> bytes:
        a = obj.array
        return _VECTOR_HEADER.pack(a.shape[0], 0) + a.astype(">f4", copy=False).tobytes()


class _VectorLoader(Loader):
    """Loads a binary ``vector`` as the little-endian float32 bytes :mod:`.codec` uses."""

    format = Format.BINARY

    def load(self, data: Any) -> bytes:
        dim, _ = _VECTOR_HEADER.unpack_from(data)
        if _LITTLE_ENDIAN:  # array's byteswap is about twice as fast as numpy's astype on one row
            floats = array("f")
            floats.frombytes(data[4 : 4 + 4 * dim])
            floats.byteswap()
            return floats.tobytes()
        return np.frombuffer(data, dtype=">f4", count=dim, offset=4).astype(FLOAT32).tobytes()


def vector_oid(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT to_regtype('vector')::oid").fetchone()
    if row is None or row[0] is None:
        raise StoreError("the pgvector type 'vector' is not visible on this connection's search_path")
    return int(row[0])


def register_vector(adapters: Any, oid: int) -> None:
    """Send :class:`PgVector` and read ``vector`` columns in binary on a connection (``conn.adapters``)."""
    adapters.register_dumper(PgVector, type("VectorDumper", (_VectorDumper,), {"oid": oid}))
    adapters.register_loader(oid, _VectorLoader)


__all__ = ["PgVector", "register_vector", "vector_oid"]
