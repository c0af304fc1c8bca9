"""The docs are tested: every CLI command is in the README, and the README's set-up commands are the CI's
(the README's examples run in tests/test_readme_examples.py)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from memdesk.cli import main

REPO = Path(__file__).resolve().parents[1]


def test_every_command_is_documented_in_the_readme():
    readme = (REPO / "README.md").read_text()
    missing = [name for name in main.commands if f"memdesk {name}" not in readme]
    assert not missing, f"commands missing from README: {missing}"


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
