"""Stage `dedup`: no identical gold sequence, no near-duplicate instruction.

The index lives in an SQLite file (a temporary one unless a path is given), so memory
stays flat however many tasks pass through, and a resumed run can keep its index.
Near-duplicates are found with MinHash over word 3-shingles and LSH banding, then
confirmed by the estimated Jaccard similarity.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import tempfile
from pathlib import Path

import numpy as np

from toolscale.matching import tokens
from toolscale.report import Rejection
from toolscale.task import Task

STAGE = "dedup"
_PERMS = 64
_BANDS = 16
_ROWS = _PERMS // _BANDS
_rng = np.random.default_rng(20251121)
_SALT = _rng.integers(0, 2**63, _PERMS, dtype=np.uint64)
_MULT = _rng.integers(0, 2**63, _PERMS, dtype=np.uint64) | np.uint64(1)


def gold_key(task: Task) -> str:
    calls = [[c.name, c.arguments, c.expect_error] for c in task.gold_calls]
    text = json.dumps(calls, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def signature(text: str) -> np.ndarray:
    words = tokens(text)
    k = min(3, len(words)) or 1
    shingles = {" ".join(words[i : i + k]) for i in range(max(1, len(words) - k + 1))}
    hashes = np.array(
        [int.from_bytes(hashlib.blake2b(s.encode(), digest_size=8).digest()) for s in shingles],
        dtype=np.uint64,
    )
    mixed = (hashes[:, None] ^ _SALT[None, :]) * _MULT[None, :]  # wraps mod 2**64
    return (mixed >> np.uint64(32)).min(axis=0).astype(np.uint32)


def _bands(sig: np.ndarray) -> list[int]:
    return [
        int.from_bytes(
            hashlib.blake2b(sig[b * _ROWS : (b + 1) * _ROWS].tobytes(), digest_size=8).digest(),
            signed=True,
        )
        for b in range(_BANDS)
    ]


class DedupIndex:
    def __init__(self, path: str | Path | None = None, threshold: float = 0.8):
        self.threshold = threshold
        self._tmp = None
        if path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="toolscale-dedup-")
            path = Path(self._tmp.name) / "dedup.sqlite"
        self._con = sqlite3.connect(str(path), isolation_level=None)
        self._con.executescript(
            """
            PRAGMA journal_mode = WAL;
            PRAGMA synchronous = OFF;
            CREATE TABLE IF NOT EXISTS gold (key TEXT PRIMARY KEY, task_id TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS sigs (task_id TEXT PRIMARY KEY, sig BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS bands (band INTEGER, h INTEGER, task_id TEXT);
            CREATE INDEX IF NOT EXISTS bands_bh ON bands (band, h);
            """
        )
        pairs = " OR ".join(["(band = ? AND h = ?)"] * _BANDS)
        self._lookup = f"SELECT DISTINCT task_id FROM bands WHERE {pairs}"
        self._pending = 0
        self._con.execute("BEGIN")

    def check(self, task: Task) -> Rejection | None:
        """Reject a duplicate; otherwise remember the task and accept it."""
        key = gold_key(task)
        row = self._con.execute("SELECT task_id FROM gold WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return Rejection(
                stage=STAGE,
                reason="duplicate_gold",
                detail=f"the same gold call sequence as accepted task {row[0]!r}",
            )
        sig = signature(task.instruction)
        bands = _bands(sig)
        found = self._con.execute(self._lookup, [v for b, h in enumerate(bands) for v in (b, h)])
        candidates = {tid for (tid,) in found}
        for tid in sorted(candidates):
            (blob,) = self._con.execute("SELECT sig FROM sigs WHERE task_id = ?", (tid,)).fetchone()
            similarity = float(np.mean(np.frombuffer(blob, dtype=np.uint32) == sig))
            if similarity >= self.threshold:
                return Rejection(
                    stage=STAGE,
                    reason="near_duplicate_instruction",
                    detail=f"instruction is {similarity:.0%} similar to accepted task {tid!r} "
                    f"(threshold {self.threshold:.0%})",
                )
        self._con.execute("INSERT OR REPLACE INTO gold VALUES (?, ?)", (key, task.id))
        self._con.execute("INSERT OR REPLACE INTO sigs VALUES (?, ?)", (task.id, sig.tobytes()))
        self._con.executemany(
            "INSERT INTO bands VALUES (?, ?, ?)", [(b, h, task.id) for b, h in enumerate(bands)]
        )
        self._pending += 1
        if self._pending >= 256:
            self.flush()
        return None

    def flush(self) -> None:
        """Commit what was added; the index is a cache of accepted tasks, so batching is safe."""
        self._con.execute("COMMIT")
        self._con.execute("BEGIN")
        self._pending = 0

    def close(self) -> None:
        self._con.execute("COMMIT")
        self._con.close()
        if self._tmp is not None:
            self._tmp.cleanup()
