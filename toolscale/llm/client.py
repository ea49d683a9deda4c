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
from typing import Any, TypeVar

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError

from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.llm.cache import Completion, ResponseCache
from toolscale.llm.config import LLMConfig
from toolscale.llm.ledger import Ledger
from toolscale.reasons import LLMFailure, LLMRetry
from toolscale.report import Rejection, Result

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")
FEEDBACK_PROBLEMS = 12  # problems listed to the model per refused answer


class Invalid(ToolscaleError):
    """Raised by a semantic check: the `problems` go back to the model as feedback, and
    `reason` is recorded if the last answer is refused too."""

    def __init__(self, problems: Sequence[str], reason: str = LLMFailure.CHECK_FAILED):
        self.problems = [p for p in problems if p] or ["the answer was not accepted"]
        super().__init__("; ".join(self.problems), reason)


class NotJSON(ToolscaleError):
    """An answer that is empty or not JSON (a parse error, unlike a schema violation)."""

    reason = LLMFailure.BAD_JSON


@dataclass
class Outcome(Result[R]):
    """A structured answer: the checked value, or the rejection saying why there is none,
    with how many attempts it took and the raw answers."""

    attempts: int = 0
    raw: list[str] = field(default_factory=list)


class _BadResponse(ToolscaleError):
    """A 200 whose body is not a chat completion (a proxy's error page): retried as transient."""

    reason = LLMRetry.BAD_RESPONSE


