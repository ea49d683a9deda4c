"""A domain's store kept at an fsspec URL (`s3://bucket/prefix`, `gs://...`, `memory://`),
for runs on machines that share no disk (issue 12). A run works on a local copy of the
domain, pulled when its store opens, and every file the store writes is put at the URL as
it is written.

The object goes first and its marker (`<name>.done`: size and sha256) after, and a reader
takes an object only when its marker is there and matches: a run killed between the two
leaves an object nobody takes, and a reader never takes a file changed under it. One run
writes a domain at a time (the Dask runner gives each domain to one worker).

Credentials and endpoints come the way fsspec's backends take them: for S3, the AWS
variables (`AWS_ACCESS_KEY_ID`, `AWS_ENDPOINT_URL` for MinIO or a stand-in) or
`FSSPEC_S3_*` settings.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from fsspec.core import url_to_fs
from pydantic import BaseModel

from toolscale.errors import ToolscaleError

MARKER = ".done"
LOCAL_ONLY = ("llm-cache",)  # the response cache is an SQLite file in use, not shared


class Marker(BaseModel):
    size: int
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> Marker:
        return cls(size=len(data), sha256=hashlib.sha256(data).hexdigest())


class MirrorError(ToolscaleError):
    """The URL cannot be reached or written; `detail` names it and the backend's words."""


def is_url(location: str | Path) -> bool:
    return "://" in str(location)


def cache_folder(url: str) -> Path:
    """Where the local copies of the stores at `url` live (`TOOLSCALE_STORE_CACHE`)."""
    base = os.environ.get("TOOLSCALE_STORE_CACHE") or "~/.cache/toolscale/stores"
    return Path(base).expanduser() / hashlib.sha256(url.encode()).hexdigest()[:16]


@dataclass
class Sync:
    """What one synchronisation did, with why a remote file was not taken."""

    pulled: list[str] = field(default_factory=list)
    pushed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


class Mirror:
    """One domain folder at a URL, mirrored from and to a local folder."""

    def __init__(self, url: str, local: Path):
        self.url, self.local = url.rstrip("/"), local
        try:
            self.fs, self.root = url_to_fs(self.url)
        except (ImportError, ValueError) as e:
            raise MirrorError(f"{url}: no storage for this URL: {e}") from e
        self.root = self.root.rstrip("/")

    def _remote(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def put(self, path: Path) -> None:
        """The file at `path` (inside the local folder), then its marker."""
        rel = path.relative_to(self.local).as_posix()
        data = path.read_bytes()
        try:
            self.fs.pipe_file(self._remote(rel), data)
            self.fs.pipe_file(self._remote(rel) + MARKER, Marker.of(data).model_dump_json())
        except OSError as e:
            raise MirrorError(f"{self.url}/{rel}: could not be written: {e}") from e

    def _markers(self) -> dict[str, Marker]:
        """Remote files that are complete, by path relative to the domain."""
        try:
            found = self.fs.find(self.root) if self.fs.exists(self.root) else []
        except OSError as e:
            raise MirrorError(f"{self.url}: could not be listed: {e}") from e
        names = [name for name in found if name.endswith(MARKER)]
        read = self.fs.cat(names) if names else {}  # one batch: concurrent on S3
        return {
            name[len(self.root) + 1 : -len(MARKER)]: Marker.model_validate_json(read[name])
            for name in names
        }

    def sync(self) -> Sync:
        """Remote files the local copy lacks or holds otherwise are pulled; local files the
        URL lacks (a run here committed them, then died before putting them) are put. What
        the URL holds wins where both have a file."""
        done = Sync()
        markers = self._markers()
        for rel, marker in sorted(markers.items()):
            target = self.local / rel
            if target.is_file() and Marker.of(target.read_bytes()) == marker:
                continue
            data = self.fs.cat_file(self._remote(rel))
            if Marker.of(data) != marker:
                done.skipped[rel] = "changed while read (another run writes this domain)"
                continue
            _write_bytes(target, data)
            done.pulled.append(rel)
        if self.local.is_dir():
            for path in sorted(p for p in self.local.rglob("*") if p.is_file()):
                rel = path.relative_to(self.local).as_posix()
                if rel.split("/")[0] in LOCAL_ONLY or rel in markers or _scratch(path):
                    continue
                self.put(path)
                done.pushed.append(rel)
        return done


def _scratch(path: Path) -> bool:
    """A temporary of an atomic write, or what a failed one kept: not part of the store."""
    return path.name.endswith((".tmp", ".partial"))


def _write_bytes(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.pull.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def domains_at(url: str) -> list[str]:
    """The domains a store URL holds (those with a complete environment)."""
    fs, root = url_to_fs(url.rstrip("/"))
    if not fs.exists(root):
        return []
    names = [p.rstrip("/").rsplit("/", 1)[-1] for p in fs.ls(root, detail=False)]
    return sorted(n for n in names if fs.exists(f"{root}/{n}/environment.json{MARKER}"))


def local_copy(url: str) -> Path:
    """Every domain at `url`, synchronised into its cache folder: for readers (export)."""
    folder = cache_folder(url)
    for domain in domains_at(url):
        Mirror(f"{url.rstrip('/')}/{domain}", folder / domain).sync()
    return folder
