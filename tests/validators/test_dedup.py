"""Stage `dedup`: no identical gold sequence, no near-duplicate instruction, an index on disk."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import mini_task
from tests.validators.verdicts import W30
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task, gold_key
from validators import dedup
from validators.pipeline import verify


def test_dedup_gold_and_near_duplicate(mini_spec: EnvironmentSpec) -> None:
    first = mini_task(id="a")
    same_gold = mini_task(
        id="b", instruction="Take thirty dollars, i.e. 30, out of A1; what is left?"
    )
    near = mini_task(
        id="c",
        instruction="Withdraw $30 from account A1 and tell me the new balance please.",
        # the account read first (a read back after the withdrawal would tell only what
        # the withdrawal's output showed)
        gold_calls=[{"name": "get_account", "arguments": {"account_id": "A1"}}, W30],
        communicate=[{"call": 1, "path": "balance"}],
    )
    other = mini_task(
        id="d",
        instruction="Open a new account for client 1 and give me its id.",
        gold_calls=[{"name": "open_account", "arguments": {"client_id": 1}}],
        communicate=[{"call": 0, "path": "id"}],
    )
    accepted, rejected, report = verify(mini_spec, [first, same_gold, near, other])
    assert [t.id for t in accepted] == ["a", "d"]
    assert [(r.task_id, r.reason) for r in rejected] == [
        ("b", "duplicate_gold"),
        ("c", "near_duplicate_instruction"),
    ]
    assert report.stage("dedup").rejected == {"duplicate_gold": 1, "near_duplicate_instruction": 1}


def test_dedup_index_persists_on_disk(tmp_path, mini_spec: EnvironmentSpec) -> None:
    path = tmp_path / "dedup.sqlite"
    index = dedup.DedupIndex(path)
    assert index.check(mini_task(id="a")) is None
    index.close()
    again = dedup.DedupIndex(path)
    found = again.check(mini_task(id="b"))
    assert found is not None and found.reason == "duplicate_gold"
    again.close()


def test_near_duplicate_decision_uses_exact_similarity(tmp_path) -> None:
    base = (
        "please move two hundred dollars from my checking account into savings before "
        "the rent is due on friday and tell me the balance"
    )
    words = base.split()
    tail = " ".join([*words[:-1], "total"])  # one shingle differs
    middle = " ".join([*words[:10], "brokerage", *words[11:]])  # three shingles differ

    def jaccard(a: str, b: str) -> float:
        x, y = dedup.shingles(a), dedup.shingles(b)
        return len(x & y) / len(x | y)

    assert jaccard(base, tail) >= 0.8 > jaccard(base, middle) >= 0.7  # close calls both
    index = dedup.DedupIndex(tmp_path / "d.sqlite", threshold=0.8)

    def task(tid: str, text: str, amount: int) -> Task:
        call = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": amount}}
        return mini_task(id=tid, instruction=text, gold_calls=[call])

    assert index.check(task("base", base, 1)) is None
    assert index.check(task("middle", middle, 2)) is None
    found = index.check(task("tail", tail, 3))
    assert found is not None and found.reason == "near_duplicate_instruction"
    assert f"{jaccard(base, tail):.0%} similar" in found.detail and "'base'" in found.detail
    index.close()


def test_shingles_are_word_triples_and_a_short_text_is_one() -> None:
    assert dedup.shingles("Withdraw $30 from A1") == {b"withdraw 30 from", b"30 from a1"}
    assert dedup.shingles("Hi there") == {b"hi there"}
    assert dedup.shingles("") == {b""}


def test_a_signature_is_stable_and_close_texts_share_most_of_it() -> None:
    text = "please move two hundred dollars from checking into savings before friday"
    first, again = dedup.signature(text), dedup.signature(text)
    assert first.shape == (64,) and (first == again).all()
    close = dedup.signature(text.replace("friday", "monday"))
    far = dedup.signature("open a brand new brokerage account for my daughter")
    assert (first == close).mean() > (first == far).mean()


def test_the_gold_key_is_the_calls_and_their_declared_errors() -> None:
    a = mini_task(id="a", instruction="one")
    b = mini_task(id="b", instruction="two")
    assert gold_key(a.gold_calls) == gold_key(b.gold_calls)
    failing = [W30 | {"expect_error": "frozen"}]
    assert gold_key(mini_task(gold_calls=failing).gold_calls) != gold_key(a.gold_calls)


def test_a_stricter_threshold_lets_a_rewording_through(tmp_path: Path) -> None:
    base = "withdraw thirty dollars from account a1 and tell me the new balance please"
    reworded = "withdraw thirty dollars from account a1 and tell me the new balance now"

    def task(tid: str, text: str, amount: int) -> Task:
        call = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": amount}}
        return mini_task(id=tid, instruction=text, gold_calls=[call])

    strict = dedup.DedupIndex(tmp_path / "strict.sqlite", threshold=0.95)
    assert strict.check(task("a", base, 1)) is None
    assert strict.check(task("b", reworded, 2)) is None
    strict.close()
    loose = dedup.DedupIndex(tmp_path / "loose.sqlite", threshold=0.7)
    assert loose.check(task("a", base, 1)) is None
    found = loose.check(task("b", reworded, 2))
    assert found is not None and found.reason == "near_duplicate_instruction"
    assert "(threshold 70%)" in found.detail
    loose.close()
