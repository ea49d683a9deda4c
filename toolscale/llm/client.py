"""One LLM client for every OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp's server).

Raw responses are cached on disk by content (model, messages, schema, sampling settings)
apart from parsing: a re-run replays them without new calls, and a changed parser never
throws a paid response away. Calls run with bounded concurrency and back off on 429, 5xx,
timeouts and dropped connections. Structured answers are parsed into pydantic models, and
validation errors go back to the model a bounded number of times. Every call is counted
per stage: calls, cached hits, retries, tokens, cost and failures by reason.
"""

from __future__ import annotations

import asyncio
import functools
import json
import random
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from toolscale.llm.cache import Completion, ResponseCache
from toolscale.llm.config import LLMConfig
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


class Invalid(Exception):
    """Raised by a semantic check: the messages go back to the model as feedback."""

    def __init__(self, problems: Sequence[str], reason: str = "check_failed"):
        self.problems = [p for p in problems if p] or ["the answer was not accepted"]
        self.reason = reason
        super().__init__("; ".join(self.problems))


@dataclass
class Outcome(Generic[R]):
    """A structured answer: the checked value, or why there is none (an error as a value)."""

    value: R | None = None
    rejection: Rejection | None = None
    attempts: int = 0
    raw: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.rejection is None


class _BadResponse(Exception):
    """A 200 whose body is not a chat completion (a proxy's error page): retried as transient."""


_TRANSIENT = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
    _BadResponse,
)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def _transient_reason(exc: Exception) -> str:
    if isinstance(exc, openai.RateLimitError):
        return "rate_limited"
    if isinstance(exc, openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIConnectionError):
        return "connection_error"
    if isinstance(exc, _BadResponse):
        return "bad_response"
    return "server_error"


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    if response is None:
        return None
    value = response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


@functools.lru_cache(maxsize=64)  # generated models are new classes: bounded
def json_schema_format(model_cls: type[BaseModel]) -> dict[str, Any]:
    """The `response_format` that asks the server for this model's JSON."""
    return {
        "type": "json_schema",
        "json_schema": {"name": model_cls.__name__, "schema": model_cls.model_json_schema()},
    }


def parse_json(content: str | None) -> Any:
    """JSON from an answer; tolerates a ```json fence around it. Raises ValueError."""
    if content is None or not content.strip():
        raise ValueError("the answer is empty")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from e


def validation_problems(error: ValidationError, limit: int = 12) -> list[str]:
    out = []
    for err in error.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        out.append(f"{where}: {err['msg']}")
    if error.error_count() > limit:
        out.append(f"… and {error.error_count() - limit} more problems")
    return out


