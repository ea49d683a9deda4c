"""Raw completions on disk by content hash: a re-run replays them without new calls, and a
changed parser never throws a paid answer away."""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class Completion(BaseModel):
    """A raw answer as the endpoint gave it; this, not the parsed value, is what is cached."""

    model_config = ConfigDict(extra="forbid")

    content: str | None
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    timings: dict[str, Any] | None = Field(
        default=None, description="server-side timings when the server reports them (llama.cpp)"
    )
    seconds: float = 0.0


class ResponseCache:
    """Raw completions on disk, one file per request, named by the request's sha256."""

    def __init__(self, root: str | Path):
        self.root = Path(root)

    @staticmethod
    def key(request: Mapping[str, Any]) -> str:
        text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        path = self._path(key)
        try:
            return Completion.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValidationError):  # a damaged entry is a miss, never a crash
            return None

    def put(self, key: str, completion: Completion) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.{random.getrandbits(32):08x}.tmp")
        tmp.write_text(completion.model_dump_json(), encoding="utf-8")
        os.replace(tmp, path)

    def __len__(self) -> int:
        return sum(1 for _ in self.root.glob("*/*.json")) if self.root.exists() else 0