_TRANSIENT = (
    openai.RateLimitError,
    openai.InternalServerError,
    openai.APITimeoutError,
    openai.APIConnectionError,
    _BadResponse,
)
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def _transient_reason(exc: Exception) -> LLMRetry:
    if isinstance(exc, openai.RateLimitError):
        return LLMRetry.RATE_LIMITED
    if isinstance(exc, openai.APITimeoutError):
        return LLMRetry.TIMEOUT
    if isinstance(exc, openai.APIConnectionError):
        return LLMRetry.CONNECTION_ERROR
    if isinstance(exc, _BadResponse):
        return LLMRetry.BAD_RESPONSE
    return LLMRetry.SERVER_ERROR


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
    """JSON from an answer; tolerates a ```json fence around it. Raises NotJSON."""
    if content is None or not content.strip():
        raise NotJSON("the answer is empty")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise NotJSON(f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from e


SET_ASIDE_S = 15.0  # a server that failed waits this long (doubling, up to 8x) for more


@dataclass
class Server:
    """One endpoint of the model: its client, its slots, what it has outstanding, and until
    when it is set aside after a failure."""

    url: str
    client: openai.AsyncOpenAI
    slots: int
    outstanding: int = 0  # requests sent to it and not answered, queued for a slot too
    aside_until: float = 0.0
    failures_in_a_row: int = 0
    _semaphore: asyncio.Semaphore | None = None

    def semaphore(self) -> asyncio.Semaphore:
        if self._semaphore is None:  # made inside the running loop
            self._semaphore = asyncio.Semaphore(self.slots)
        return self._semaphore

    def load(self) -> float:
        return self.outstanding / self.slots

    def failed(self, now: float) -> None:
        self.failures_in_a_row += 1
        self.aside_until = now + SET_ASIDE_S * min(2 ** (self.failures_in_a_row - 1), 8)

    def answered(self) -> None:
        self.failures_in_a_row = 0
        self.aside_until = 0.0


class LLMClient:
    """Async client with a content-addressed cache, bounded concurrency and a repair loop;
    over several servers of one model, each request goes to the one with the least
    outstanding work for its slots, and a server that fails is set aside for a while."""

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
        self.servers = [
            Server(
                url,
                client
                or openai.AsyncOpenAI(
                    base_url=url,
                    api_key=config.api_key,
                    timeout=config.timeout_s,
                    max_retries=0,  # retries are ours: we count them and back off on our terms
                ),
                slots,
            )
            for url, slots in config.servers()
        ]
        self._sleep = sleep
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def slots(self) -> int:
        """Requests that can run at once, over every server."""
        return sum(s.slots for s in self.servers)

    def _pick(self) -> Server:
        """The server with the least outstanding work for its slots among those not set
        aside; when all are, the one whose time out ends first."""
        now = time.monotonic()
        ready = [s for s in self.servers if s.aside_until <= now]
        if not ready:
            return min(self.servers, key=lambda s: s.aside_until)
        return min(ready, key=Server.load)

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
                self.ledger.fail(stage, LLMFailure.LLM_REFUSED)
                return Rejection(
                    stage=stage,
                    reason=LLMFailure.LLM_REFUSED,
                    detail=f"HTTP {exc.status_code}: {exc}",
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
        self.ledger.fail(stage, LLMFailure.LLM_UNAVAILABLE)
        return Rejection(
            stage=stage,
            reason=LLMFailure.LLM_UNAVAILABLE,
            detail=f"gave up after {self.config.max_attempts} attempts; last error {last}",
        )

    async def _send(self, body: dict[str, Any]) -> Completion:
        server = self._pick()
        server.outstanding += 1
        spent = self.ledger.endpoint(server.url) if len(self.servers) > 1 else None
        try:
            async with server.semaphore():
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                started = time.perf_counter()
                try:
                    response = await server.client.chat.completions.create(
                        model=body["model"],
                        messages=body["messages"],
                        # passed through as JSON: the client's per-field typing walk over a
                        # big schema costs more CPU than the whole rest of a call
                        extra_body={
                            k: v for k, v in body.items() if k not in ("model", "messages")
                        },
                    )
                except json.JSONDecodeError as exc:  # a JSON content type on a body that is not
                    raise _BadResponse(f"the body is not JSON: {exc}") from exc
                finally:
                    self.in_flight -= 1
            if not isinstance(response, ChatCompletion):  # other bodies come back as text
                raise _BadResponse(f"the body is not a chat completion: {str(response)[:200]!r}")
        except _TRANSIENT as exc:
            server.failed(time.monotonic())
            if spent is not None:
                reason = str(_transient_reason(exc))
                spent.failures[reason] = spent.failures.get(reason, 0) + 1
            raise
        finally:
            server.outstanding -= 1
        server.answered()
        seconds = time.perf_counter() - started
        usage = response.usage
        extra = response.model_extra or {}
        choice = response.choices[0] if response.choices else None
        if spent is not None:
            spent.calls += 1
            spent.prompt_tokens += usage.prompt_tokens if usage else 0
            spent.completion_tokens += usage.completion_tokens if usage else 0
            spent.seconds += seconds
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

        `check` turns the parsed answer into what the caller keeps, or raises `Invalid`
        (a pydantic ValidationError of a model it builds from the answer counts as a schema
        violation); anything else it raises is the caller's own failure and propagates.
        `last_check`, when given, replaces it on the last attempt (to salvage what it can).
        """
        conversation = [dict(m) for m in messages]
        response_format = json_schema_format(model_cls)
        outcome: Outcome[R] = Outcome()
        reason: str = ""
        problems = [""]
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
            except NotJSON as e:
                cut = answer.finish_reason == "length"
                reason = LLMFailure.TRUNCATED if cut else e.reason
                problems = [e.detail]
            except ValidationError as e:
                reason = LLMFailure.SCHEMA_VIOLATION
                problems = pydantic_problems(e, FEEDBACK_PROBLEMS)
            except Invalid as e:
                reason, problems = e.reason, e.problems
            else:
                outcome.value = result  # type: ignore[assignment]  # with no check, R is T
                return outcome
            if reason == LLMFailure.TRUNCATED:
                # sending a cut answer back only makes the context longer (restaurant's tool
                # choice: 5,990 prompt tokens + 2,048 cut ones filled the 8,192 of a slot):
                # ask afresh, for less
                conversation = [
                    *(dict(m) for m in messages),
                    {"role": "user", "content": SHORTER.format(n=attempt + 1)},
                ]
                continue
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
        for server in self.servers:
            await server.client.close()


SHORTER = (  # the count keeps a second ask from being the first one's cached answer
    "Your previous answer was cut off at the length limit before the JSON was complete "
    "({n} cut so far). Answer again, shorter: fewer items, brief descriptions, nothing "
    "repeated."
)


def repair_message(problems: Sequence[str]) -> str:
    listed = "\n".join(f"- {p}" for p in problems)
    return (
        "Your answer was not accepted. Problems found:\n"
        f"{listed}\n"
        "Reply again with the complete corrected JSON only, following the same schema."
    )
