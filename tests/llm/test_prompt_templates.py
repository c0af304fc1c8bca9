"""The packaged prompt templates load, version and render."""

from __future__ import annotations

from importlib import resources

import pytest

from memdesk.errors import ConfigError, InvalidInputError
from memdesk.llm.templates import PromptTemplate, available_prompts, load_prompt

EXPECTED = {
    "answer", "decide_batch", "extract_batch", "extract_utterance", "judge_locomo", "judge_lme_default", "judge_lme_temporal",
    "judge_lme_knowledge_update", "judge_lme_preference", "judge_lme_abstention", "reask", "structured_instructions",
}  # fmt: skip


def test_every_template_is_packaged_and_parses() -> None:
    assert EXPECTED <= set(available_prompts())
    for name in available_prompts():
        t = load_prompt(name)
        header = (resources.files("memdesk.llm") / "prompts" / f"{name}.txt").read_text().splitlines()[0]
        assert header.startswith("#! version: ")
        assert t.version.startswith(f"{name}/v{header.split(':')[1].strip()}-") and len(t.version.split("-")[-1]) == 8
        assert t.user.strip()
        assert "#!" not in t.user and "### " not in t.user


def test_render_fills_placeholders_and_refuses_missing_ones() -> None:
    t = PromptTemplate.parse("t", '#! version: 3\n### system\nYou are $role.\n### user\nSay {"x": $x} and $$5.\n')
    assert t.version.startswith("t/v3-") and t.placeholders() == {"role", "x"}
    msgs = t.render(role="a judge", x=1)
    assert [m.role for m in msgs] == ["system", "user"]
    assert msgs[0].content == "You are a judge." and msgs[1].content == 'Say {"x": 1} and $5.'
    with pytest.raises(InvalidInputError, match="'x'"):
        t.render(role="r")


def test_version_changes_with_the_text() -> None:
    a = PromptTemplate.parse("t", "#! version: 1\n### user\nhello")
    b = PromptTemplate.parse("t", "#! version: 1\n### user\nhello!")
    assert a.version != b.version


def test_unknown_template_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        load_prompt("no_such_prompt")
    with pytest.raises(ConfigError):
        PromptTemplate.parse("bad", "### system\nonly a system part")
