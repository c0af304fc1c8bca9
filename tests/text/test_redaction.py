"""Passwords are masked in what memdesk shows: settings, error lines, log records."""

from __future__ import annotations

import logging

import pytest

from memdesk.text.redaction import RedactingFilter, mask_secrets
from memdesk.settings import Settings


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("postgresql://ana:s3cret@db.internal:5432/memdesk", "s3cret"),
        ("cannot connect to postgresql://ana:p@ss@db/x: refused", "p@ss"),
        ("postgresql://db/memdesk?user=ana&password=s3cret&sslmode=require", "s3cret"),
        ("invalid dsn: host=db user=ana password='se cret' dbname=m", "se cret"),
        ("password = hunter2, retrying", "hunter2"),
        ("https://user:tok3n@llm.example/v1 refused", "tok3n"),
    ],
)
def test_passwords_are_masked(text, secret):
    masked = mask_secrets(text)
    assert secret not in masked and "***" in masked


@pytest.mark.parametrize("text", ["sqlite:////tmp/memdesk.db", "http://127.0.0.1:8000/v1/memories", "user ana said hi"])
def test_text_without_passwords_is_left_alone(text):
    assert mask_secrets(text) == text


def test_settings_show_no_password(monkeypatch, tmp_path):
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    s = Settings.load(database_url="postgresql://ana:s3cret@db/memdesk", llm_api_key="sk-123")
    shown = s.effective()
    assert shown["database_url"] == "postgresql://ana:***@db/memdesk" and shown["llm_api_key"] == "***"
    assert s.database_url.endswith("s3cret@db/memdesk")  # masked when shown, not changed


def test_log_records_are_masked():
    record = logging.LogRecord("memdesk", logging.WARNING, __file__, 1, "cannot reach %s", ("postgresql://a:pw@h/d",), None)
    assert RedactingFilter().filter(record) and record.getMessage() == "cannot reach postgresql://a:***@h/d"
