"""The command line refuses what it cannot honour: each mistake is one line on stderr and exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.errors import ConfigError
from memdesk.settings import Settings, unknown_variables


def _error_line(result) -> str:
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 2, result.output
    return lines[-1]


def test_a_config_file_named_explicitly_must_exist(run, tmp_path):
    missing = tmp_path / "nope.toml"
    result = run("--config", str(missing), "config", ok=False)
    line = _error_line(result)
    assert "ConfigError" in line and "nope.toml" in line and "does not exist" in line


def test_memdesk_config_naming_a_missing_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(ConfigError, match="gone.toml does not exist"):
        Settings.load()


def test_an_empty_memdesk_config_reads_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    assert Settings.load().top_k is None


def test_unknown_key_in_the_config_file_names_the_closest_setting(run, tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("token_budjet = 500\n")
    line = _error_line(run("--config", str(config), "config", ok=False))
    assert "unknown setting 'token_budjet'" in line and "did you mean 'token_budget'" in line


def test_unknown_key_beside_the_memdesk_table_is_refused(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("retreival = 'engram'\n[memdesk]\ntop_k = 5\n")
    with pytest.raises(ConfigError, match="'retreival' outside the \\[memdesk\\] table"):
        Settings.load(config)


def test_a_config_file_with_known_keys_is_read(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text("[memdesk]\ntop_k = 5\nretrieval = 'engram'\n")
    settings = Settings.load(config)
    assert (settings.top_k, settings.retrieval) == (5, "engram")


def test_out_of_range_values_are_one_line_errors_naming_their_source(run, monkeypatch):
    monkeypatch.setenv("MEMDESK_TOKEN_BUDGET", "0")
    line = _error_line(run("config", ok=False))
    assert "token_budget" in line and "MEMDESK_TOKEN_BUDGET" in line and "greater than or equal to 50" in line


@pytest.mark.parametrize("name,value", [("MEMDESK_LLM_TIMEOUT_S", "0"), ("MEMDESK_LLM_CONCURRENCY", "0"),
                                        ("MEMDESK_LLM_MAX_RETRIES", "-1"), ("MEMDESK_TOP_K", "0")])
def test_numbers_that_cannot_work_are_refused(monkeypatch, name, value):
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=name):
        Settings.load()


def test_unknown_memdesk_variables_are_warned_about_with_the_closest_setting(run, monkeypatch):
    monkeypatch.setenv("MEMDESK_TOPK", "3")
    result = run("list")
    assert "MEMDESK_TOPK is not a memdesk setting" in result.output
    assert "did you mean MEMDESK_TOP_K?" in result.output


def test_variables_of_the_tests_and_tools_are_not_reported():
    environ = {"MEMDESK_CONFIG": "", "MEMDESK_TEST_POSTGRES_URL": "x", "MEMDESK_SKIP_POSTGRES": "1",
               "MEMDESK_EVAL_WORK": "/tmp", "MEMDESK_ALLOW_MODEL_REQUESTS": "0", "MEMDESK_TOP_K": "3", "PATH": "/bin"}
    assert unknown_variables(environ) == []
    assert unknown_variables({"MEMDESK_EMBEDER": "x"}) == [
        "MEMDESK_EMBEDER is not a memdesk setting and is ignored (did you mean MEMDESK_EMBEDDER?)"
    ]


def test_a_sqlite_database_in_a_missing_folder_is_refused_and_not_created(run, tmp_path):
    db = tmp_path / "typo" / "dir" / "x.db"
    line = _error_line(run("--db", f"sqlite:///{db}", "list", ok=False))
    assert "does not exist" in line and str(db.parent) in line
    assert not db.parent.exists()


def test_the_default_location_is_created(tmp_path, monkeypatch):
    import memdesk.settings as settings_module

    default = tmp_path / "data" / "memdesk" / "memdesk.db"
    monkeypatch.setattr(settings_module, "default_database_url", lambda: f"sqlite:///{default}")
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{default}")
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    assert Settings.load().database_url == f"sqlite:///{default}"  # no refusal: memdesk makes its own folder
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/elsewhere/memdesk.db")
    with pytest.raises(ConfigError, match="does not exist"):
        Settings.load()


@pytest.mark.parametrize("option", ["-k", "-K"])
def test_zero_k_is_refused_not_read_as_the_default(run, option):
    result = run("search", "where", option, "0", ok=False)
    assert result.exit_code == 2 and "0 is not in the range x>=1" in result.output


def test_search_help_states_the_read_paths_real_defaults(run):
    from memdesk.cli.context import read_path_defaults
    from memdesk.retrieval.retrieve import Retriever

    defaults = read_path_defaults()
    text = " ".join(run("search", "--help").output.split())
    assert f"else {defaults['fused_k']} on the fused read path, {defaults['engram_k']} on engram" in text
    import inspect

    assert defaults["fused_k"] == inspect.signature(Retriever.fused).parameters["k"].default


def test_nothing_is_written_by_a_refused_command(run, tmp_path, monkeypatch):
    db = tmp_path / "kept.db"
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{db}")
    run("add", "I moved to Porto in May.")
    before = Path(db).stat().st_size
    run("search", "Porto", "-K", "0", ok=False)
    assert Path(db).stat().st_size == before
