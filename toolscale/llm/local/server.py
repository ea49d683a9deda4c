"""The running llama-server: a free port on 127.0.0.1, parallel slots, dies with its parent,
always stopped."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType

from toolscale.children import die_with_parent, end, free_port
from toolscale.llm.local.files import LocalLLMError, cache_dir, log_tail


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
                    # SIGKILL: on SIGTERM a busy server went on decoding (a bench's, 5 s
                    # and more after its parent was killed), and it holds nothing to save
                    preexec_fn=die_with_parent(signal.SIGKILL),  # prctl runs in the child
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
        end(proc)
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
