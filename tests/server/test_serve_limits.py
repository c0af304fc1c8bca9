"""`memdesk serve` runs uvicorn with the server's own limits (request line and headers, keep-alive, connections),
masks secrets in every log line, and prints no credential at start-up."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture
def served_with(run, monkeypatch):
    """Run `memdesk serve` with uvicorn.run captured: what it was given."""
    import uvicorn

    got: dict = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.update(app=app, **kw))

    def serve(*args: str, **env: str):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        result = run("serve", "--no-mcp", *args)
        return got, result.output

    return serve


def test_serve_passes_the_header_size_keep_alive_and_connection_limits(served_with):
    got, _ = served_with(MEMDESK_MAX_HEADER_BYTES="8192", MEMDESK_KEEP_ALIVE_S="3", MEMDESK_MAX_CONNECTIONS="50")
    assert got["http"] == "h11" and got["h11_max_incomplete_event_size"] == 8192
    assert got["timeout_keep_alive"] == 3 and got["limit_concurrency"] == 50


def test_every_log_handler_masks_and_cuts(served_with):
    got, _ = served_with()
    config = got["log_config"]
    assert all("redact" in h["filters"] for h in config["handlers"].values())
    logging.config.dictConfig(config)
    try:
        handler = logging.getLogger("uvicorn.access").handlers[0]
        record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                                   ("127.0.0.1:9", "GET", "/v1?access_token=s3cret&x=" + "a" * 50_000, "1.1", 200), None)  # fmt: skip
        assert all(f.filter(record) for f in handler.filters)
        line = handler.format(record)
        assert "s3cret" not in line and len(line) < 2_300
    finally:
        logging.config.dictConfig({"version": 1, "disable_existing_loggers": False})


def test_the_server_limits_reach_the_app(served_with):
    key = "serve-limits-key-0123456789"
    got, output = served_with(MEMDESK_MAX_BODY_BYTES="2048", MEMDESK_METRICS="off", MEMDESK_API_KEYS=key)
    from fastapi.testclient import TestClient

    with TestClient(got["app"], base_url="http://127.0.0.1") as c:  # (the CLI closed its store: nothing reads it)
        r = c.post("/v1/memories", content=b"x" * 4096, headers={"content-type": "application/json", "x-api-key": key})
        assert r.status_code == 413 and c.get("/metrics").status_code == 404
    assert "memdesk on http://127.0.0.1:8000" in output


def test_a_megabyte_url_is_refused_by_the_parser_while_another_client_is_served(mem):
    """Over a real socket: the 1 MB request line never reaches the app (400 from h11's size limit), and a second
    client opened meanwhile is answered."""
    import socket

    import httpx2

    from memdesk.server import ApiKeys, create_app

    from .conftest import KEY, LiveServer

    with LiveServer(create_app(mem, api_keys=ApiKeys([KEY]), mcp=False)) as live:
        with socket.create_connection(("127.0.0.1", live.port), timeout=60) as hostile, httpx2.Client(base_url=live.url, timeout=60) as other:
            try:
                hostile.sendall(b"GET /healthz?x=" + b"a" * 1_000_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            except OSError:  # the server may hang up before it has all of it
                pass
            assert other.get("/healthz").status_code == 200
            reply = hostile.recv(64)
        assert reply.split(b" ")[1] == b"400", reply
