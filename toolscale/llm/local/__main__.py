"""`python -m toolscale.llm.local [SIZE]`: build llama-server and fetch the model ahead of a run.

It needs the standard library alone, so `make generate` starts it in the background while
pip installs the project: on a fresh machine the ~6 min build then overlaps the install
instead of following it. A run that starts before it ends waits on its file locks.
"""

from __future__ import annotations

import sys

from toolscale.llm.local import prepare
from toolscale.llm.local.files import LocalLLMError, cache_dir
from toolscale.llm.local.model import MODELS


def main(argv: list[str]) -> int:
    size = argv[0] if argv else "1.5b"
    if len(argv) > 1 or size.startswith("-"):
        print(f"usage: python -m toolscale.llm.local [{'|'.join(MODELS)}]", file=sys.stderr)
        return 2
    try:
        binary, model = prepare(size, cache_dir())
    except LocalLLMError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"ready: {binary} and {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
