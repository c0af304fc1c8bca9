"""The docs are tested: every CLI command is in docs/cli.md, the README is short and opens with the CI's set-up
commands, and every relative link resolves (the examples run in tests/test_readme_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from memdesk.cli.app import main

REPO = Path(__file__).resolve().parents[1]


def test_every_command_is_documented_in_the_cli_page():
    page = (REPO / "docs" / "cli.md").read_text()
    missing = [name for name in main.commands if f"memdesk {name}" not in page]
    assert not missing, f"commands missing from docs/cli.md: {missing}"


def test_the_readme_is_short_and_links_what_it_left_out():
    readme = (REPO / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    for page in ("docs/python.md", "docs/cli.md", "docs/http.md", "docs/settings.md", "docs/evaluation.md"):
        assert f"]({page}" in readme, page


def test_every_relative_link_in_the_docs_resolves():
    import re

    broken = []
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text()):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            path = (doc.parent / target.split("#", 1)[0]).resolve()
            if not path.exists():
                broken.append(f"{doc.name}: {target}")
    assert not broken, broken


def test_every_command_has_help():
    runner = CliRunner()
    for name, cmd in main.commands.items():
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0 and (cmd.help or cmd.short_help), name


def test_ci_runs_the_readme_test_command():
    readme = (REPO / "README.md").read_text()
    ci = (REPO / ".ci" / "run").read_text()
    test_command = "pip install -e '.[dev]' && python -m pytest"
    assert test_command in readme and test_command in ci
    assert "pip install -e . && memdesk demo" in readme


def test_the_documentation_site_builds_offline_with_no_third_party_assets(tmp_path):
    import re
    import subprocess
    import sys

    pytest.importorskip("mkdocs")
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(REPO / "mkdocs.yml"),
                           "-d", str(site)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    nav = (REPO / "mkdocs.yml").read_text()
    unlisted = [p.name for p in (REPO / "docs").glob("*.md") if f": {p.name}" not in nav]
    assert not unlisted, f"pages missing from mkdocs.yml's nav: {unlisted}"
    assets = set()
    for page in site.rglob("*.html"):
        assets |= set(re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', page.read_text()))
    assert not assets, assets
