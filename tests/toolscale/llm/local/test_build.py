"""llama-server built once per machine: a working cached binary is used as it is, a broken
one rebuilt, a failed build named with its log, missing tools named up front."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.toolscale.llm.local.processes import executable
from toolscale.llm.local import build, files
from toolscale.llm.local.build import (
    LLAMA_CPP_PYTHON_VERSION,
    ensure_llama_server,
    llama_server_path,
)
from toolscale.llm.local.files import LocalLLMError


def test_cached_binary_is_used_without_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    target = llama_server_path(cache)
    assert target.parent.parent == cache / "llama.cpp" / LLAMA_CPP_PYTHON_VERSION
    executable(target, 'import sys\nprint("version: 1 (fake)")\nsys.exit(0)\n')

    def no_build(*_a: object) -> Path:
        raise AssertionError("must not download or build when the binary is cached")

    monkeypatch.setattr(build, "download_llama_cpp_source", no_build)
    monkeypatch.setattr(build, "build_llama_server", no_build)
    started = time.monotonic()
    assert ensure_llama_server(cache) == target
    assert time.monotonic() - started < 5


def test_broken_cached_binary_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    target = executable(llama_server_path(cache), "import sys\nsys.exit(1)\n")
    steps: list[str] = []

    def fake_source(dest: Path, log_path: Path) -> Path:
        steps.append("source")
        return dest / "src"

    def fake_build(source: Path, build_dir: Path, log_path: Path, jobs: int) -> Path:
        steps.append("build")
        return executable(build_dir / "bin" / "llama-server", "print('version: 2')\n")

    monkeypatch.setattr(build, "check_build_tools", lambda: None)
    monkeypatch.setattr(build, "download_llama_cpp_source", fake_source)
    monkeypatch.setattr(build, "build_llama_server", fake_build)

    assert ensure_llama_server(cache) == target
    assert steps == ["source", "build"]
    assert "version: 2" in target.read_text()
    assert list(target.parent.glob(".build-*")) == [], "the build dir must be removed"
    assert ensure_llama_server(cache) == target
    assert steps == ["source", "build"], "a working cached binary must not be rebuilt"


def test_failed_build_names_the_log_and_keeps_no_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    fail = executable(
        tmp_path / "bin" / "fail", "import sys\nprint('cc1plus: fatal error X')\nsys.exit(1)\n"
    )

    def fake_source(dest: Path, log_path: Path) -> Path:
        return dest

    def failing_build(source: Path, build_dir: Path, log_path: Path, jobs: int) -> Path:
        files.run_logged("building llama-server", [str(fail)], log_path)
        raise AssertionError("unreachable")

    monkeypatch.setattr(build, "check_build_tools", lambda: None)
    monkeypatch.setattr(build, "download_llama_cpp_source", fake_source)
    monkeypatch.setattr(build, "build_llama_server", failing_build)
    with pytest.raises(LocalLLMError) as err:
        ensure_llama_server(cache)
    msg = str(err.value)
    assert "building llama-server failed" in msg
    assert str(cache / "logs" / "build-llama-server.log") in msg
    assert "cc1plus: fatal error X" in msg
    assert not llama_server_path(cache).exists()


def test_x86_builds_take_the_cpus_features_and_never_amx() -> None:
    """A VM listed AMX and faulted on it (SIGILL at `tilezero`): the build never uses it, and
    a CPU with other features gets a folder of its own in a shared cache."""
    amx_vm = {"avx", "avx2", "fma", "f16c", "avx512f", "avx512cd", "avx512vl", "avx512dq"}
    amx_vm |= {"avx512bw", "amx_tile", "amx_int8", "amx_bf16"}
    options = build.cpu_options(amx_vm, "x86_64")
    assert "-DGGML_NATIVE=OFF" in options
    assert {"-DGGML_AVX2=ON", "-DGGML_AVX512=ON", "-DGGML_AVX_VNNI=OFF"} <= set(options)
    assert {"-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(options)
    older = build.cpu_options({"avx", "avx2", "fma", "f16c"}, "x86_64")
    assert "-DGGML_AVX512=OFF" in older
    assert build.build_tag(options) != build.build_tag(older)
    assert build.cpu_options(amx_vm, "aarch64") == [] and build.build_tag([]) == "native"


def test_missing_build_tools_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build.shutil, "which", lambda _name: None)
    monkeypatch.delenv("CXX", raising=False)
    with pytest.raises(LocalLLMError, match=r"missing: cmake, a C\+\+ compiler"):
        build.check_build_tools()


def test_the_code_around_the_kernels_is_compiled_at_o1_and_the_kernels_as_asked(
    tmp_path: Path,
) -> None:
    """The launcher runs the compiler it is given with the same arguments, but -O1 for a
    file under common/, tools/ or vendor/ of the source tree (a folder with a space in its
    name too); ggml/ and src/ keep -O3, and a file merely named like a light folder, or
    under a `vendor` above the tree, is not touched."""
    source = tmp_path / "llama cpp" / "vendor" / "llama.cpp"
    compiler = executable(
        tmp_path / "bin" / "cc", "import json, sys\nprint(json.dumps(sys.argv[1:]))\n"
    )
    launcher = build.compile_launcher(source, tmp_path / "launch.sh")

    def compiled(path: str, level: str = "-O3") -> list[str]:
        argv = [str(launcher), str(compiler), level, "-DNDEBUG", "-o", "x.o", "-c", path]
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    for light in ("common/arg.cpp", "tools/server/server.cpp", "vendor/cpp-httplib/x.cpp"):
        got = compiled(f"{source}/{light}")
        assert got == ["-O1", "-DNDEBUG", "-o", "x.o", "-c", f"{source}/{light}"], light
    assert compiled(f"{source}/tools/mtmd/clip.cpp", "-O2")[0] == "-O1"
    for kept in ("ggml/src/ggml-cpu/ops.cpp", "src/llama-model.cpp", "common.cpp"):
        assert compiled(f"{source}/{kept}")[0] == "-O3", kept
    assert compiled(f"{tmp_path}/llama cpp/vendor/other.cpp")[0] == "-O3"
