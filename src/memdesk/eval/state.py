"""``work/state.json`` of a conversational run: its configuration, the scopes fully ingested into
each store, and the cumulative stage account (seconds, tokens, cache hits), written atomically."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..errors import ConfigError, MalformedFileError

STATE_VERSION = 1


class RunState:
    """The state file of one run directory.

    A run directory reused with another configuration (benchmark, data, embedder, processor, answer
    model) is refused with :class:`~memdesk.errors.ConfigError`: its stores and results belong to
    the first one.
    """

    def __init__(self, path: Path, config: dict[str, Any]) -> None:
        self.path = path
        if path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
                raise MalformedFileError(str(path), f"unreadable run state ({e}); use a new --out directory") from e
            old = data.get("config", {}) if isinstance(data, dict) else {}
            clash = {k: (old.get(k), v) for k, v in config.items() if k in old and old[k] != v}
            if clash:
                raise ConfigError(
                    f"{path.parent.parent} holds a run with another configuration {clash}; use a new --out directory"
                )
            self.data = data
            self.data["config"] = {**old, **config}
        else:
            self.data = {"version": STATE_VERSION, "config": config, "ingested": {}, "account": {}}

    def ingested(self, store: str, scope_id: str) -> bool:
        return scope_id in self.data["ingested"].get(store, [])

    def mark_ingested(self, store: str, scope_id: str) -> None:
        self.data["ingested"].setdefault(store, []).append(scope_id)
        self.save()

    def add(self, key: str, value: float) -> None:
        acc = self.data["account"]
        acc[key] = round(acc.get(key, 0) + value, 6)

    @property
    def account(self) -> dict[str, float]:
        return self.data["account"]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(self.data, indent=1, sort_keys=True), encoding="utf-8")
        os.replace(tmp, self.path)
