"""llama-server, built once per machine from the llama.cpp vendored in the llama-cpp-python
sdist (the package index serves no wheel of it)."""

from __future__ import annotations

import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from toolscale.llm.local.files import (
    LocalLLMError,
    file_lock,
    log_tail,
    remove_stale,
    run_logged,
    status_line,
)

if TYPE_CHECKING:  # rich only types here: `python -m toolscale.llm.local` runs before pip
    from rich.console import Console

LLAMA_CPP_PYTHON_VERSION = "0.3.36"

# x86 features the build uses when the CPU lists them (/proc/cpuinfo flags -> ggml option).
# Not -march=native: a VM may list AMX and fault on its first tile instruction (this
# machine's llama-server died with SIGILL in tinygemm_kernel_amx at `tilezero`), and a
# cache shared by machines with other CPUs must not hand one's binary to another.
X86_FEATURES: dict[str, tuple[str, ...]] = {
    "GGML_AVX": ("avx",),
    "GGML_AVX2": ("avx2",),
    "GGML_FMA": ("fma",),
    "GGML_F16C": ("f16c",),
    "GGML_BMI2": ("bmi2",),
    "GGML_AVX_VNNI": ("avx_vnni",),
    "GGML_AVX512": ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"),
    "GGML_AVX512_VBMI": ("avx512f", "avx512vbmi"),
    "GGML_AVX512_VNNI": ("avx512f", "avx512_vnni"),
    "GGML_AVX512_BF16": ("avx512f", "avx512_bf16"),
}
NO_AMX = ("GGML_AMX_TILE", "GGML_AMX_INT8", "GGML_AMX_BF16")

# llama.cpp's code around the kernels (common/: arguments, JSON, chat templates; tools/: the
# server loop, multimodal; vendor/: HTTP) is over half of the build's compile time and runs
# per request, not per token. Compiled at -O1, the build took 0.81 of the time on 2 cores
# and decoded as fast (bench/llama_build.py); ggml/ (the kernels) and src/ (the model
# graphs, sampling, grammar) keep -O3. A source tree reached through a symlink is not
# matched (the launcher compares resolved paths): the build is then all -O3, as before.
LIGHT_DIRS = ("common", "tools", "vendor")


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> set[str]:
    try:
        text = cpuinfo.read_text()
    except OSError:
        return set()
    line = next((ln for ln in text.splitlines() if ln.startswith("flags")), "")
    return set(line.partition(":")[2].split())


def cpu_options(flags: set[str], machine: str) -> list[str]:
    """cmake options for this CPU: on x86, each feature it lists and never AMX; elsewhere
    (ARM) ggml's native detection, which has no such trap."""
    if machine.lower() not in ("x86_64", "amd64"):
        return []
    chosen = [
        f"-D{option}={'ON' if all(f in flags for f in needs) else 'OFF'}"
        for option, needs in X86_FEATURES.items()
    ]
    return ["-DGGML_NATIVE=OFF", *chosen, *(f"-D{option}=OFF" for option in NO_AMX)]


def build_tag(options: list[str]) -> str:
    """A folder name per feature set, so machines sharing a cache get a binary each."""
    if not options:
        return "native"
    return "x86-" + hashlib.sha256(" ".join(options).encode()).hexdigest()[:10]


def llama_server_path(cache: Path) -> Path:
    """Where the built binary is cached: per llama-cpp-python version and CPU features."""
    tag = build_tag(cpu_options(cpu_flags(), platform.machine()))
    return cache / "llama.cpp" / LLAMA_CPP_PYTHON_VERSION / tag / "llama-server"


def _binary_works(binary: Path) -> bool:
    """`--version` exits 0: catches a truncated binary or one missing its shared libraries."""
    if not (binary.is_file() and os.access(binary, os.X_OK)):
        return False
    try:
        return (
            subprocess.run(
                [str(binary), "--version"],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=60,
                check=False,
            ).returncode
            == 0
        )
    except (OSError, subprocess.TimeoutExpired):
        return False


def llama_server_ready(cache: Path) -> bool:
    """The cached binary is there and runs: nothing to build."""
    return _binary_works(llama_server_path(cache))


def check_build_tools() -> None:
    """Fail early and plainly when cmake or a C++ compiler is missing."""
    missing = []
    if shutil.which("cmake") is None:
        missing.append("cmake")
    cxx = os.environ.get("CXX")
    if not ((cxx and shutil.which(cxx)) or any(shutil.which(c) for c in ("c++", "g++", "clang++"))):
        missing.append("a C++ compiler (c++, g++ or clang++)")
    if missing:
        raise LocalLLMError(
            "building the embedded llama-server needs cmake and a C++ compiler; missing: "
            + ", ".join(missing)
            + ". Install them (e.g. `apt-get install cmake g++`) or configure an LLM endpoint."
        )


