"""Stage `preference`: a stated preference agrees with the gold."""

from __future__ import annotations

from tests.conftest import mini_task
from tests.validators.verdicts import MOVE, bank_verdict
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

ACCOUNT = {"name": "get_account", "arguments": {"account_id": "A20001"}}
ASK = "Please move $250 from A20001 to A20002 and tell me what is left in A20001."
TOLD = [{"call": 1, "path": "from_balance"}]
CHEAP = "Keep this as cheap as possible."


def test_a_check_a_cheap_user_does_not_need_is_avoidable_call(
    banking_spec: EnvironmentSpec,
) -> None:
    """Reading the account before the transfer is a fine check, but the transfer's own
    require steps check it too: a user who asked for cheap pays for nothing."""
    assert bank_verdict(banking_spec, ASK, gold_calls=[ACCOUNT, MOVE], communicate=TOLD) == (
        "accepted",
        "ok",
        "",
    )
    stage, reason, detail = bank_verdict(
        banking_spec,
        f"{ASK} {CHEAP}",
        gold_calls=[ACCOUNT, MOVE],
        communicate=TOLD,
        preferences={"cost": 1.0, "statement": CHEAP},
    )
    assert (stage, reason) == ("preference", "avoidable_call")
    assert "cheap" in detail and "get_account" in detail
    lean = bank_verdict(
        banking_spec,
        f"{ASK} {CHEAP}",
        gold_calls=[MOVE],
        communicate=[{"call": 0, "path": "from_balance"}],
        preferences={"cost": 1.0, "statement": CHEAP},
    )
    assert lean == ("accepted", "ok", "")


def test_a_tool_the_user_avoids_in_the_gold_is_avoided_tool_used(
    banking_spec: EnvironmentSpec,
) -> None:
    avoid = "Please don't use get_account."
    stage, reason, detail = bank_verdict(
        banking_spec,
        f"{ASK} {avoid}",
        gold_calls=[ACCOUNT, MOVE],
        communicate=TOLD,
        preferences={"avoid_tools": ["get_account"], "statement": avoid},
    )
    assert (stage, reason) == ("preference", "avoided_tool_used")
    assert "get_account" in detail


def test_an_avoided_tool_with_a_cost_weight_asks_for_a_lean_gold_too(
    banking_spec: EnvironmentSpec,
) -> None:
    """Medicine-intent-00040 on 369ec82: "Please don't use the get patients service; it is
    expensive." carried a cost weight of 0.5, which the trainer's reward reads, over a gold
    with a read a cheaper one makes; the stage skipped its cost checks for any avoided tool."""
    avoid = "Please don't use the find client by phone service; it is expensive."
    pref = {"avoid_tools": ["find_client_by_phone"], "statement": avoid}
    stage, reason, detail = bank_verdict(
        banking_spec,
        f"{ASK} {avoid}",
        gold_calls=[ACCOUNT, MOVE],
        communicate=TOLD,
        preferences=pref | {"cost": 0.5},
    )
    assert (stage, reason) == ("preference", "avoidable_call")
    assert "get_account" in detail
    kept = bank_verdict(
        banking_spec, f"{ASK} {avoid}", gold_calls=[ACCOUNT, MOVE], communicate=TOLD,
        preferences=pref,
    )  # fmt: skip
    assert kept == ("accepted", "ok", "")


def _by_account(name: str, price: float, latency_ms: float, table: str = "accounts") -> Tool:
    """A read of `table` by an account id, at its own price and latency."""
    return Tool(
        name=name,
        description=f"The {table} of an account.",
        kind="read",
        price=price,
        latency_ms=latency_ms,
        parameters={"type": "object", "properties": {"account_id": {"type": "string"}},
                    "required": ["account_id"]},
        returns=f"SELECT * FROM {table} WHERE account_id = :account_id",
    )  # fmt: skip


def _for_get_balance(spec: EnvironmentSpec, tool: Tool) -> EnvironmentSpec:
    """The environment with `tool` where get_balance was, the lightest read of a balance."""
    others = [t for t in spec.tools if t.name != "get_balance"]
    return spec.model_copy(update={"tools": [*others, tool]})


