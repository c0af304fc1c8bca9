"""What the bench scripts record about the machine a result was measured on."""

from __future__ import annotations

import os
import platform
import time
from typing import Any


def machine_info(**versions: Any) -> dict[str, Any]:
    """CPU count, platform, Python, given library versions and the load average when the run ended."""
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        **versions,
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
    }


def measured_at() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
