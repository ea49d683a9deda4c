"""Every stable reason code, one string enum per family, each member with its description.

Reason codes are part of the output (rejected.jsonl, report.json, the ledger, tool results)
and of what people filter on, so they are defined once, here. Members are `str`: JSON and
pydantic see the plain code. A member's name is its code in capitals.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self


class Reason(StrEnum):
    """Base of the families: a member is `CODE = "code", "what it means"`."""

    description: str

    def __new__(cls, value: str, description: str) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.description = description
        return member

    @classmethod
    def of(cls, value: str) -> Self:
        """The member whose code is `value` (a code read back from JSON or a pipe)."""
        return cls._value2member_map_[value]  # type: ignore[return-value]


# -- verification stages (the README's table is checked against these) ---------------------


class StaticSQLReason(Reason):
    """Stage `static_sql`: a tool statement or CHECK expression fails a static check."""

    SQL_PARSE_ERROR = "sql_parse_error", "the statement does not parse (or is empty)"
    SQL_MULTIPLE_STATEMENTS = "sql_multiple_statements", "more than one statement in a step"
    SQL_FORBIDDEN_STATEMENT = (
        "sql_forbidden_statement",
        "a statement kind the step may not run (DDL, PRAGMA, ATTACH, a nested write, ...)",
    )
    SQL_FORBIDDEN_FUNCTION = (
        "sql_forbidden_function",
        "a function outside the safe set, a table function, or one that reads files",
    )
    SQL_UNKNOWN_TABLE = "sql_unknown_table", "a table not in the schema, or a qualified name"
    SQL_UNKNOWN_COLUMN = "sql_unknown_column", "a column no table in scope has"
    SQL_UNKNOWN_PARAMETER = (
        "sql_unknown_parameter",
        "a parameter neither declared nor built in, or a positional one",
    )
    SQL_NOT_PORTABLE = (
        "sql_not_portable",
        "DuckDB cannot bind the transpiled statement, an output is unnamed, or an UPDATE sets "
        "a UNIQUE column of a referenced table, which DuckDB refuses",
    )
    SQL_TOO_COSTLY = (
        "sql_too_costly",
        "a function argument past its cap (a width, a count, a text length), a recursive CTE, "
        "or a statement longer than allowed: what could make one call cost without bound",
    )
    SQL_CHECK_BUDGET = (
        "sql_check_budget",
        "checking the statement (DuckDB binds it, folding constants) ran past its budget",
    )
    CHECK_PARSE_ERROR = "check_parse_error", "a CHECK expression does not parse"
    CHECK_FORBIDDEN = (
        "check_forbidden",
        "a CHECK expression with a subquery, a parameter, or a function outside the safe set",
    )
    CHECK_UNKNOWN_COLUMN = (
        "check_unknown_column",
        "a CHECK expression names a column its table does not have",
    )
    CHECK_NOT_PORTABLE = (
        "check_not_portable",
        "DuckDB cannot create a table with the transpiled CHECK expression",
    )


class SeedReason(Reason):
    """Stage `seed`: a seed row the database (or the value check before it) refuses."""

    SEED_CONSTRAINT_VIOLATION = (
        "seed_constraint_violation",
        "a key, foreign key, NOT NULL or CHECK constraint refuses a row",
    )
    SEED_UNKNOWN_COLUMN = "seed_unknown_column", "a row names a column its table does not have"
    SEED_BAD_VALUE = "seed_bad_value", "a date or datetime value that is not ISO 8601"
    SEED_SCHEMA_REFUSED = (
        "seed_schema_refused",
        "an engine cannot create a table (a CHECK it cannot parse or bind)",
    )
    SEED_BUDGET = (
        "seed_budget",
        "loading the seed ran past its time or memory budget (a CHECK too costly per row)",
    )


class StructureReason(Reason):
    """Stage `structure`: the item is not a well-formed task for this environment."""

    BAD_JSON = "bad_json", "the line is not UTF-8 JSON"
    NOT_A_TASK = "not_a_task", "the JSON does not validate as a Task"
    UNKNOWN_TOOL = "unknown_tool", "a gold call names a tool the environment does not have"
    BAD_ARGUMENTS = "bad_arguments", "a gold call's arguments do not fit its tool's JSON Schema"
    UNKNOWN_PREFERENCE_TOOL = (
        "unknown_preference_tool",
        "the preferences name a tool the environment does not have",
    )


class ReplayReason(Reason):
    """Stage `replay`: the strict replay of the gold calls."""

    GOLD_CALL_FAILED = (
        "gold_call_failed",
        "a gold call failed, or failed with another error than declared",
    )
    EXPECTED_ERROR_MISSING = "expected_error_missing", "a call declared to fail succeeded"
    COMMUNICATE_UNRESOLVED = (
        "communicate_unresolved",
        "a value to communicate points at no single value of a real output",
    )
    EXPECTED_MISMATCH = (
        "expected_mismatch",
        "the task's claimed final state is not the state the replay reached",
    )


class DeterminismReason(Reason):
    """Stage `determinism`: replays agree, on one engine and across engines."""

    NONDETERMINISTIC = "nondeterministic", "two replays on the same engine differ"
    ENGINE_MISMATCH = "engine_mismatch", "SQLite and DuckDB give different results or states"


class TrivialityReason(Reason):
    """Stage `triviality`: there must be something to do."""

    TRIVIAL = "trivial", "no state change and nothing to communicate"


class NecessityReason(Reason):
    """Stage `necessity`: every write call matters."""

    UNNECESSARY_WRITE = (
        "unnecessary_write",
        "dropping that one write call leaves the same final state",
    )


class OutcomeReason(Reason):
    """Stage `outcome`: the state the gold leaves keeps what every seed row keeps."""

    TAKEN_VALUE = (
        "taken_value",
        "a new row repeats a number another row under the same parent holds, where no two "
        "seed rows under one parent share it (a seat another ticket of the trip holds)",
    )


class ProvenanceReason(Reason):
    """Stage `provenance`: no invented values."""

    UNSUPPORTED_ARGUMENT = (
        "unsupported_argument",
        "an argument value neither said by the user nor returned earlier; enum and boolean "
        "parameters are exempt",
    )


class FlowReason(Reason):
    """Stage `flow`: every call earns its place."""

    REPEATED_CALL = (
        "repeated_call",
        "a call repeats an earlier one and nothing was written in between",
    )
    UNUSED_READ = (
        "unused_read",
        "a read whose output no later argument, told value or check before a write uses, "
        "or that shows only rows an earlier read showed with nothing written in between",
    )


class IntentReason(Reason):
    """Stage `intent`: the instruction asks for what the gold does, and no less."""

    UNASKED_WRITE = "unasked_write", "a write whose operation the instruction does not ask for"
    UNSERVED_REQUEST = (
        "unserved_request",
        "the instruction asks for an act no gold write does ('I'd like to book my next movie. "
        "Could you activate my booking?', whose gold only activates)",
    )
    UNASKED_TARGET = (
        "unasked_target",
        "a write on a record the instruction does not name or tell apart from the user's others",
    )
    UNASKED_VALUE = (
        "unasked_value",
        "a value told to the user that the instruction does not ask for (or asks of another "
        "entity)",
    )
    UNTOLD_VALUE = (
        "untold_value",
        "the instruction asks for a value (or for each row's) that the task does not tell",
    )
    READS_LIKE_CALLS = (
        "reads_like_calls",
        "the instruction spells out a lookup's name ('list cards by account id'): a "
        "request that reads like the calls it came from",
    )
    ASKS_AFTER_REFUSAL = (
        "asks_after_refusal",
        "every write is refused, yet the instruction asks to be told a value after it "
        "('my balance after this transfer'), which never exists",
    )
    REFUSED_AS_IS = (
        "refused_as_is",
        "a refused write moves a record to the state a read of the gold shows it in ('freeze "
        "my frozen card'): the record already is as asked, and its refusal teaches nothing "
        "of the rule",
    )
    ASSISTANT_VOICE = (
        "assistant_voice",
        "the instruction says what only an assistant says ('I'm here to help ... if you have "
        "any questions'): it is the customer's request",
    )
    DANGLING_REFERENCE = (
        "dangling_reference",
        "the instruction points at something it does not hold ('as indicated in the form "
        "below'): the agent and the user simulator see no form",
    )
    THIRD_PERSON = (
        "third_person",
        "the instruction asks for someone else's records ('activate her card'): the agent "
        "acts only for the person who asks",
    )
    STALE_VALUE = (
        "stale_value",
        "a value told from a read made before a later write changed it ('tell me the "
        "current status', told the status the gold then overwrote)",
    )
    ASKED_BEFORE_TOLD_AFTER = (
        "asked_before_told_after",
        "the user asks whether a record is currently in a state, and is told the state a "
        "write of the gold then gave it ('tell me if he is currently active', told 'active' "
        "by the activation)",
    )

    UNMET_WISH = (
        "unmet_wish",
        "the instruction wants a record left in a state ('activate my loan and make sure "
        "it's repaid') that the gold does not leave it in",
    )
    UNIDENTIFIED_USER = (
        "unidentified_user",
        "the gold writes before it finds the user with a find tool or names them by their "
        "own id, against the policy ('identify the user first'): a transfer set pending by "
        "its id alone",
    )


class FactsReason(Reason):
    """Stage `facts`: what the user states is true and about this task."""

    FALSE_FACT = (
        "false_fact",
        "the user states a value (or a status) that the seed and the task's records do not hold",
    )
    UNRELATED_FACT = (
        "unrelated_fact",
        "the user states a value the seed holds, but no gold argument or output has it",
    )
    DISOWNED_FACT = (
        "disowned_fact",
        "the user says they do not know a value ('I forgot the email and seat count') that "
        "their known facts state",
    )
    NOT_A_FACT = (
        "not_a_fact",
        "a known fact says nothing the user knows of their records: a wish, a question, a "
        "verdict, an unknown, what the reply will hold, or a line about the talk itself",
    )


class PreferenceReason(Reason):
    """Stage `preference`: a stated preference agrees with the gold."""

    AVOIDABLE_CALL = (
        "avoidable_call",
        "the user wants it cheap or quick, and a gold read adds nothing the task uses",
    )
    LIGHTER_READ = (
        "lighter_read",
        "the user wants it cheap or quick, and a cheaper or quicker read with the same "
        "arguments gives what the task uses of a gold read",
    )
    AVOIDED_TOOL_USED = "avoided_tool_used", "the gold calls a tool the user asks to avoid"


class DedupReason(Reason):
    """Stage `dedup`: no repeats of accepted tasks."""

    DUPLICATE_GOLD = "duplicate_gold", "the same gold call sequence as an accepted task"
    NEAR_DUPLICATE_INSTRUCTION = (
        "near_duplicate_instruction",
        "an instruction too similar to an accepted task's (MinHash over word 3-shingles, "
        "0.8 by default)",
    )


class JudgeReason(Reason):
    """Stage `judge`: a model reads the instruction and the gold and confirms a careful agent
    would do exactly this (it runs after the verifier accepts a task, in the scheduler)."""

    JUDGE_UNASKED_CALL = (
        "judge_unasked_call",
        "the judge says a gold call is neither asked for nor needed for what was asked",
    )
    JUDGE_UNASKED_VALUE = (
        "judge_unasked_value",
        "the judge says a value told to the user was not asked for",
    )
    JUDGE_MISSING_REQUEST = (
        "judge_missing_request",
        "the judge says the user asks for something the gold neither does nor tells",
    )
    JUDGE_REJECTED = (
        "judge_rejected",
        "the judge says a careful agent would not do exactly this, for no reason above",
    )
    JUDGE_UNAVAILABLE = (
        "judge_unavailable",
        "the judge gave no usable verdict (the endpoint failed, or its answer stayed invalid "
        "after repairs): the task is rejected, never kept unjudged",
    )


class SolverReason(Reason):
    """Stage `solver` (optional, `--solver-k K`): after the judge, an agent model must solve
    the task in its sandbox within k episodes (trainer/solver.py, run by the scheduler)."""

    UNSOLVED = "unsolved", "no episode of the solver model solved the task within k tries"
    SOLVER_UNAVAILABLE = (
        "solver_unavailable",
        "the solver's endpoint failed: the task is rejected, never kept unchecked",
    )


# The verification stages in the order they run (environment first), with their reasons.
STAGE_REASONS: dict[str, type[Reason]] = {
    "static_sql": StaticSQLReason,
    "seed": SeedReason,
    "structure": StructureReason,
    "replay": ReplayReason,
    "determinism": DeterminismReason,
    "triviality": TrivialityReason,
    "necessity": NecessityReason,
    "outcome": OutcomeReason,
    "provenance": ProvenanceReason,
    "flow": FlowReason,
    "intent": IntentReason,
    "facts": FactsReason,
    "preference": PreferenceReason,
    "dedup": DedupReason,
    "judge": JudgeReason,  # after the verifier, on the scheduler's loop: it needs the LLM
    "solver": SolverReason,  # after the judge, when asked for: an agent model in the sandbox
}


# -- tool calls --------------------------------------------------------------------------


class ToolErrorCode(Reason):
    """`ToolResult.code` of a failed tool call: what an agent (and a replay) sees."""

    POLICY = "policy", "a require step was falsy: the policy refuses the call"
    CONSTRAINT = "constraint", "the database refused the change (key, NOT NULL, CHECK)"
    TIMEOUT = "timeout", "the call ran past its time budget and was stopped"
    TOO_LARGE = "too_large", "the result is over the row or byte cap, or out of memory"
    FORBIDDEN = "forbidden", "the sandbox's lock refused the statement"
    SQL_ERROR = "sql_error", "any other error of the statement"
    INVALID_ARGUMENTS = "invalid_arguments", "the arguments do not fit the tool's JSON Schema"
    UNKNOWN_TOOL = "unknown_tool", "no tool of that name"


# -- the LLM client ----------------------------------------------------------------------


class LLMFailure(Reason):
    """Why a request or a structured answer failed for good: a `Rejection` reason and a
    ledger failure."""

    LLM_REFUSED = "llm_refused", "the endpoint refused the request (HTTP 4xx)"
    LLM_UNAVAILABLE = "llm_unavailable", "every attempt met a transient error"
    BAD_JSON = "bad_json", "the answer is empty or not JSON"
    TRUNCATED = "truncated", "the answer is not JSON because it hit the token limit"
    SCHEMA_VIOLATION = "schema_violation", "the JSON does not fit the requested model"
    CHECK_FAILED = "check_failed", "the caller's check refused the answer without a reason"


class LLMRetry(Reason):
    """Why a request was tried again (named in the detail of `llm_unavailable`)."""

    RATE_LIMITED = "rate_limited", "HTTP 429"
    TIMEOUT = "timeout", "the request timed out"
    CONNECTION_ERROR = "connection_error", "the connection failed or dropped"
    BAD_RESPONSE = "bad_response", "a 200 whose body is not a chat completion (a proxy's page)"
    SERVER_ERROR = "server_error", "HTTP 5xx"


# -- generators --------------------------------------------------------------------------


class GeneratorReason(Reason):
    """Why a generator refused a model's answer (fed back to it) or produced nothing."""

    BAD_SCHEMA = "bad_schema", "the proposed tables do not make a valid schema"
    DDL_REJECTED = "ddl_rejected", "SQLite or DuckDB refused the schema's DDL"
    SEED_REJECTED = "seed_rejected", "an engine refused the proposed rows"
    NO_ROWS = "no_rows", "a table got no rows"
    BAD_DATA_PLAN = (
        "bad_data_plan",
        "a data plan names an unknown column, or a kind or value its column cannot hold",
    )
    FELL_BACK_TO_DEFAULT_PLAN = (
        "fell_back_to_default_plan",
        "a table's data plan (or the whole plan) came from column names and types alone",
    )
    ROWS_DROPPED = (
        "rows_dropped",
        "a planned row the database kept refusing after new draws was left out",
    )
    BAD_PLAN = "bad_plan", "the tool plan has bad names or no write tool"
    NO_PLAN = "no_plan", "no tool plan came back"
    BAD_TOOL = "bad_tool", "the proposed tool is not a valid Tool"
    SQL_REJECTED = "sql_rejected", "a tool's SQL fails the static checks or DuckDB's binder"
    SMOKE_FAILED = "smoke_failed", "a tool never succeeded on the seed (or a write changed no row)"
    NO_TOOL = "no_tool", "a planned tool got no SQL"
    UNREACHED = (
        "unreached",
        "a write on one row that no seed row lets succeed, even given the values it asks for",
    )
    FORBIDDEN_BY_RULES = (
        "forbidden_by_rules",
        "a status change the rules forbid from every state it starts from, left out",
    )
    BAD_POLICY = "bad_policy", "a policy rule is empty or too long"
    FELL_BACK_TO_BRIEF_RULES = (
        "fell_back_to_brief_rules",
        "no policy came back, so the brief's own rules became the policy",
    )
    BAD_CHOICE = (
        "bad_choice",
        "the catalogue choice names an unknown candidate or rule, a bad tool name, or a "
        "condition that does not fit the candidate's columns",
    )
    FELL_BACK_TO_CATALOGUE = (
        "fell_back_to_catalogue",
        "no usable catalogue choice came back, so every fitting candidate was taken and the "
        "rules were mapped from their wording",
    )
    BUDGET_SPENT = (
        "budget_spent",
        "the free-SQL tool stage ran out of its time or attempt budget and stopped early",
    )
    GOLD_FAILED = "gold_failed", "a proposed gold call failed in a quick replay"
    FACTS_MISSING = "facts_missing", "the user's words do not state values the calls use"
    BAD_WORDS = "bad_words", "the instruction is JSON or code, not plain words"
    NO_CHAIN = "no_chain", "no walk of successful calls was found"
    RETIRED = (
        "retired",
        "a kept task of a strategy the user retired afterwards (`toolscale retire`)",
    )
    GENERATOR_ERROR = "generator_error", "the generator raised; counted, the run goes on"
    FAILED = "failed", "neither a value nor a rejection came back"


# -- errors the program cannot go on from --------------------------------------------------


class ErrorReason(Reason):
    """The default `reason` of each `ToolscaleError` class."""

    ERROR = "error", "an error with no more specific reason"
    BAD_BRIEF = "bad_brief", "a brief that is missing, not YAML, or not a valid Brief"
    BAD_STORED_FILE = "bad_stored_file", "a file under data/<domain>/ that cannot be read back"
    LOCAL_LLM_FAILED = "local_llm_failed", "a step of setting up the embedded LLM failed"
    SANDBOX_REFUSED = (
        "sandbox_refused",
        "an engine's own parser refused a statement the static checks passed",
    )
    GENERATION_FAILED = "generation_failed", "a generation stage produced nothing usable"
    PUBLISH_REFUSED = (
        "publish_refused",
        "a publish that cannot start: no token, a bad repo id, or a folder that is no export",
    )
    NOTHING_TO_EXPORT = (
        "nothing_to_export",
        "no data folder, or no domain in it with a verified task to export",
    )
    ENVIRONMENT_REJECTED = "environment_rejected", "the environment fails its own checks"
