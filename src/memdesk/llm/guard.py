"""The switch that forbids real model calls (for test suites).

Set ``MEMDESK_ALLOW_MODEL_REQUESTS=0`` (or ``false``/``no``/``off``) and every real chat model
(:class:`~memdesk.llm.openai_compat.OpenAICompatChatModel`) raises
:class:`~memdesk.errors.ModelCallsForbiddenError` before it sends anything. The scripted fake is not
affected. The variable is read at call time, so ``monkeypatch.setenv`` works.
"""

from __future__ import annotations

import os
from typing import Mapping

from ..errors import ModelCallsForbiddenError

ALLOW_ENV = "MEMDESK_ALLOW_MODEL_REQUESTS"
_FALSE = {"0", "false", "no", "off"}


def model_requests_allowed(environ: Mapping[str, str] | None = None) -> bool:
    """False when ``MEMDESK_ALLOW_MODEL_REQUESTS`` is set to 0/false/no/off; True otherwise."""
    env = os.environ if environ is None else environ
    return env.get(ALLOW_ENV, "1").strip().lower() not in _FALSE


def check_model_requests_allowed(model_id: str, environ: Mapping[str, str] | None = None) -> None:
    """Raise :class:`ModelCallsForbiddenError` if real model calls are forbidden."""
    if not model_requests_allowed(environ):
        raise ModelCallsForbiddenError(
            f"a real call to model {model_id!r} was attempted while {ALLOW_ENV}=0; "
            "use memdesk.llm.fake.ScriptedChatModel in tests, or unset the variable"
        )
