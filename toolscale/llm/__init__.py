"""LLM access: `config` (where the model is), `ledger` (what each stage spent), `cache` (raw
answers by content hash), `client` (the async client with its repair loop), and `local/`
(the embedded llama.cpp server used when no endpoint is configured)."""
