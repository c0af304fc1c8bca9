"""Files and folders memdesk keeps data in are private (0600 / 0700) also when found looser; temp files are created
exclusively and never through a link (issue 29)."""

from __future__ import annotations

import os
import stat

import pytest

from memdesk.store import open_store
from memdesk.store.private_files import create_exclusive, tighten_folder


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_an_existing_database_and_graph_folder_with_loose_modes_are_made_private(tmp_path):
    db = tmp_path / "m.db"
    open_store(f"sqlite:///{db}").close()
    ann = tmp_path / "m.db-ann"
    ann.mkdir()
    graph = ann / "x.hnsw"
    graph.write_bytes(b"g")
    for path, loose in ((db, 0o644), (ann, 0o755), (graph, 0o666)):
        os.chmod(path, loose)
    open_store(f"sqlite:///{db}").close()
    assert (mode(db), mode(ann), mode(graph)) == (0o600, 0o700, 0o600)


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_tightening_leaves_links_alone(tmp_path):
    target = tmp_path / "elsewhere"
    target.write_text("not memdesk's")
    os.chmod(target, 0o644)
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "link").symlink_to(target)
    tighten_folder(folder)
    assert mode(target) == 0o644


def test_temp_files_are_created_exclusively_and_never_through_a_link(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    planted = tmp_path / "graph.tmp"
    planted.symlink_to(victim)
    with pytest.raises(OSError):
        create_exclusive(planted)
    assert victim.read_text() == "keep me"
    fresh = tmp_path / "new.tmp"
    os.close(create_exclusive(fresh))
    assert mode(fresh) == 0o600
    with pytest.raises(FileExistsError):
        create_exclusive(fresh)
