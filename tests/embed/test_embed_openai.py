"""OpenAIEmbedder through the real openai SDK, against an httpx2.MockTransport server."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx2
import numpy as np
import pytest

from memdesk.embed import Embedder, OpenAIEmbedder
from memdesk.errors import ConfigError, EmbedderError

BASE = "http://embed.test/v1"
DIM = 8
FAST_RETRY = {"retry-after-ms": "5"}  # servers may say how long to wait; keeps retry tests fast


def vector_for(text: str) -> list[float]:
    """A deterministic, unnormalized vector that differs per text."""
    rng = np.random.default_rng(sum(map(ord, text)) + len(text))
    return (rng.normal(size=DIM) * 3).tolist()


def ok_response(payload: dict, model: str = "text-embedding-3-small", reverse: bool = False) -> httpx2.Response:
    inputs = payload["input"]
    data = [{"object": "embedding", "index": i, "embedding": vector_for(t)} for i, t in enumerate(inputs)]
    if reverse:  # the API does not promise order; the index field does
        data.reverse()
    return httpx2.Response(
        200,
        json={
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": 3 * len(inputs), "total_tokens": 3 * len(inputs)},
        },
    )


def error_response(
    status: int, message: str, type_: str, code: str | None, headers: dict | None = None
) -> httpx2.Response:
    body = {"error": {"message": message, "type": type_, "param": None, "code": code}}
    return httpx2.Response(status, json=body, headers=headers or {})


class Server:
    """Records requests and answers them with a scripted handler."""

    def __init__(self, handler: Callable[[httpx2.Request, dict], httpx2.Response]) -> None:
        self.handler = handler
        self.requests: list[httpx2.Request] = []
        self.payloads: list[dict] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        payload = json.loads(request.content)
        self.requests.append(request)
        self.payloads.append(payload)
        return self.handler(request, payload)

    def embedder(self, **kw) -> OpenAIEmbedder:  # type: ignore[no-untyped-def]
        kw.setdefault("base_url", BASE)
        kw.setdefault("api_key", "sk-test")
        kw.setdefault("model", "test-embedder")
        return OpenAIEmbedder(http_client=httpx2.Client(transport=httpx2.MockTransport(self)), **kw)


def expected(texts: list[str]) -> np.ndarray:
    v = np.array([vector_for(t) for t in texts], dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_embeds_in_input_order_and_learns_dim() -> None:
    server = Server(lambda req, p: ok_response(p, reverse=True))
    emb = server.embedder(model="my-embedder")
    assert emb.model_id == "openai:my-embedder"
    texts = ["first text", "second, longer text", "third"]
    out = emb.embed(texts)
    assert out.shape == (3, DIM) and out.dtype == np.float32 and emb.dim == DIM
    np.testing.assert_allclose(out, expected(texts), atol=1e-6)
    (req,) = server.requests
    assert req.method == "POST" and str(req.url) == f"{BASE}/embeddings"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert server.payloads[0] == {"model": "my-embedder", "input": texts, "encoding_format": "float"}
    assert isinstance(emb, Embedder)


def test_batches_requests() -> None:
    server = Server(lambda req, p: ok_response(p))
    texts = [f"text number {i}" for i in range(5)]
    out = server.embedder(batch_size=2).embed(texts)
    assert [p["input"] for p in server.payloads] == [texts[0:2], texts[2:4], texts[4:5]]
    np.testing.assert_allclose(out, expected(texts), atol=1e-6)


def test_blank_texts_get_zero_vectors_without_being_sent() -> None:
    server = Server(lambda req, p: ok_response(p))
    out = server.embedder().embed(["hello", "  ", "world", ""])
    assert server.payloads[0]["input"] == ["hello", "world"]
    np.testing.assert_allclose(out[[0, 2]], expected(["hello", "world"]), atol=1e-6)
    assert not out[1].any() and not out[3].any()


def test_dim_property_probes_once_when_unknown() -> None:
    server = Server(lambda req, p: ok_response(p))
    emb = server.embedder(model="local-model")
    assert emb.dim == DIM and emb.dim == DIM
    assert len(server.requests) == 1
    assert emb.embed([]).shape == (0, DIM)
    assert len(server.requests) == 1
    given = Server(lambda req, p: ok_response(p))
    assert given.embedder(model="local-model", dim=DIM).dim == DIM
    assert given.embedder(model="text-embedding-3-large").dim == 3072
    assert given.requests == []


def test_dim_mismatch_is_an_error() -> None:
    server = Server(lambda req, p: ok_response(p))
    with pytest.raises(EmbedderError, match="expected dimension 16"):
        server.embedder(dim=16).embed(["x"])
    with pytest.raises(EmbedderError, match="expected dimension 1536"):
        server.embedder(model="text-embedding-3-small").embed(["x"])


def test_401_maps_to_embedder_error_without_retry() -> None:
    server = Server(
        lambda req, p: error_response(
            401, "Incorrect API key provided: sk-bad.", "invalid_request_error", "invalid_api_key"
        )
    )
    with pytest.raises(EmbedderError, match="refused the API key") as info:
        server.embedder(api_key="sk-bad").embed(["x"])
    assert "HTTP 401" in str(info.value)
    assert len(server.requests) == 1


def test_500_then_success_is_retried_by_the_sdk() -> None:
    def handler(req: httpx2.Request, p: dict) -> httpx2.Response:
        if len(server.requests) == 1:
            return error_response(500, "The server had an error.", "server_error", None, FAST_RETRY)
        return ok_response(p)

    server = Server(handler)
    out = server.embedder().embed(["retry me"])
    assert len(server.requests) == 2
    np.testing.assert_allclose(out, expected(["retry me"]), atol=1e-6)


def test_persistent_500_raises_after_retries() -> None:
    server = Server(lambda req, p: error_response(500, "The server had an error.", "server_error", None, FAST_RETRY))
    with pytest.raises(EmbedderError, match="HTTP 500.*The server had an error"):
        server.embedder(max_retries=1).embed(["x"])
    assert len(server.requests) == 2


def test_404_and_429_messages() -> None:
    server = Server(lambda req, p: error_response(404, "model not found", "invalid_request_error", "model_not_found"))
    with pytest.raises(EmbedderError, match="no embedding model 'nomic'"):
        server.embedder(model="nomic").embed(["x"])
    server = Server(
        lambda req, p: error_response(429, "Rate limit reached", "requests", "rate_limit_exceeded", FAST_RETRY)
    )
    with pytest.raises(EmbedderError, match="rate-limiting"):
        server.embedder(max_retries=1).embed(["x"])
    assert len(server.requests) == 2


def test_connection_error() -> None:
    def refuse(req: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=req)

    client = httpx2.Client(transport=httpx2.MockTransport(refuse))
    emb = OpenAIEmbedder("m", base_url=BASE, api_key="k", max_retries=0, http_client=client)
    with pytest.raises(EmbedderError, match="cannot reach"):
        emb.embed(["x"])


def test_malformed_answers() -> None:
    def too_few(req: httpx2.Request, p: dict) -> httpx2.Response:
        return ok_response({"input": p["input"][:-1]})

    with pytest.raises(EmbedderError, match="sent 2 texts, got 1"):
        Server(too_few).embedder().embed(["a", "b"])

    def ragged(req: httpx2.Request, p: dict) -> httpx2.Response:
        resp = json.loads(ok_response(p).content)
        resp["data"][1]["embedding"] = resp["data"][1]["embedding"][:3]
        return httpx2.Response(200, json=resp)

    with pytest.raises(EmbedderError, match="unequal length"):
        Server(ragged).embedder().embed(["a", "b"])


def test_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="API key"):
        OpenAIEmbedder("text-embedding-3-small")
    server = Server(lambda req, p: ok_response(p))
    server.embedder(api_key=None).embed(["local servers need no key"])
    assert server.requests[0].headers["authorization"] == "Bearer EMPTY"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    server.embedder(api_key=None).embed(["x"])
    assert server.requests[1].headers["authorization"] == "Bearer sk-from-env"
    with pytest.raises(ConfigError):
        OpenAIEmbedder("")
