"""How many CPUs this process may run on: what memdesk sizes its thread pools by."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on: its affinity mask (``taskset``, a container's cpuset), at
    least 1. ``os.cpu_count()`` counts the machine's, so a process pinned to one core of many would
    start a thread per core of the machine on it."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity masks on this platform (macOS, Windows)
        return os.cpu_count() or 1
