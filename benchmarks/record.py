"""What the real-model benchmarks share: the model they run, the machine a record was taken on, the record written.

Run as scripts (``python benchmarks/NAME.py``), they import this module from their own folder.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
from pathlib import Path

REAL = Path(os.environ.get("POSEMB_REAL_MODELS", os.path.expanduser("~/.cache/posemb-real-models")))
SMOLLM2 = REAL / "SmolLM2-135M-Instruct.Q4_1.gguf"  # ../shared/real-models/fetch puts it there

__all__ = ["REAL", "SMOLLM2", "machine", "now", "write"]


def now() -> str:
    """The time a record is taken, in UTC, to the minute."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def machine(**extra: object) -> dict:
    """The machine a record was taken on: CPUs, Python, platform, the load average, and ``extra``."""
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            **extra, "load_average": os.getloadavg()}


def write(record: dict, path: str | None) -> None:
    """Print the record as JSON, and write it to ``path`` where one is given."""
    document = json.dumps(record, indent=1)
    if path:
        Path(path).write_text(document + "\n", encoding="utf-8")
    print(document)
