"""Masking secrets out of text that memdesk shows: settings, error messages, log lines.

A database URL may carry a password (``postgresql://ana:s3cret@db/memdesk``, ``...?password=s3cret``, or a
libpq ``password=s3cret`` string) and a driver may echo it in an error. :func:`mask_secrets` replaces every
such password with ``***``; :class:`RedactingFilter` does it for log records.
"""

from __future__ import annotations

import logging
import re

MASK = "***"

# scheme://user:password@host  (the password ends at the last "@" before the host)
_URL_PASSWORD = re.compile(r"(?P<head>[a-z][a-z0-9+.-]*://[^\s:/@]*:)(?P<secret>[^\s/]*)(?=@)", re.IGNORECASE)
# password=... in a query string or a libpq key=value string (quoted or not)
_KEY_VALUE = re.compile(
    r"(?P<head>\b(?:password|passwd|pwd|api_key|apikey|token|secret)\s*=\s*)(?P<secret>'(?:[^'\\]|\\.)*'|\"[^\"]*\"|[^\s&;,'\"]+)",
    re.IGNORECASE,
)


def mask_secrets(text: str) -> str:
    """``text`` with every URL password and ``password=...`` value replaced by ``***``."""
    text = _URL_PASSWORD.sub(lambda m: m.group("head") + MASK, text)
    return _KEY_VALUE.sub(lambda m: m.group("head") + MASK, text)


class RedactingFilter(logging.Filter):
    """A logging filter that masks secrets in each record's message (attach it to a handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not format: leave it to the handler
            return True
        masked = mask_secrets(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True
