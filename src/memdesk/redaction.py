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


_QUOTED = re.compile(r'"([^"]*)"|\'([^\']*)\'')


def mask_connection_error(text: str, dsn: str, password: str | None) -> str:
    """A driver's message about the connection string ``dsn`` without its password.

    Besides :func:`mask_secrets`, libpq quotes the part of the string it could not use (``invalid
    percent-encoded token: "s3%zz"``, ``missing "=" after "cret"``, ``failed to resolve host 'ss@db'``
    when an unencoded ``@`` splits a URL password). A quoted fragment of ``dsn`` is masked when it may
    hold the password: always when the password is unknown (``None``: the string did not parse), else
    when it overlaps the password or holds an ``@``. The password itself is masked wherever it appears."""

    def hide(m: re.Match[str]) -> str:
        fragment = m.group(1) if m.group(1) is not None else m.group(2)
        if not fragment or fragment == "=" or fragment not in dsn:
            return m.group(0)
        risky = password is None or "@" in fragment or bool(password and (password in fragment or fragment in password))
        return m.group(0)[0] + MASK + m.group(0)[-1] if risky else m.group(0)

    text = _QUOTED.sub(hide, mask_secrets(text))
    return text.replace(password, MASK) if password and len(password) >= 3 else text


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
