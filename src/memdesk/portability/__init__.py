"""Taking memories elsewhere: export a scope to a file and import it into any store (:mod:`.export`,
:mod:`.importer`, the file format in :mod:`.format`), copy a whole database onto another (:mod:`.copy`), and back
up a live SQLite store (:mod:`.backup`). Built on the store protocols only, so SQLite and PostgreSQL alike."""

from .backup import backup_sqlite
from .copy import CopyResult, Digest, copy_store, digest
from .export import ExportCounts, export_scope
from .format import FORMAT, FORMAT_VERSION
from .importer import ImportResult, import_file

__all__ = [
    "CopyResult", "Digest", "ExportCounts", "FORMAT", "FORMAT_VERSION", "ImportResult", "backup_sqlite", "copy_store",
    "digest", "export_scope", "import_file",
]  # fmt: skip
