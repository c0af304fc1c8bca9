"""The latency breakdown of the reasoning harness: how model time is split."""

from __future__ import annotations

import pytest

from memdesk.llm.base import Completion, Usage
from memdesk.llm.server_timings import ServerTimings
from memdesk.reasoning.latency import LatencyBreakdown, split_model_time


def test_split_model_time_prefers_server_then_ttft() -> None:
    base = Usage(latency_s=2.0, calls=1)
    assert split_model_time(Completion(text="", model="m", usage=base)) == (None, None, "total")
    ttft = Usage(latency_s=2.0, calls=1, time_to_first_token_s=0.5)
    assert split_model_time(Completion(text="", model="m", usage=ttft)) == (0.5, 1.5, "ttft")
    server = Completion(text="", model="m", usage=ttft, server_timings=ServerTimings(prefill_s=0.2, decode_s=1.7, source="x"))
    assert split_model_time(server) == (0.2, 1.7, "server")


def test_breakdown_sums() -> None:
    b = LatencyBreakdown(t_tag_s=0.5, t_emb_s=0.01, t_search_s=0.0001, t_serialize_s=0.001, t_model_s=2.0)
    assert b.t_retrieval_s == pytest.approx(0.5101)
    assert b.t_end_to_end_s == pytest.approx(2.5111)
