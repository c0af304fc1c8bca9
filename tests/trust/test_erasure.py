"""Forgetting is complete: after ``Memory.forget`` no byte of the SQLite files holds the forgotten text.

Alice and Bob each say distinctive secrets (short ones, a long one that spills into overflow pages, one in
non-ASCII text, one in message metadata, one in the part of a compound statement that a later change narrows away
and splits off into a closed record of its own); some records are updated (history keeps old versions) and one is
deleted (history keeps its tombstone), and each has a reasoning bank with a solved example, before Alice is
forgotten. Then every byte of ``memdesk.db``, its
``-wal`` and its ``-shm`` is scanned for each of Alice's secrets in UTF-8, UTF-16-LE and UTF-16-BE: none is
left, while every one of Bob's is still there (so the scan can see them), and Bob's memories still answer.
The same check by SQL, on SQLite and PostgreSQL, is ``tests/conformance/test_store_erasure.py``. A single
``delete(id)`` leaves a tombstone and no byte of the record's versions either.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from memdesk.conversation.base import RoutedExtraction
from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.embed.hashing import HashingEmbedder
from memdesk.errors import RecordNotFoundError, UnknownBankError
from memdesk.reasoning import ReasoningBanks
from memdesk.records import Scope
from memdesk.retrieval.retrieve import Retriever
from memdesk.store import SQLiteStore, open_store

ALICE = Scope(user_id="alice")
BOB = Scope(user_id="bob")


def secrets(who: str) -> dict[str, str]:
    """Distinctive words ``who`` says, by where they go."""
    return {
        "pin": f"Qx{who}Pin7731",
        "bank": f"Vr{who}Bankhaus",
        "pet": f"Ml{who}Katzename",
        "updated": f"Uz{who}Nachher",
        "deleted": f"Dl{who}Geloescht",
        "long": f"Lg{who}Langtext",
        "unicode": f"Çé{who}Ünïcødé",
        "metadata": f"Md{who}Anhang",
        "example": f"Ex{who}Aufgabe",  # in a solved example of the user's reasoning bank
        "bankname": f"Bk{who}Schatz",  # the bank's name
        "split": f"Sp{who}Aussenborder",  # in the part of a compound statement a later change splits off
    }


def say(memory: Memory, who: str, scope: Scope) -> None:
    s = secrets(who)
    memory.add(
        [
            {"content": f"My PIN is {s['pin']} and I bank with {s['bank']}.", "speaker": who},
            {"content": f"My cat is called {s['pet']}.", "speaker": who, "metadata": {"note": s["metadata"]}},
            {"content": f"I moved to {s['deleted']} last year.", "speaker": who},
            {"content": f"I like the word {s['unicode']}.", "speaker": who},
            {"content": ("I keep a diary. " * 400) + s["long"], "speaker": who},  # ~6 KB: overflow pages
        ],
        scope=scope,
    )
    # a compound statement, then a change of one of its facts: the compound record is narrowed in place (its earlier
    # version, with the secret, stays in its history) and what changed goes into a closed record split off it
    memory.add({"content": f"I have a wooden dinghy called Puffin, a {s['split']} 6hp outboard, and two oars.", "speaker": who}, scope=scope)
    memory.add({"content": "I sold the old 6hp outboard and bought a 9.9hp one.", "speaker": who}, scope=scope)
    every = memory.get_all(scope=scope, filters={"include_superseded": True})
    split = [r for r in every if r.metadata.get("split_from")]
    assert split and all(r.superseded_by and s["split"] in r.text() for r in split)
    narrowed = memory.history(split[0].metadata["split_from"], scope=scope)
    assert len(narrowed) == 2 and s["split"] in narrowed[0].record.text() and s["split"] not in narrowed[1].record.text()
    records = memory.get_all(scope=scope)
    pet = next(r for r in records if s["pet"] in r.embed_text())
    memory.update(pet.id, f"My cat is now called {s['updated']}.", scope=scope)
    gone = next(r for r in records if s["deleted"] in r.embed_text())
    memory.delete(gone.id, scope=scope)
    memory.search(f"what is my PIN {s['pin']}", scope=scope, hybrid=True)  # warm the vector and BM25 caches
    banks = ReasoningBanks(memory.store, memory.embedder)
    example = {"problem": f"How many {s['example']} are 3 and 4?", "answer": "7", "solution": f"3 + 4 = 7 {s['example']}. \\boxed{{7}}"}
    banks.add_examples(s["bankname"], [example], scope=scope)
    banks.retrieve_examples(s["bankname"], f"{s['example']}?", scope=scope)  # warm the bank's vector cache


def database_bytes(path: Path) -> dict[str, bytes]:
    """Every file of the database: the SQLite file, its -wal and -shm, and the search graphs in ``-ann/``."""
    files = [p for p in sorted(path.parent.glob(path.name + "*")) if p.is_file()]
    files += sorted(path.parent.glob(path.name + "-ann/*"))
    return {str(p.relative_to(path.parent)): p.read_bytes() for p in files}


def residues(files: dict[str, bytes], words: list[str]) -> list[tuple[str, str, str]]:
    """(file, word, encoding) of every place a word is found."""
    found = []
    for name, data in files.items():
        for w in words:
            for enc in ("utf-8", "utf-16-le", "utf-16-be"):
                if w.encode(enc) in data:
                    found.append((name, w, enc))
    return found


@pytest.fixture
def memory(tmp_path):
    # ann_min_rows=1: every scope is searched through an HNSW graph whose file sits beside the database
    store = SQLiteStore(tmp_path / "data" / "memdesk.db", ann_min_rows=1, ann_background=False)
    m = Memory(store, HashingEmbedder(256), RoutedExtraction(RuleRouter(), RuleExtractor()), retriever=Retriever(store))
    yield m
    m.close()


def test_forget_leaves_no_byte_of_the_forgotten_users_text(memory, tmp_path):
    path = tmp_path / "data" / "memdesk.db"
    say(memory, "alice", ALICE)
    say(memory, "bob", BOB)
    every_a = memory.get_all(scope=ALICE, filters={"include_superseded": True})  # the split records too
    alice_ids = [e.record.id for r in every_a for e in memory.history(r.id, scope=ALICE)]
    assert any(r.metadata.get("split_from") for r in every_a)
    words_a, words_b = list(secrets("alice").values()), list(secrets("bob").values())
    before = database_bytes(path)
    assert {w for _, w, _ in residues(before, words_a)} == set(words_a)  # the scan sees every secret at first
    graphs = {name: data for name, data in before.items() if name.startswith("memdesk.db-ann/")}
    current_a = [r.id for r in memory.get_all(scope=ALICE)]
    assert graphs and all(any(i.encode() in data for data in graphs.values()) for i in current_a)  # ids in graphs

    got = memory.forget(ALICE)

    assert got.records > 0 and got.messages == 7 and got.history > got.records and got.banks == 1
    after = database_bytes(path)
    assert set(after) - set(graphs) <= {"memdesk.db", "memdesk.db-wal", "memdesk.db-shm"}
    assert len(set(after) & set(graphs)) < len(graphs)  # alice's graph files are gone, bob's stay
    assert residues(after, words_a) == []
    assert [i for i in alice_ids if any(i.encode() in d for n, d in after.items() if n.startswith("memdesk.db-ann/"))] == []
    assert {w for _, w, _ in residues(after, words_b)} == set(words_b)  # bob's are all still on disk
    assert len(after.get("memdesk.db-wal", b"")) == 0  # checkpointed and truncated
    # nothing of alice is reachable either: records, history, messages, the caches
    for record_id in alice_ids:
        with pytest.raises(RecordNotFoundError):
            memory.history(record_id, scope=ALICE)
    assert memory.messages(scope=ALICE) == []
    banks = ReasoningBanks(memory.store, memory.embedder)
    assert banks.list_banks(scope=ALICE) == []
    with pytest.raises(UnknownBankError):
        banks.retrieve_examples(secrets("alice")["bankname"], "how many?", scope=ALICE)
    assert banks.retrieve_examples(secrets("bob")["bankname"], "how many?", scope=BOB).examples
    assert all(w not in repr(memory.store._collections.cache._entries) for w in words_a)  # white-box: the bank cache
    assert memory.search(secrets("alice")["pin"], scope=ALICE, hybrid=True) == []
    held = [r.embed_text() for _, index in memory.retriever.indexes._cache.values() for r in index.records]
    cached = repr(held) + repr(memory.store._search.cache._entries)  # white-box: the caches
    assert all(w not in cached for w in words_a)
    hit = memory.search(f"what is my PIN {secrets('bob')['pin']}", scope=BOB, hybrid=True)[0]
    assert secrets("bob")["pin"] in hit.record.embed_text()
    # and after closing, the files still hold none of it
    memory.close()
    assert residues(database_bytes(path), words_a) == []


def test_delete_leaves_a_tombstone_and_no_byte_of_the_record(memory, tmp_path):
    """``delete(id)``: the record's text is in no version of its history and in no byte of the files; the
    tombstone says which record, of whom, when. The secrets reach the record through ``update`` only, so the
    raw message log (which keeps what was said, and which only ``forget`` erases) holds none of them."""
    path = tmp_path / "data" / "memdesk.db"
    first, second, kept_word = "Wq7Schliessfach", "Wq8Zahlenschloss", "Kp3Tagebuch"
    rec, other = (memory.add(t, scope=ALICE).records[0] for t in ("I keep a notebook.", "I keep a diary."))
    memory.update(rec.id, f"My locker code is {first}.", scope=ALICE)
    memory.update(rec.id, ("My locker is by the door. " * 300) + f"Its code is {second}.", scope=ALICE)  # overflow
    memory.update(other.id, f"My diary is called {kept_word}.", scope=ALICE)
    memory.search(f"locker code {second}", scope=ALICE, hybrid=True)  # warm the vector and BM25 caches
    assert {w for _, w, _ in residues(database_bytes(path), [first, second])} == {first, second}

    memory.delete(rec.id, scope=ALICE)

    after = database_bytes(path)
    assert residues(after, [first, second]) == []
    assert {w for _, w, _ in residues(after, [kept_word])} == {kept_word}  # the scan sees what is kept
    assert len(after.get("memdesk.db-wal", b"")) == 0  # checkpointed and truncated
    [tomb] = memory.history(rec.id, scope=ALICE)
    assert (tomb.event.value, tomb.version, tomb.record, tomb.scope) == ("DELETE", 4, None, ALICE)
    assert first not in tomb.model_dump_json() and second not in tomb.model_dump_json()
    with pytest.raises(RecordNotFoundError):
        memory.history(rec.id, scope=BOB)  # the tombstone is still alice's only
    assert all(first not in m.content for m in memory.messages(scope=ALICE))
    held = [r.embed_text() for _, index in memory.retriever.indexes._cache.values() for r in index.records]
    assert second not in repr(held)  # white-box: the per-scope (BM25) indexes dropped it too
    assert [r.id for r in memory.get_all(scope=ALICE)] == [other.id]
    memory.close()
    assert residues(database_bytes(path), [first, second]) == []


def test_forget_is_exact_unless_wildcard(memory):
    memory.add("I keep bees.", scope=ALICE)
    memory.add("I play the cello.", scope=Scope(user_id="alice", run_id="r1"))
    assert memory.delete_all(scope=ALICE) == 1
    assert [r.scope.run_id for r in memory.get_all(scope=ALICE)] == ["r1"]
    assert memory.delete_all(scope=ALICE, wildcard=True) == 1
    assert memory.get_all(scope=ALICE) == []


def test_database_files_and_folders_are_private(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'new' / 'deeper' / 'memdesk.db'}")
    try:
        store.write(messages=[])  # nothing: the files exist from the open
        for folder in (tmp_path / "new", tmp_path / "new" / "deeper"):
            assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
        files = list((tmp_path / "new" / "deeper").iterdir())
        assert {f.name for f in files} >= {"memdesk.db", "memdesk.db-wal"}
        assert all(stat.S_IMODE(os.stat(f).st_mode) == 0o600 for f in files)
    finally:
        store.close()


def test_forget_leaves_no_byte_of_pending_messages(memory, tmp_path):
    """Messages kept pending when processing failed (never turned into records) go with the scope too."""
    from memdesk.errors import LLMError

    class Failing:
        def process(self, utterances):
            raise LLMError("the model endpoint timed out")

    path = tmp_path / "data" / "memdesk.db"
    secret, kept = "Pn4Unverarbeitet", "Pn5Behalten"
    memory.processor = Failing()
    for scope, word in ((ALICE, secret), (BOB, kept)):
        with pytest.raises(LLMError):
            memory.add([f"My locker code is {word}.", {"content": f"{word} said the tool", "role": "tool"}], scope=scope)
    assert [m.status for m in memory.messages(scope=ALICE)] == ["pending", "pending"]
    assert {w for _, w, _ in residues(database_bytes(path), [secret])} == {secret}

    assert memory.forget(ALICE).messages == 2

    after = database_bytes(path)
    assert residues(after, [secret]) == [] and {w for _, w, _ in residues(after, [kept])} == {kept}
    assert memory.store.pending_messages(ALICE) == [] and len(memory.store.pending_messages(BOB)) == 2


def test_a_forget_while_the_worker_processes_messages_added_without_waiting_leaves_no_byte(memory, tmp_path):
    """``add(wait=False)`` then forget while the Memory's thread is processing those very messages: the thread's
    write finds them forgotten and stores nothing (no record, no message logged again), no byte is left."""
    import threading

    class Held:  # the rules processor, holding each call until the forget has landed
        def __init__(self) -> None:
            self.inner = RoutedExtraction(RuleRouter(), RuleExtractor())
            self.entered, self.go = threading.Event(), threading.Event()

        def process(self, utterances):
            self.entered.set()
            assert self.go.wait(60)
            return self.inner.process(utterances)

    path = tmp_path / "data" / "memdesk.db"
    secret = "Wt6Nichtgewartet"
    memory.processor = held = Held()
    assert memory.add(f"My locker code is {secret}.", scope=ALICE, wait=False).pending
    assert held.entered.wait(60)  # the thread has read the pending message and is processing it
    assert memory.forget(ALICE).messages == 1
    held.go.set()
    memory.wait_pending()
    assert memory.get_all(scope=ALICE) == [] and memory.messages(scope=ALICE) == []
    assert residues(database_bytes(path), [secret]) == []