def download_llama_cpp_source(dest: Path, log_path: Path) -> Path:
    """Fetch the llama-cpp-python sdist and unpack only its vendored llama.cpp tree."""
    sdist_dir = dest / "sdist"
    run_logged(
        "downloading the llama-cpp-python sdist",
        [
            sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
            "--disable-pip-version-check", "--progress-bar", "off",
            f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}", "-d", sdist_dir,
        ],
        log_path,
    )  # fmt: skip
    archives = sorted(sdist_dir.glob("*.tar.gz"))
    if not archives:
        raise LocalLLMError(f"pip download produced no .tar.gz in {sdist_dir} (log: {log_path})")
    with tarfile.open(archives[0]) as tar:
        members = [
            m
            for m in tar.getmembers()
            if m.name.split("/")[1:3] == ["vendor", "llama.cpp"]
            and (m.isreg() or m.isdir())
            and ".." not in m.name.split("/")
        ]
        if not members:
            raise LocalLLMError(f"{archives[0].name} has no vendor/llama.cpp tree")
        if hasattr(tarfile, "data_filter"):  # Python >= 3.11.4: refuse unsafe members
            tar.extractall(dest / "src", members=members, filter="data")
        else:  # plain files and dirs under one relative top directory, filtered above
            tar.extractall(dest / "src", members=members)
    top = members[0].name.split("/")[0]
    source = dest / "src" / top / "vendor" / "llama.cpp"
    if not (source / "CMakeLists.txt").is_file():
        raise LocalLLMError(f"unpacked llama.cpp at {source} has no CMakeLists.txt")
    shutil.rmtree(sdist_dir, ignore_errors=True)
    return source


def compile_launcher(source: Path, dest: Path) -> Path:
    """A compiler launcher (cmake's CMAKE_<LANG>_COMPILER_LAUNCHER) that runs the compiler
    as given, with -O3 or -O2 made -O1 when the file compiled (after -c) lies under one of
    `source`'s LIGHT_DIRS."""
    root = shlex.quote(str(source.resolve()))
    patterns = "|".join(f'"$root"/{d}/*' for d in LIGHT_DIRS)
    dest.write_text(
        "#!/bin/sh\n"
        f"root={root}\n"
        'src=""; prev=""\n'
        'for a in "$@"; do [ "$prev" = "-c" ] && src="$a"; prev="$a"; done\n'
        'case "$src" in\n'
        f"  {patterns})\n"
        '    for a in "$@"; do\n'
        '      case "$a" in -O3|-O2) a=-O1 ;; esac\n'
        '      set -- "$@" "$a"; shift\n'
        "    done ;;\n"
        "esac\n"
        'exec "$@"\n'
    )
    dest.chmod(0o755)
    return dest


def build_llama_server(
    source: Path, build_dir: Path, log_path: Path, jobs: int, light: bool = True
) -> Path:
    """Configure and build only the llama-server target (static, no UI, no SSL); with
    `light`, the code around the kernels at -O1 (`compile_launcher`)."""
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    launchers = []
    if light:
        build_dir.mkdir(parents=True, exist_ok=True)
        launcher = compile_launcher(source, build_dir / "compile-launcher.sh")
        launchers = [f"-D{lang}_COMPILER_LAUNCHER={launcher}" for lang in ("CMAKE_C", "CMAKE_CXX")]
    run_logged(
        "configuring llama.cpp (cmake)",
        [
            "cmake", "-S", source, "-B", build_dir, *generator,
            "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_BUILD_SERVER=ON", "-DLLAMA_BUILD_TOOLS=ON",
            "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
            "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_OPENSSL=OFF",
            "-DBUILD_SHARED_LIBS=OFF",
            *launchers,
            *cpu_options(cpu_flags(), platform.machine()),
        ],
        log_path,
    )  # fmt: skip
    run_logged(
        "building llama-server",
        ["cmake", "--build", build_dir, "--target", "llama-server", "-j", str(jobs)],
        log_path,
    )
    binary = build_dir / "bin" / "llama-server"
    if not binary.is_file():
        raise LocalLLMError(f"build finished but {binary} is missing (log: {log_path})")
    return binary


def ensure_llama_server(cache: Path, console: Console | None = None) -> Path:
    """The cached llama-server binary, building it from source the first time only."""
    target = llama_server_path(cache)
    if llama_server_ready(cache):
        return target
    with file_lock(cache / "locks" / "llama-server.lock", console, "llama-server"):
        if _binary_works(target):  # another process built it while we waited
            return target
        check_build_tools()
        log_path = cache / "logs" / "build-llama-server.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_bytes(b"")
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale(target.parent, ".build-")
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
        try:
            with status_line(console, "downloading the llama.cpp source (llama-cpp-python sdist)"):
                source = download_llama_cpp_source(work, log_path)
            jobs = os.cpu_count() or 1
            with status_line(
                console, f"building llama-server with {jobs} jobs (a few minutes; log: {log_path})"
            ):
                built = build_llama_server(source, work / "build", log_path, jobs)
            if not _binary_works(built):
                raise LocalLLMError(
                    f"the built {built} does not run `--version`; log: {log_path}\n"
                    f"{log_tail(log_path)}"
                )
            staged = target.parent / f".llama-server.{os.getpid()}.tmp"
            shutil.copy2(built, staged)
            os.replace(staged, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    if console is not None:
        console.print(f"built llama-server: {target}")
    return target
