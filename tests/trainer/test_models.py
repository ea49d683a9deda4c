"""Starting policies: the tiny one in-process, and the embedded GGUF as a trainable model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from trainer.models import SPECIAL, load_policy, tiny_tokenizer


def test_the_tiny_tokenizer_keeps_qwens_tags_whole_and_encodes_any_text() -> None:
    tokenizer = tiny_tokenizer(["transfer 20 from my checking account", "balance"])
    for tag in SPECIAL:
        assert len(tokenizer.encode(tag, add_special_tokens=False)) == 1, tag
    text = "Überweisung ✓ 42€"
    assert tokenizer.decode(tokenizer.encode(text, add_special_tokens=False)) == text
    rendered = tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}],
        tools=[{"type": "function", "function": {"name": "get_x", "parameters": {}}}],
        add_generation_prompt=True,
        tokenize=False,
    )
    assert "<tool_call>" in rendered and rendered.endswith("<|im_start|>assistant\n")


def test_a_model_that_is_not_there_is_named() -> None:
    with pytest.raises(ValueError, match="downloads nothing"):
        load_policy("Qwen/Qwen2.5-0.5B", [])


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("TOOLSCALE_E2E") != "1",
    reason="set TOOLSCALE_E2E=1 (make test-slow) to fetch and load the embedded 0.5B GGUF",
)
def test_the_embedded_gguf_loads_as_a_float_model_that_gradients_flow_through(
    tmp_path: Path,
) -> None:
    model, tokenizer = load_policy("gguf:0.5b", [])
    params = list(model.parameters())
    assert {str(p.dtype) for p in params} == {"torch.float32"}
    ids = tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is 2+2?"}],
        add_generation_prompt=True,
        tokenize=True,
        return_dict=True,
        return_tensors="pt",
    )
    last = model.model.layers[-1]  # gradients through one layer keep CI's memory small
    for p in params:
        p.requires_grad_(False)
    for p in last.parameters():
        p.requires_grad_(True)
    model(**ids, labels=ids["input_ids"]).loss.backward()
    assert all(p.grad is not None and p.grad.abs().sum() > 0 for p in last.parameters())
    answer = model.generate(**ids, max_new_tokens=12, do_sample=False)
    assert "4" in tokenizer.decode(answer[0, ids["input_ids"].shape[1] :])
    # the trainer saves it as the starting policy: transformers refused while its GGUF
    # quantizer stayed attached ("quantized with gguf and is not serializable")
    model.save_pretrained(tmp_path / "policy-start")
    assert (tmp_path / "policy-start" / "model.safetensors").is_file()
