"""Thread pools follow the CPUs this process may run on, not the machine's core count."""

from __future__ import annotations

import os

import pytest

from memdesk.runtime.cpus import usable_cpus
from memdesk.embed import MiniLMEmbedder
from memdesk.llm.local import server_command


def test_a_process_pinned_to_one_core_sizes_its_pools_for_one(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5}, raising=False)
    assert usable_cpus() == 1
    assert MiniLMEmbedder().intra_op_threads == 1
    cmd = server_command("/m/q.gguf", alias="q", port=9000)
    assert cmd[cmd.index("--n_threads") + 1] == "1" and cmd[cmd.index("--n_threads_batch") + 1] == "1"


def test_the_embedder_uses_at_most_four_of_the_usable_cpus(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(3)), raising=False)
    assert MiniLMEmbedder().intra_op_threads == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(12)), raising=False)
    assert MiniLMEmbedder().intra_op_threads == 4 and usable_cpus() == 12


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no affinity masks on this platform")
def test_the_real_mask_is_read():
    assert usable_cpus() == len(os.sched_getaffinity(0)) >= 1


def test_without_affinity_masks_the_machine_count_is_used(monkeypatch):
    monkeypatch.delattr(os, "sched_getaffinity", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert usable_cpus() == 6
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert usable_cpus() == 1
