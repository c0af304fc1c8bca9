"""No error about a database URL shows its password: every path that formats a connection string, tried with
one that carries a password (the message, the whole traceback, and the command line's error line)."""

from __future__ import annotations

import traceback

import pytest

from memdesk.errors import ConfigError, MemdeskError, StoreError
from memdesk.text.redaction import mask_connection_error
from memdesk.store import open_store

pytest.importorskip("psycopg")
from memdesk.store.postgres import PostgresStore, describe_dsn  # noqa: E402

PIECES = ("Pw9", "Qk4Secret")  # every piece of every password below


def shown(error: BaseException) -> str:
    return "".join(traceback.format_exception(error))


def assert_hidden(text: str) -> None:
    assert all(p not in text for p in PIECES), text


@pytest.mark.parametrize(
    ("dsn", "error", "says"),
    [
        ("postgresql://ana:Pw9%zzQk4Secret@127.0.0.1:1/db", ConfigError, "percent-encoded"),  # libpq quotes the token
        ("host=127.0.0.1 port=1 password=Pw9 Qk4Secret", ConfigError, 'missing "=" after'),  # ...or what follows it
        ("postgresql://ana:Pw9Qk4Secret@127.0.0.1:1/db", StoreError, "cannot connect"),
        ("host=127.0.0.1 port=1 user=ana password='Pw9 Qk4Secret'", StoreError, "cannot connect"),
        ("postgresql://ana:Pw9Qk4Secret@127.0.0.1:1/db?sslmode=bogus", StoreError, 'invalid sslmode value: "bogus"'),
        ("postgresql://ana:Pw9@Qk4Secret@nohost.invalid/db", StoreError, "***@nohost.invalid"),  # an unencoded "@"
    ],
)
def test_postgres_errors_never_show_the_password(dsn, error, says):
    with pytest.raises(error) as err:
        PostgresStore(dsn, connect_timeout_s=2)
    assert says in str(err.value)
    assert_hidden(shown(err.value))
    assert_hidden(describe_dsn(dsn))


@pytest.mark.parametrize(
    "url",
    [
        "host=db password=Pw9Qk4Secret",  # a libpq string is not a URL: no scheme
        "sqlite://ana:Pw9Qk4Secret@host/x",
        "sqlite:///tmp/x.db?password=Pw9Qk4Secret",
        b"postgresql://ana:Pw9Qk4Secret@db/x",
    ],
)
def test_open_store_errors_never_show_the_password(url):
    with pytest.raises(ConfigError) as err:
        open_store(url)  # type: ignore[arg-type]
    assert_hidden(shown(err.value))


def test_the_command_line_shows_no_password(run, monkeypatch):
    for url in ("postgresql://ana:Pw9%zzQk4Secret@127.0.0.1:1/db", "postgresql://ana:Pw9@Qk4Secret@nohost.invalid/db"):
        monkeypatch.setenv("MEMDESK_DATABASE_URL", url)
        r = run("list", "--user", "ana", ok=False)
        assert r.exit_code != 0 and isinstance(r.exception, (SystemExit, MemdeskError))
        assert_hidden(r.output)


def test_the_masking_keeps_what_is_not_the_password():
    dsn = "postgresql://ana:Pw9Qk4Secret@db.example:5433/mem"
    message = 'connection to server at "db.example", port 5433 failed: password authentication failed for user "ana"'
    assert mask_connection_error(message, dsn, "Pw9Qk4Secret") == message
    assert mask_connection_error('token "Pw9Qk4Secret" and "Qk4"', dsn, "Pw9Qk4Secret") == 'token "***" and "***"'
    assert mask_connection_error('missing "=" after "db.example"', dsn, None) == 'missing "=" after "***"'
