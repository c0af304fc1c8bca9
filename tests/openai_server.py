"""A small OpenAI-compatible server for tests (FastAPI, served over real sockets by ``LiveServer``).

``/v1/chat/completions`` answers with ``reply(messages)`` and reports usage; ``/v1/embeddings`` returns
deterministic vectors. ``gate`` (an int) holds every chat request until that many are in flight at once: a test
that sends that many concurrently finishes only if they really were concurrent (it cannot wait on a thread pool
smaller than the gate).
"""


import asyncio  # (no "from __future__ import annotations": FastAPI reads the handlers' annotations)
import hashlib
from collections.abc import Callable
from typing import Any


def vector_for(text: str, dim: int = 16) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [b / 255.0 + 0.01 for b in digest[:dim]]


def make_app(reply: Callable[[list[dict[str, Any]]], str], *, gate: int | None = None, gate_timeout_s: float = 30.0):
    from fastapi import FastAPI, Request

    app = FastAPI()
    state = {"in_flight": 0, "max_in_flight": 0, "requests": 0}
    arrived = asyncio.Event()
    app.state.stats = state

    @app.post("/v1/chat/completions")
    async def chat(request: Request) -> dict[str, Any]:
        body = await request.json()
        state["requests"] += 1
        state["in_flight"] += 1
        state["max_in_flight"] = max(state["max_in_flight"], state["in_flight"])
        try:
            if gate is not None:
                if state["in_flight"] >= gate:
                    arrived.set()
                await asyncio.wait_for(arrived.wait(), gate_timeout_s)
            text = reply(body["messages"])
        finally:
            state["in_flight"] -= 1
        return {
            "id": f"chatcmpl-{state['requests']}",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body["model"] + "-served",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14},
        }

    @app.post("/v1/embeddings")
    async def embeddings(request: Request) -> dict[str, Any]:
        body = await request.json()
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        return {
            "object": "list",
            "model": body["model"],
            "data": [{"object": "embedding", "index": i, "embedding": vector_for(t)} for i, t in enumerate(texts)],
            "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
        }

    return app
