"""What the bench scripts record about the machine a result was measured on, and how they write a result."""

from __future__ import annotations

import json
import os
import platform
import socket
import time
from pathlib import Path
from typing import Any


def machine_info(**versions: Any) -> dict[str, Any]:
    """CPU count (the machine's, and those this process may run on), platform, Python, given library
    versions and the load average when the run ended."""
    from memdesk.runtime.cpus import usable_cpus

    return {
        "cpus": os.cpu_count(),
        "usable_cpus": usable_cpus(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        **versions,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }


def measured_at() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def write_result(path: str | Path | None, result: Any, *, echo: bool = True, ensure_ascii: bool = True) -> str:
    """``result`` as indented JSON: written to ``path`` (parent folders made, UTF-8, a trailing newline) unless
    ``path`` is empty or None, printed when ``echo``; returns the text (without the newline)."""
    text = json.dumps(result, indent=2, ensure_ascii=ensure_ascii)
    if path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    if echo:
        print(text)
    return text


def free_port() -> int:
    """A loopback TCP port nothing listens on now (for a server a benchmark starts)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
