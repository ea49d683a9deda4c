"""Stage `dedup`: no identical gold sequence, no near-duplicate instruction.

The index lives in an SQLite file (a temporary one unless a path is given), so memory
stays flat however many tasks pass through, and a resumed run can keep its index.
Near-duplicates are found with MinHash over word 3-shingles and LSH banding, then
confirmed by the exact Jaccard similarity of the shingles.
"""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
from pathlib import Path

import numpy as np

from toolscale.matching import tokens
from toolscale.reasons import DedupReason
from toolscale.report import Rejection
from toolscale.task import Task, gold_key
from validators.stage import TaskContext

STAGE = "dedup"
_PERMS = 64
_BANDS = 16
_ROWS = _PERMS // _BANDS
_rng = np.random.default_rng(20251121)
_BAND_MULT = _rng.integers(0, 2**63, _ROWS, dtype=np.uint64) | np.uint64(1)


def shingles(text: str) -> set[bytes]:
    """Word 3-shingles (fewer words: the whole text as one shingle)."""
    words = tokens(text)
    k = min(3, len(words)) or 1
    return {" ".join(words[i : i + k]).encode() for i in range(max(1, len(words) - k + 1))}


def signature(text: str) -> np.ndarray:
    """MinHash of the shingles: 64 independent 32-bit hashes per shingle from one SHAKE-128
    digest, so estimates are unbiased and stable across runs."""
    found = shingles(text)
    digests = b"".join(hashlib.shake_128(s).digest(4 * _PERMS) for s in found)
    return np.frombuffer(digests, dtype=np.uint32).reshape(len(found), _PERMS).min(axis=0)


def _bands(sig: np.ndarray) -> list[int]:
    """One signed 64-bit key per band of rows (collisions only add candidates to confirm)."""
    rows = sig.reshape(_BANDS, _ROWS).astype(np.uint64)
    keys = (rows * _BAND_MULT[None, :]).sum(axis=1, dtype=np.uint64)  # wraps mod 2**64
    return keys.view(np.int64).tolist()


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
            CREATE TABLE IF NOT EXISTS sigs
                (task_id TEXT PRIMARY KEY, sig BLOB NOT NULL, instruction TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS bands (band INTEGER, h INTEGER, task_id TEXT);
            CREATE INDEX IF NOT EXISTS bands_bh ON bands (band, h);
            """
        )
        pairs = " OR ".join(["(band = ? AND h = ?)"] * _BANDS)
        self._lookup = (
            "SELECT task_id, sig, instruction FROM sigs WHERE task_id IN "
            f"(SELECT task_id FROM bands WHERE {pairs}) ORDER BY task_id"
        )
        self._pending = 0
        self._con.execute("BEGIN")

    def check(self, task: Task) -> Rejection | None:
        """Reject a duplicate; otherwise remember the task and accept it."""
        key = gold_key(task.gold_calls)
        row = self._con.execute("SELECT task_id FROM gold WHERE key = ?", (key,)).fetchone()
        if row is not None:
            return Rejection(
                stage=STAGE,
                reason=DedupReason.DUPLICATE_GOLD,
                detail=f"the same gold call sequence as accepted task {row[0]!r}",
            )
        sig = signature(task.instruction)
        bands = _bands(sig)
        found = self._con.execute(self._lookup, [v for b, h in enumerate(bands) for v in (b, h)])
        rows = found.fetchall()
        if rows:
            sigs = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.uint32)
            estimate = (sigs.reshape(len(rows), _PERMS) == sig).mean(axis=1)
            mine = shingles(task.instruction)
            # the estimate (standard error ~0.06) only picks whom to compare exactly
            for i in np.flatnonzero(estimate >= self.threshold - 0.25):
                tid, _, text = rows[i]
                theirs = shingles(text)
                similarity = len(mine & theirs) / len(mine | theirs)
                if similarity >= self.threshold:
                    return Rejection(
                        stage=STAGE,
                        reason=DedupReason.NEAR_DUPLICATE_INSTRUCTION,
                        detail=f"instruction is {similarity:.0%} similar (word 3-shingles) to "
                        f"accepted task {tid!r} (threshold {self.threshold:.0%})",
                    )
        self._con.execute("INSERT OR REPLACE INTO gold VALUES (?, ?)", (key, task.id))
        self._con.execute(
            "INSERT OR REPLACE INTO sigs VALUES (?, ?, ?)",
            (task.id, sig.tobytes(), task.instruction),
        )
        self._con.executemany(
            "INSERT INTO bands VALUES (?, ?, ?)", [(b, h, task.id) for b, h in enumerate(bands)]
        )
        self._pending += 1
        if self._pending >= 256:
            self.flush()
        return None

    def forget(self, task_ids: list[str]) -> None:
        """Drop tasks the caller did not keep after all (started past a run's target), so
        they refuse no later task."""
        for table in ("gold", "sigs", "bands"):
            self._con.executemany(
                f"DELETE FROM {table} WHERE task_id = ?", [(t,) for t in task_ids]
            )

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


def run(ctx: TaskContext) -> Rejection | None:
    """The verifier's index: it spans every task it verifies (and what a caller adds)."""
    return ctx.dedup.check(ctx.task)
