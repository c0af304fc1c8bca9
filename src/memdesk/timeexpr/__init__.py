"""Time expressions: find and resolve relative and absolute dates in text against a reference time."""

# its modules; the public names are re-exported by memdesk itself
__all__ = [
    "arrangements",
    "handlers",
    "holidays",
    "narration",
    "periods",
    "resolve",
    "spans",
    "words",
]