class LLMClient:
    """Async client with a content-addressed cache, bounded concurrency and a repair loop."""

    def __init__(
        self,
        config: LLMConfig,
        cache: ResponseCache | None = None,
        ledger: Ledger | None = None,
        client: openai.AsyncOpenAI | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ):
        self.config = config
        self.cache = cache
        self.ledger = ledger if ledger is not None else Ledger()
        self._client = client or openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key,
            timeout=config.timeout_s,
            max_retries=0,  # retries are ours: we count them and we back off on our terms
        )
        self._slots: asyncio.Semaphore | None = None
        self._sleep = sleep
        self.in_flight = 0
        self.max_in_flight = 0

    def _semaphore(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.config.concurrency)
        return self._slots

    def request(
        self,
        messages: Sequence[Mapping[str, Any]],
        response_format: dict[str, Any] | None,
        sample: int,
        temperature: float | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        """The full request; its canonical JSON is the cache key."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": [dict(m) for m in messages],
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": max_tokens or self.config.max_tokens,
            "seed": sample,
        }
        if response_format is not None:
            body["response_format"] = response_format
        return body

    async def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        stage: str,
        response_format: dict[str, Any] | None = None,
        sample: int = 0,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion | Rejection:
        """One answer, from the cache or the endpoint; transient errors are retried with
        backoff, and what still fails comes back as a Rejection with its reason."""
        body = self.request(messages, response_format, sample, temperature, max_tokens)
        key = ResponseCache.key(body)
        usage = self.ledger.stage(stage)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                usage.cached += 1
                return hit
        delay = self.config.backoff_s
        last = ""
        for attempt in range(self.config.max_attempts):
            if attempt:
                usage.retries += 1
            try:
                completion = await self._send(body)
            except _TRANSIENT as exc:
                last = f"{_transient_reason(exc)}: {exc}"
                wait = _retry_after(exc)
                wait = min(wait if wait is not None else random.uniform(0, delay), 60.0)
                delay = min(delay * 2, self.config.max_backoff_s)
                if attempt + 1 < self.config.max_attempts:  # no wait before giving up
                    await self._sleep(wait)
                continue
            except openai.APIStatusError as exc:  # 4xx: the request itself is wrong
                self.ledger.fail(stage, "llm_refused")
                return Rejection(
                    stage=stage, reason="llm_refused", detail=f"HTTP {exc.status_code}: {exc}"
                )
            usage.calls += 1
            usage.prompt_tokens += completion.prompt_tokens
            usage.completion_tokens += completion.completion_tokens
            usage.cost_usd += (
                completion.prompt_tokens * self.config.price_in
                + completion.completion_tokens * self.config.price_out
            ) / 1e6
            usage.seconds += completion.seconds
            if self.cache is not None and completion.finish_reason != "error":
                self.cache.put(key, completion)
            return completion
        self.ledger.fail(stage, "llm_unavailable")
        return Rejection(
            stage=stage,
            reason="llm_unavailable",
            detail=f"gave up after {self.config.max_attempts} attempts; last error {last}",
        )

    async def _send(self, body: dict[str, Any]) -> Completion:
        async with self._semaphore():
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            started = time.perf_counter()
            try:
                response = await self._client.chat.completions.create(
                    model=body["model"],
                    messages=body["messages"],
                    # passed through as JSON: the client's per-field typing walk over a big
                    # schema costs more CPU than the whole rest of a call
                    extra_body={k: v for k, v in body.items() if k not in ("model", "messages")},
                )
            except json.JSONDecodeError as exc:  # a JSON content type on a body that is not
                raise _BadResponse(f"the body is not JSON: {exc}") from exc
            finally:
                self.in_flight -= 1
        if not isinstance(response, ChatCompletion):  # openai returns other bodies as text
            raise _BadResponse(f"the body is not a chat completion: {str(response)[:200]!r}")
        seconds = time.perf_counter() - started
        usage = response.usage
        extra = response.model_extra or {}
        choice = response.choices[0] if response.choices else None
        return Completion(
            content=choice.message.content if choice else None,
            finish_reason=choice.finish_reason if choice else "error",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            model=response.model or "",
            timings=extra.get("timings") if isinstance(extra.get("timings"), dict) else None,
            seconds=seconds,
        )

    async def structured(
        self,
        messages: Sequence[Mapping[str, Any]],
        model_cls: type[T],
        *,
        stage: str,
        check: Callable[[T], R] | None = None,
        last_check: Callable[[T], R] | None = None,
        repairs: int = 2,
        sample: int = 0,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Outcome[R]:
        """Ask for `model_cls` JSON; send parse, schema and `check` errors back `repairs` times.

        `check` turns the parsed answer into what the caller keeps, or raises `Invalid`;
        `last_check`, when given, replaces it on the last attempt (to salvage what it can).
        """
        conversation = [dict(m) for m in messages]
        response_format = json_schema_format(model_cls)
        outcome: Outcome[R] = Outcome()
        reason, problems = "", [""]
        for attempt in range(repairs + 1):
            if attempt:
                self.ledger.stage(stage).repairs += 1
            answer = await self.complete(
                conversation,
                stage=stage,
                response_format=response_format,
                sample=sample,
                temperature=temperature,
                max_tokens=max_tokens,
            )
            outcome.attempts = attempt + 1
            if isinstance(answer, Rejection):
                outcome.rejection = answer
                return outcome
            outcome.raw.append(answer.content or "")
            try:
                value = model_cls.model_validate(parse_json(answer.content))
                judge = last_check if attempt == repairs and last_check is not None else check
                result = judge(value) if judge is not None else value
            except ValidationError as e:
                reason, problems = "schema_violation", validation_problems(e)
            except Invalid as e:
                reason, problems = e.reason, e.problems
            except ValueError as e:
                reason = "truncated" if answer.finish_reason == "length" else "bad_json"
                problems = [str(e)]
            else:
                outcome.value = result  # type: ignore[assignment]
                return outcome
            conversation = [
                *conversation,
                {"role": "assistant", "content": answer.content or ""},
                {"role": "user", "content": repair_message(problems)},
            ]
        self.ledger.fail(stage, reason)
        outcome.rejection = Rejection(
            stage=stage,
            reason=reason,
            detail=f"after {outcome.attempts} attempt(s): " + "; ".join(problems),
            item=outcome.raw[-1][:4000] if outcome.raw else None,
        )
        return outcome

    async def close(self) -> None:
        await self._client.close()


def repair_message(problems: Sequence[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems)
    return (
        "Your answer was not accepted. Problems found:\n"
        f"{listed}\n"
        "Reply again with the complete corrected JSON only, following the same schema."
    )
