"""Pure checks: each stage returns None (accept) or a Rejection with stage, reason and detail."""