def test_a_read_a_cheaper_one_with_the_same_arguments_could_make_is_lighter_read(
    banking_spec: EnvironmentSpec,
) -> None:
    """Medicine on fdf189b kept "Please keep this as cheap as possible" over
    list_appointments_by_patient_id ($0.0049), where recent_appointments_by_patient_id
    ($0.0018) with the same patient gives the appointment the task uses. Here get_account
    ($0.004) tells a balance get_balance ($0.001) gives too."""
    from validators.preference import lighter_read

    def verdict(read: dict, path: str, avoid: tuple[str, ...] = (), **pref: float) -> str | None:
        task = mini_task(
            instruction="What is the balance of my account A20001? Keep it cheap.",
            gold_calls=[read],
            communicate=[{"call": 0, "path": path}],
            preferences={**pref, "statement": "Keep it cheap.", "avoid_tools": list(avoid)},
        )
        with Environment(banking_spec) as env:
            return lighter_read(task, env, env.replay(task.gold_calls))

    detail = verdict(ACCOUNT, "balance", cost=1.0)
    assert detail is not None
    assert 'get_balance{"account_id":"A20001"} ($0.001) gives what the task uses' in detail
    quick = verdict(ACCOUNT, "balance", latency=1.0) or ""
    assert 'quick, and get_balance{"account_id":"A20001"} (25 ms)' in quick
    lighter = {"name": "get_balance", "arguments": {"account_id": "A20001"}}
    assert verdict(lighter, "balance", cost=1.0) is None
    assert verdict(ACCOUNT, "balance") is None  # no preference, no lighter read
    # a tool the user asked to avoid is no way round (from the review of 369ec82..5318624)
    assert verdict(ACCOUNT, "balance", avoid=("get_balance",), cost=0.5) is None
    assert verdict(ACCOUNT, "kind", cost=1.0) is None  # the kind only get_account gives
    # the same value in another record's row is no replacement (from the review of
    # 0302284..0ee2fcd): a card's status 'active', where list_accounts ($0.005, below
    # list_cards' $0.006) lists accounts whose status reads 'active' too
    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    assert verdict(cards, "0.status", cost=1.0) is None
    # nor is a row of another table that holds the record's key (medicine-intent-00077 on
    # 369ec82: list_prescriptions_by_patient_id's rows hold the appointment_id the task
    # used of list_appointments_by_patient_id)
    moves = _by_account("list_moves", 0.0005, 10, "transactions")
    banking_spec = _for_get_balance(banking_spec, moves)
    assert verdict(ACCOUNT, "account_id", cost=1.0) is None


def test_a_read_a_cheaper_one_makes_with_what_the_user_said_is_lighter_read(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00013 in runs/ kept "keep this as cheap as possible" over
    list_players_by_team_id ($0.0035), where find_player_by_name ($0.0008) with the name the
    user gave, "Gabriella Gallagher", finds the one player the task used (slower: 238 ms to
    124, which a user who weighs cost alone does not mind). Here list_accounts ($0.005)
    lists the account the user names, which get_account ($0.004) reads by that id."""
    from validators.preference import lighter_read

    listed = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}

    def verdict(
        instruction: str, read: dict, path: str, spec: EnvironmentSpec, **pref: float
    ) -> str | None:
        task = mini_task(
            instruction=f"{instruction} Keep it cheap.",
            gold_calls=[read],
            communicate=[{"call": 0, "path": path}],
            preferences={**pref, "statement": "Keep it cheap."},
        )
        with Environment(spec) as env:
            return lighter_read(task, env, env.replay(task.gold_calls))

    ask = "What is the balance of my account A20001?"
    said = verdict(ask, listed, "0.balance", banking_spec, cost=1.0) or ""
    assert 'get_account{"account_id":"A20001"} ($0.004) gives what the task uses' in said
    # the account unnamed: only listing finds it
    unnamed = "What is the balance of my checking?"
    assert verdict(unnamed, listed, "0.balance", banking_spec, cost=1.0) is None
    # the user is found the way the policy says, not by an id they give (school's
    # find_teacher_by_email, where find_teacher_by_name is cheaper)
    by_email = {"name": "find_client_by_email", "arguments": {"email": "maria.lopez@example.com"}}
    mine = "I am client C1001, maria.lopez@example.com. What is my tier?"
    assert verdict(mine, by_email, "tier", banking_spec, cost=1.0) is None
    # cheaper and slower: lighter for a user who weighs cost alone, not for one who weighs both
    spec = _for_get_balance(banking_spec, _by_account("get_account_slowly", 0.0001, 900))
    assert "get_account_slowly" in (verdict(ask, ACCOUNT, "balance", spec, cost=1.0) or "")
    assert verdict(ask, ACCOUNT, "balance", spec, cost=1.0, latency=0.5) is None
