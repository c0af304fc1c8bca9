"""Prompt templates: plain text files in ``memdesk/llm/prompts/``, loaded with importlib.resources.

A template file looks like::

    #! version: 2
    ### system
    You ... $placeholder ...
    ### user
    ... $other ...

Placeholders use :class:`string.Template` syntax (``$name`` or ``${name}``), so JSON braces need no
escaping; a literal dollar is ``$$``. The ``system`` section is optional. Each template carries a
version string ``<name>/v<N>-<sha8>`` (the declared version plus a hash of the file), recorded with
every judge verdict and extracted record so results can be traced to the exact prompt.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from string import Template
from typing import TYPE_CHECKING

from ..errors import ConfigError, InvalidInputError
from .base import ChatMessage

if TYPE_CHECKING:
    from .base import ChatModel

_SECTION = re.compile(r"^### (system|user)\s*$", re.MULTILINE)
_VERSION = re.compile(r"^#! version: *(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class PromptTemplate:
    """A named, versioned prompt with an optional system part and a user part."""

    name: str
    version: str
    system: str | None
    user: str

    @classmethod
    def parse(cls, name: str, text: str) -> "PromptTemplate":
        """Parse the template file format described in the module docstring."""
        m = _VERSION.search(text)
        declared = m.group(1) if m else "0"
        body = _VERSION.sub("", text)
        sha8 = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        parts = _SECTION.split(body)
        sections: dict[str, str] = {}
        # parts = [preamble, name1, text1, name2, text2, ...]
        for i in range(1, len(parts) - 1, 2):
            sections[parts[i]] = parts[i + 1].strip("\n")
        if "user" not in sections:
            if parts[0].strip() and len(parts) == 1:
                sections["user"] = parts[0].strip("\n")
            else:
                raise ConfigError(f"prompt template {name!r} has no '### user' section")
        return cls(name=name, version=f"{name}/v{declared}-{sha8}", system=sections.get("system"), user=sections["user"])

    def placeholders(self) -> set[str]:
        """Names used as ``$name`` in the template."""
        names: set[str] = set()
        for part in (self.system, self.user):
            if part:
                for m in Template.pattern.finditer(part):
                    name = m.group("named") or m.group("braced")
                    if name:
                        names.add(name)
        return names

    def render(self, **values: object) -> list[ChatMessage]:
        """The chat messages with every placeholder filled; a missing value is an error."""
        missing = self.placeholders() - values.keys()
        if missing:
            raise InvalidInputError(f"prompt {self.name!r} needs values for {sorted(missing)}")
        strs = {k: "" if v is None else str(v) for k, v in values.items()}
        out = []
        if self.system:
            out.append(ChatMessage(role="system", content=Template(self.system).substitute(strs)))
        out.append(ChatMessage(role="user", content=Template(self.user).substitute(strs)))
        return out


def load_prompt(name: str) -> PromptTemplate:
    """Load ``prompts/<name>.txt`` from the installed package."""
    path = resources.files("memdesk.llm").joinpath("prompts", f"{name}.txt")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as e:
        raise ConfigError(f"no prompt template named {name!r} (looked for {path})") from e
    return PromptTemplate.parse(name, text)


def available_prompts() -> list[str]:
    """Names of every packaged prompt template."""
    folder = resources.files("memdesk.llm").joinpath("prompts")
    return sorted(p.name[:-4] for p in folder.iterdir() if p.name.endswith(".txt"))


class OnePrompt:
    """A chat model asked through one prompt template: ``chat_model``, ``max_tokens`` (the reply's
    budget), ``template`` (``prompts/<name>.txt``) and its ``prompt_version``."""

    def __init__(self, chat_model: "ChatModel", prompt: str, max_tokens: int) -> None:
        self.chat_model = chat_model
        self.max_tokens = max_tokens
        self.template = load_prompt(prompt)

    @property
    def prompt_version(self) -> str:
        return self.template.version
