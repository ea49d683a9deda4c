"""JSON Lines in and out: every read line keeps its file:line; every write is atomic."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel


def read_lines(path: str | Path) -> Iterator[tuple[str, bytes]]:
    """(source, raw line) for every non-blank line, source being `file:line`.

    Lines stay bytes so one that is not UTF-8 is rejected on its own (see
    validators.structure.parse) instead of stopping the whole file.
    """
    with open(path, "rb") as fh:
        for number, line in enumerate(fh, start=1):
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]  # a UTF-8 byte-order mark
            if line.strip():
                yield f"{path}:{number}", line


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def dumps(item: BaseModel | Any) -> str:
    if isinstance(item, BaseModel):
        return item.model_dump_json(exclude_none=True)
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


class AtomicWriter:
    """Writes to a temporary file beside the target and renames it into place on close.

    A failed or interrupted run leaves the previous file intact, never a half-written one,
    and keeps the lines it did write as `<name>.partial`.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        self._tmp = Path(tmp)
        self._fh: IO[str] = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, item: BaseModel | Any) -> None:
        """One JSON line."""
        self.write_text(dumps(item) + "\n")

    def write_text(self, text: str) -> None:
        self._fh.write(text)

    def commit(self) -> None:
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()
        os.chmod(self._tmp, 0o666 & ~_umask())  # mkstemp's 0600 is for the temporary only
        os.replace(self._tmp, self.path)

    def abort(self) -> Path | None:
        """Leave the target as it was; keep what was written as `<name>.partial`, if any."""
        self._fh.close()
        if self._tmp.stat().st_size == 0:
            self._tmp.unlink(missing_ok=True)
            return None
        partial = self.path.with_name(self.path.name + ".partial")
        os.replace(self._tmp, partial)
        return partial

    def __enter__(self) -> AtomicWriter:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.abort()


def write_json(path: str | Path, item: BaseModel | Any) -> None:
    """One JSON document, atomically."""
    text = (
        item.model_dump_json(indent=2)
        if isinstance(item, BaseModel)
        else json.dumps(item, indent=2)
    )
    with AtomicWriter(path) as w:
        w.write_text(text + "\n")
