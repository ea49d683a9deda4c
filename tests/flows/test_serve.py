"""`make serve` on a real Prefect server (issue 12): the process work pool, a deployment with
a short interval schedule, a worker that picks up its scheduled run, the run's dataset and
artifact; `make stop` leaves no process behind."""

from __future__ import annotations

import json
import os
import textwrap
import time
import urllib.request
from pathlib import Path

import pytest

from flows.serve import ServeError, deployments, serve, stop
from tests.conftest import ROOT
from toolscale.children import alive, descendants, free_port
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import FakeLLM

pytestmark = pytest.mark.slow

DEPLOYMENT = """\
name: toolscale-test
prefect-version: 3.8.8
pull:
  - prefect.deployments.steps.set_working_directory:
      directory: "{{{{ $TOOLSCALE_HOME }}}}"
deployments:
  - name: library-every-20s
    entrypoint: flows/publish.py:generate_and_publish
    parameters:
      n_tasks: 3
      domains: [library]
      data_dir: {data}
      domains_dir: {domains}
      out: {out}
    schedules:
      - interval: 20
    work_pool:
      name: test-pool
"""


def post(api_url: str, path: str, body: dict) -> list[dict]:
    request = urllib.request.Request(
        f"{api_url}/{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        return list(json.loads(r.read()))


@pytest.mark.skipif(
    os.environ.get("TOOLSCALE_E2E") != "1", reason="set TOOLSCALE_E2E=1 (make test-slow)"
)
def test_a_scheduled_run_completes_through_a_worker_and_stop_leaves_nothing(
    domains: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, out, home = tmp_path / "data", tmp_path / "out", tmp_path / ".prefect"
    prefect_file = tmp_path / "prefect.yaml"
    prefect_file.write_text(textwrap.dedent(DEPLOYMENT).format(data=data, domains=domains, out=out))
    monkeypatch.chdir(ROOT)  # entrypoints and the pull step are the project's
    for var in [v for v in os.environ if v.startswith("PREFECT_API")]:
        monkeypatch.delenv(var)
    monkeypatch.setenv("PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS", "3")
    monkeypatch.setenv("PREFECT_WORKER_QUERY_SECONDS", "2")
    started: set[int] = set()
    with FakeLLM(library, latency_s=0.05) as fake:
        monkeypatch.setenv("TOOLSCALE_LLM_URL", fake.base_url)
        monkeypatch.setenv("TOOLSCALE_LLM_MODEL", "fake")
        served = serve(home, free_port(), prefect_file, pool="test-pool")
        try:
            started |= {served.server_pid, served.worker_pid}
            assert served.deployments == ["generate-and-publish/library-every-20s"]
            assert deployments(served.api_url) == served.deployments
            with pytest.raises(ServeError, match="make stop"):  # one server per folder
                serve(home, free_port(), prefect_file, pool="test-pool")
            deadline = time.monotonic() + 420
            done: list[dict] = []
            while time.monotonic() < deadline and not done:
                started |= descendants(served.server_pid) | descendants(served.worker_pid)
                # the deployment's own runs (its subflows are flow runs too, with none)
                runs = [
                    r for r in post(served.api_url, "flow_runs/filter", {}) if r["deployment_id"]
                ]
                done = [r for r in runs if (r.get("state") or {}).get("type") == "COMPLETED"]
                failed = [r for r in runs if (r.get("state") or {}).get("type") == "FAILED"]
                assert not failed, (home / "worker.log").read_text(errors="replace")[-4000:]
                time.sleep(1)
            log = (home / "worker.log").read_text(errors="replace")[-4000:]
            assert done, f"no scheduled run completed in time:\n{log}"
            assert done[0]["auto_scheduled"], done[0]  # made by the schedule, not by hand
            tasks = (data / "library" / "tasks.jsonl").read_text().splitlines()
            assert len(tasks) >= 3
            card = (out / "README.md").read_text()
            assert "library" in card
            artifacts = post(served.api_url, "artifacts/filter", {})
            assert {"publish-dataset"} <= {a.get("key") for a in artifacts}
        finally:
            stop(home)
    assert not (home / "serve.json").exists()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(p) for p in started):
        time.sleep(0.2)
    left = [p for p in started if alive(p)]
    assert not left, f"outlived `stop`: {left}"
