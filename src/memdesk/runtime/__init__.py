"""Plumbing: the event-loop bridge, tracing, optional extras, data paths, JSON files, CPU counts."""

# its modules; the public names are re-exported by memdesk itself
__all__ = [
    "aio",
    "closing",
    "cpus",
    "datapaths",
    "extras",
    "jsonfiles",
    "moved",
    "tracing",
]
