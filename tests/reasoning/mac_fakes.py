"""Helpers shared by the reasoning tests: deterministic fake tags for scripted chat models."""

from __future__ import annotations

import json

from memdesk.llm.base import ChatMessage

TAGS_JSON = {
    "knowledge_domains": ["arithmetic"],
    "solution_strategies": ["direct computation"],
    "problem_type": "arithmetic word problem",
    "problem_context": "shopping",
    "complexity": {"difficulty": "easy", "steps": 2, "computation": "light"},
}


def tags_for(text: str) -> dict:
    """Deterministic fake tags: the domain is the first capitalised word of the problem."""
    if "Problem:\n" in text:
        text = text.split("Problem:\n", 1)[1].split("\n\n", 1)[0]
    words = [w.strip(".,?") for w in text.split() if w[:1].isupper()]
    out = json.loads(json.dumps(TAGS_JSON))
    out["knowledge_domains"] = [words[0] if words else "general"]
    return out


def user_text(messages: list[ChatMessage]) -> str:
    return "\n".join(m.content for m in messages if m.role == "user")
