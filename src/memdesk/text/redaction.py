"""Masking secrets out of text that memdesk shows: settings, error messages, log lines, URLs.

A database URL may carry a password (``postgresql://ana:s3cret@db/memdesk``, ``...?password=s3cret``, or a
libpq ``password=s3cret`` string), an LLM URL a key in its query (``?api-key=...``, ``access_token=...``), and a
driver may echo them in an error. :func:`mask_secrets` replaces every such secret with ``***``;
:class:`RedactingFilter` does it for log records, and shortens them first.

Every function here runs in time linear in its input (they see URLs and bodies that strangers send): URL
passwords are found from each ``://`` with bounded scans, the ``key=value`` pattern can start only where a name
starts, and a quoted value is at most :data:`MAX_SECRET` characters long. Long text is cut with :func:`shorten`
before it is masked for a log line or an error message.
"""

from __future__ import annotations

import logging
import re

MASK = "***"
MAX_SECRET = 512
"""The longest URL user name or password looked for (past it, a URL's userinfo is not a credential)."""
LOG_CHARS = 2_000
"""The most characters of one log line (or one of its arguments) that memdesk writes."""

# name=value in a query string, a libpq key=value string or a message; the name may carry a prefix ending in
# "_" or "-" (access_token, api-key, x-auth-token). The lookbehind lets a match start only where a name starts.
_NAMES = r"password|passwd|pwd|passphrase|secret|token|apikey|key|auth|authorization|credentials?|signature|sig"
_KEY_VALUE = re.compile(
    rf"(?P<head>(?<![A-Za-z0-9_-])(?:[A-Za-z0-9_-]*[_-])?(?:{_NAMES})\s*=\s*)"
    rf"(?P<secret>'(?:[^'\\\n]|\\.){{0,{MAX_SECRET}}}'|\"[^\"\n]{{0,{MAX_SECRET}}}\"|[^\s&;,'\"]+)",
    re.IGNORECASE,
)
_SCHEME = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _url_passwords(text: str) -> str:
    """``text`` with the password of every ``scheme://user:password@host`` masked.

    The password runs to the last ``@`` on its line before the next URL (within :data:`MAX_SECRET` characters),
    so a password holding ``/``, ``@`` or a space is masked whole."""
    out: list[str] = []
    done = 0
    at = text.find("://")
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in _SCHEME and at - start < 64:
            start -= 1
        user_end = at + 3
        limit = min(len(text), user_end + MAX_SECRET)
        while user_end < limit and text[user_end] not in ":/@ \t\r\n":
            user_end += 1
        following = text.find("://", at + 3)
        if start < at and user_end < len(text) and text[user_end] == ":":
            end = min(limit + MAX_SECRET, len(text), following if following != -1 else len(text))
            newline = text.find("\n", user_end, end)
            end = newline if newline != -1 else end
            at_sign = text.rfind("@", user_end + 1, end)
            if at_sign != -1:
                out.append(text[done : user_end + 1] + MASK)
                done = at_sign
        at = following
    out.append(text[done:])
    return "".join(out)


def mask_secrets(text: str) -> str:
    """``text`` with every URL password and every ``password=`` / ``token=`` / ``api-key=`` ... value replaced
    by ``***`` (linear time)."""
    text = _url_passwords(text)
    return _KEY_VALUE.sub(lambda m: m.group("head") + MASK, text)


def shorten(text: str, limit: int = LOG_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was (for log lines and echoed input)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def mask_shortened(text: str, limit: int = LOG_CHARS) -> str:
    """:func:`mask_secrets` of ``text`` cut to ``limit`` characters: bounded work, and a secret that straddles
    the cut is masked before it is cut."""
    if len(text) <= limit:
        return mask_secrets(text)
    head = mask_secrets(text[: limit + 2 * MAX_SECRET])
    return f"{head[:limit]}... ({len(text):,} characters)"


_QUOTED = re.compile(r'"([^"\n]*)"|\'([^\'\n]*)\'')


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
    """A logging filter that shortens each record's message and arguments to :data:`LOG_CHARS` and masks their
    secrets (attach it to a handler). Arguments are masked one by one, so formatters that read them (uvicorn's
    access log) keep working."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = mask_shortened(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(mask_shortened(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: mask_shortened(v) if isinstance(v, str) else v for k, v in record.args.items()}
        return True
