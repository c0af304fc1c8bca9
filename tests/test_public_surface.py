"""Every package states its public surface: a docstring and an ``__all__`` whose names all import
(an attribute, or a submodule of a package of optional integrations that are imported on demand),
and no name exported twice under one package."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

import pytest

import memdesk

PACKAGES = sorted(
    name for _, name, is_pkg in pkgutil.walk_packages(memdesk.__path__, "memdesk.") if is_pkg
) + ["memdesk"]


@pytest.mark.parametrize("name", PACKAGES)
def test_package_states_its_public_surface(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ImportError as e:  # an optional extra that is not installed
        pytest.skip(f"{name}: {e}")
    assert (module.__doc__ or "").strip(), f"{name} has no docstring"
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    missing = [n for n in exported if not hasattr(module, n) and importlib.util.find_spec(f"{name}.{n}") is None]
    assert not missing, f"{name}.__all__ names what it does not hold: {missing}"


def test_the_two_retrievers_have_two_names() -> None:
    from memdesk.reasoning import ExampleRetriever

    assert memdesk.Retriever is not ExampleRetriever
    assert "Retriever" not in importlib.import_module("memdesk.reasoning").__all__
