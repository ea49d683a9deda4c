"""Pure checks, one module per stage: each `check` returns None (accept) or a Rejection with
stage, reason and detail; each module's `run(ctx)` is that check as a pipeline stage
(`validators.stage`), run in the order `validators.pipeline` declares."""
