"""The set-up's shared steps: the cache folder, logged commands whose failure names the step
and shows the log's tail, file locks, stale temporaries."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest
from rich.console import Console

from tests.toolscale.llm.local.processes import executable
from toolscale.llm.local import files
from toolscale.llm.local.files import LocalLLMError, cache_dir


def test_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCALE_CACHE", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TOOLSCALE_CACHE")
    assert cache_dir() == tmp_path / "xdg" / "toolscale"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "toolscale"


def test_a_logged_command_appends_its_line_and_output(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "step.log"
    script = executable(tmp_path / "bin" / "hello", "print('hello from the step')\n")
    files.run_logged("saying hello", [script], log)
    files.run_logged("saying hello", [script], log)
    text = log.read_text()
    assert text.count(f"$ {script}\n") == 2 and text.count("hello from the step") == 2


def test_a_failed_command_names_the_step_the_code_and_the_log(tmp_path: Path) -> None:
    log = tmp_path / "step.log"
    script = executable(
        tmp_path / "bin" / "fail",
        "import sys\nfor i in range(30):\n    print(f'line {i}')\nsys.exit(4)\n",
    )
    with pytest.raises(LocalLLMError) as caught:
        files.run_logged("building the thing", [script], log)
    message = caught.value.detail
    assert message.startswith(f"building the thing failed (exit 4); full log: {log}\n")
    assert "line 29" in message and "line 9\n" not in message  # the last 20 lines only
    with pytest.raises(LocalLLMError, match="building the thing: cannot run"):
        files.run_logged("building the thing", [tmp_path / "missing"], log)


def test_the_tail_of_a_log_or_why_there_is_none(tmp_path: Path) -> None:
    assert files.log_tail(tmp_path / "none.log") == "(no log output)"
    empty = tmp_path / "empty.log"
    empty.write_text("")
    assert files.log_tail(empty) == "(log is empty)"
    full = tmp_path / "full.log"
    full.write_text("".join(f"line {i}\n" for i in range(50)))
    assert files.log_tail(full, 3) == "line 47\nline 48\nline 49"


def test_a_second_holder_of_a_file_lock_waits_and_says_so(tmp_path: Path) -> None:
    lock = tmp_path / "locks" / "model.lock"
    said = io.StringIO()
    events: list[str] = []

    def second() -> None:
        with files.file_lock(lock, Console(file=said, width=500), "the model"):
            events.append("second has it")

    with files.file_lock(lock, None, "the model"):
        waiter = threading.Thread(target=second)
        waiter.start()
        deadline = time.monotonic() + 5
        while "waiting" not in said.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        events.append("first lets go")
    waiter.join(5)
    assert events == ["first lets go", "second has it"]
    assert f"waiting for another process that is preparing the model ({lock})" in said.getvalue()


def test_stale_temporaries_are_removed_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / ".build-1" / "obj").mkdir(parents=True)
    (tmp_path / ".build-2").mkdir()
    (tmp_path / "llama-server").write_text("keep")
    files.remove_stale(tmp_path, ".build-")
    assert [p.name for p in tmp_path.iterdir()] == ["llama-server"]
    files.remove_stale(tmp_path / "absent", ".build-")  # no folder: nothing to do
