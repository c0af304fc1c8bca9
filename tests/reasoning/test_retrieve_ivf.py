"""Retrieval through an IVF index of the bank: the same memories as exact search when fully probed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from memdesk.embed import HashingEmbedder
from memdesk.errors import ConfigError, EmptyInputError, UsageError
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder
from memdesk.reasoning.eval_command import reasoning_command
from memdesk.reasoning.datasets import Problem
from memdesk.reasoning.example_retrieval import VectorRetriever
from memdesk.reasoning.tags import ProblemRepresentation
from memdesk.store import IVFIndex

TOPICS = {
    "geometry": ["triangle area", "circle radius", "square diagonal", "cube volume", "rectangle perimeter"],
    "probability": ["fair dice", "coin flips", "marbles drawn", "deck cards", "random chance"],
    "dates": ["days ago", "week later", "leap year", "day of week", "calendar month"],
    "algebra": ["solve for x", "quadratic roots", "linear equation", "system of equations", "factor polynomial"],
}
QUERIES = [
    "What is the area of a triangle with base 4 and height 6?",
    "Two fair dice are rolled: what is the chance of a double?",
    "What day of the week was it 100 days ago?",
    "Solve for x: 3x + 5 = 20.",
    "A circle has radius 2. Find its area and the square diagonal.",
]


def problems() -> list[Problem]:
    out = []
    for group, topics in TOPICS.items():
        for i, topic in enumerate(topics):
            for j in range(3):
                q = f"Problem {j} about {topic}: compute the {topic} in case {j + i}."
                out.append(Problem(id=f"t:{group}:{i}:{j}", benchmark="t", question=q, answer=str(j), solution=f"{q} = {j}", group=group, split="bank"))
    return out


@pytest.fixture
def bank(store) -> MemoryBank:
    BankBuilder(store, HashingEmbedder()).build("small", "t", problems(), [])
    return MemoryBank(store, "small")


def test_fully_probed_ivf_returns_the_exact_memories(bank: MemoryBank) -> None:
    embedder = HashingEmbedder()
    exact = VectorRetriever(bank, embedder, ProblemRepresentation())
    index = bank.ivf_index(nlist=6, seed=1)
    assert len(index) == bank.count() == 60 and index.nlist <= 6
    ivf = VectorRetriever(bank, embedder, ProblemRepresentation(), index=index, nprobe=index.nlist)
    assert exact.name == "vector:problem" and ivf.name == f"vector:problem:ivf{index.nlist}/{index.nlist}"
    ivf.warm()
    for question in QUERIES:
        # the whole bank, sorted by (score, id): the store's exact top 7 may break a tie at the 7th
        # score by position rather than id, so compare with the exact full ranking
        want, got = exact.retrieve(question, 60), ivf.retrieve(question, 7)
        want.memories = want.memories[:7]
        assert [m.example for m in got.memories] == [m.example for m in want.memories]
        assert [m.rank for m in got.memories] == list(range(7))
        np.testing.assert_allclose([m.score for m in got.memories], [m.score for m in want.memories], atol=1e-5)
        assert got.retriever == ivf.name and got.query_text == want.query_text


def test_partially_probed_ivf_decodes_memories_like_the_bank(bank: MemoryBank) -> None:
    embedder = HashingEmbedder()
    ivf = VectorRetriever(bank, embedder, ProblemRepresentation(), index=bank.ivf_index(nlist=8), nprobe=1)
    assert ivf.name.endswith("/1")
    by_id = {e.id: e for e in bank.all()}
    for question in QUERIES:
        result = ivf.retrieve(question, 3)
        assert 1 <= len(result.memories) <= 3
        vector = embedder.embed([question])[0]
        for m in result.memories:
            assert m.example == by_id[m.example.id]
            assert m.score == pytest.approx(float(vector @ embedder.embed([m.example.embedding_text])[0]), abs=1e-5)


def test_ivf_retriever_rejects_bad_settings(bank: MemoryBank, store) -> None:
    embedder = HashingEmbedder()
    with pytest.raises(ConfigError):
        VectorRetriever(bank, embedder, ProblemRepresentation(), index=bank.ivf_index(), nprobe=0)
    other = IVFIndex(["a", "b"], ["{}", "{}"], np.eye(2, 16, dtype=np.float32))
    with pytest.raises(UsageError):
        VectorRetriever(bank, embedder, ProblemRepresentation(), index=other)
    with pytest.raises(EmptyInputError):
        MemoryBank(store, "nothing").ivf_index()


def test_eval_reasoning_with_ivf_search_records_it(tmp_path: Path, data_root: Path) -> None:
    out = tmp_path / "run"
    args = [
        "--bench", "mmlu-sci", "--store", f"sqlite:///{tmp_path / 'b.db'}", "--embedder", "hashing",
        "--data-dir", str(data_root), "--drop-overlap", "--retrieval-only", "--k", "5", "--limit", "60", "--quiet",
    ]  # fmt: skip
    result = CliRunner().invoke(reasoning_command, [*args, "--search", "ivf", "--nprobe", "3", "--nlist", "12", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    search = summary["search"]
    assert search["mode"] == "ivf" and search["nprobe"] == 3 and 1 <= search["nlist"] <= 12
    assert search["entries"] == summary["bank"]["entries"]
    assert summary["retrieval"][0]["retriever"] == search["retriever"] == f"vector:problem:ivf{search['nlist']}/3"
    exact = CliRunner().invoke(reasoning_command, [*args, "--out", str(tmp_path / "exact")])
    assert exact.exit_code == 0, exact.output
    exact_summary = json.loads((tmp_path / "exact" / "summary.json").read_text())
    assert exact_summary["search"] == {"retriever": "vector:problem", "mode": "exact"}
    refused = CliRunner().invoke(reasoning_command, [*args, "--retriever", "bm25", "--search", "ivf", "--out", str(tmp_path / "x")])
    assert refused.exit_code != 0 and "bm25" in refused.output
    # a run directory is not resumed with another retriever: its run ids would mix the two
    mixed = CliRunner().invoke(reasoning_command, [*args, "--out", str(out)])
    assert mixed.exit_code == 2 and "use another --out" in mixed.output
