"""Text utilities: language detection, input checks, secret masking, token counts."""

# its modules; the public names are re-exported by memdesk itself
__all__ = [
    "lang",
    "redaction",
    "textcheck",
    "tokens",
]
