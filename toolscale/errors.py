"""One vocabulary for errors: every exception toolscale raises derives from `ToolscaleError`
and carries a stable `reason` code and a `detail` that names where the problem is; pydantic's
errors are put into words by one helper."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolscale.reasons import ErrorReason

if TYPE_CHECKING:  # the sandbox worker imports this module: it stays free of pydantic
    from pydantic import ValidationError


class ToolscaleError(Exception):
    """Root of the errors the program cannot go on from (a pipeline that must go on returns a
    `Rejection` instead). `reason` is a stable code; `detail` is for a person."""

    reason: str = ErrorReason.ERROR

    def __init__(self, detail: str, reason: str | None = None):
        super().__init__(detail)
        self.detail = detail
        if reason is not None:
            self.reason = reason


def pydantic_problems(
    error: ValidationError, limit: int | None = None, top: str = "(top level)"
) -> list[str]:
    """`where: what` per problem (where = the dotted field path, `top` for the document
    itself), at most `limit` of them plus a line saying how many were left out."""
    errors = error.errors()
    shown = errors if limit is None else errors[:limit]
    out = [f"{'.'.join(str(p) for p in e['loc']) or top}: {e['msg']}" for e in shown]
    if len(errors) > len(shown):
        out.append(f"… and {len(errors) - len(shown)} more problems")
    return out
