"""The modes of the files and folders memdesk keeps its data in: 0600 files, 0700 folders, also when they exist.

A database file (and its ``-wal`` / ``-shm``), the ``<database>-ann/`` folder and the graph files in it hold what
users said. memdesk creates them private; one that already exists with a looser mode (made by hand, copied, or by
an older version) is brought to the private mode when memdesk opens it, with a log line. A file or folder memdesk
does not own is left as it is (changing it would fail) and named in a warning.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def tighten(path: Path, mode: int) -> None:
    """Bring ``path`` (if it exists and is not a symlink) to at most ``mode``: group and other bits removed."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        return
    current = stat.S_IMODE(st.st_mode)
    if current & 0o077 == 0:
        return
    try:
        os.chmod(path, current & mode)
    except OSError as e:
        log.warning("memdesk: %s is readable by other users (mode %o) and cannot be changed: %s", path, current, e)
        return
    log.info("memdesk: %s was mode %o; now %o", path, current, current & mode)


def tighten_database(path: Path) -> None:
    """A SQLite database file and its ``-wal`` / ``-shm`` files to 0600."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        tighten(p, FILE_MODE)


def tighten_folder(folder: Path) -> None:
    """A folder of memdesk's own (``<database>-ann/``) to 0700 and the files in it to 0600."""
    tighten(folder, FOLDER_MODE)
    if folder.is_dir() and not folder.is_symlink():
        for child in folder.iterdir():
            if child.is_file() and not child.is_symlink():
                tighten(child, FILE_MODE)


def create_exclusive(path: Path) -> int:
    """Open a new file for writing (0600), refusing one that exists and never following a symlink (a temp file an
    attacker pre-placed or linked elsewhere is an error, not a target)."""
    flags = os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags, FILE_MODE)
