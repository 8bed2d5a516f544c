"""The keyword arguments of the Python API, one TypedDict per command: the command's options, by the
API's names. Written by docs/generate_api_flags.py from ``posemb_cli/commands/<name>/options.py``; do not edit.

Every key is optional: one left out takes the command's own default, as on the command line
(``posemb CMD --help`` shows it). Choices are strings (``dtype="bfloat16"``); a comma list may be
given as a list or as the command line's comma string. The CLI's own options (``--json``) are left out.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["CompareFlags", "DoctorFlags", "ExtendFlags", "HeadsFlags", "InspectFlags", "OrderFlags", "PaddingFlags",
          "PrecisionFlags"]


class InspectFlags(TypedDict, total=False):
    """``posemb inspect``'s options (``posemb inspect --help``)."""

    model: str | None  # A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.jso...
    scheme: str  # The scheme to inspect
    dim: int  # Model dimension D
    ctx: int  # Max context length L: rows of a positional table
    vocab: int  # Vocabulary size V: rows of the token table
    batch: int  # Batch size B of the random batch
    seq_len: int | None  # Sequence length T of the random batch; default: min(ctx, 128)
    seed: int  # Seed of every random draw
    device: str  # auto takes CUDA when present
    dtype: str  # Dtype of the tables
    base: float  # Base of the sinusoidal and RoPE frequencies
    init_std: float  # Std of the N(0, std^2) initial rows of token and learned tables
    max_offset: int  # Largest offset k of the neighbour similarity
    ids: str | None  # Token ids: a JSON list of lists or an .npy int array; '-' reads stdin
    head_dim: int | None  # RoPE head size, even, dividing --dim; default: --dim
    rope_layout: str  # RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama)
    rope_scaling: str  # RoPE context extension
    rope_factor: float  # Context extension factor, 1 or more; required with --rope-scaling
    original_ctx: int | None  # Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ct...
    beta_fast: float  # YaRN: rotations where the ramp starts
    beta_slow: float  # YaRN: rotations where the ramp ends
    low_freq_factor: float  # Llama 3: wavelengths above original-ctx / this are divided by the factor
    high_freq_factor: float  # Llama 3: wavelengths below original-ctx / this are kept
    attention_factor: float | None  # Multiplier of cos and sin; default: YaRN 0.1 ln(factor) + 1, else 1
    heads: int  # ALiBi heads, dividing --dim; one slope each
    checkpoint: str | None  # A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, or...
    key: str | None  # The tensor to read from --checkpoint, when its name is not a known one
    position_offset: int | None  # Leading rows of the --checkpoint table that no position uses; default: the model f...
    model_config: str | None  # A Hugging Face style config.json (or its directory) or a .gguf file: inspect that mod...
    no_plot: bool  # Leave out the terminal pictures (heatmap, decay curves)
    pictures: str  # screen: the pictures fit one terminal screen; full: the heatmap as wide as the terminal
    plot: str | None  # Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]')
    full: bool  # Measure every position at any context


class CompareFlags(TypedDict, total=False):
    """``posemb compare``'s options (``posemb compare --help``)."""

    models: str | list[str] | None  # Real models side by side, each as posemb inspect reads it (one column per RoPE...
    schemes: str | list[str]  # Comma list of schemes to compare
    scalings: str | list[str] | None  # Each MODEL under each RoPE scaling: none, or linear, ntk, dynamic, yarn, llam...
    dim: int  # Model dimension D
    ctx: int  # Max context length L: rows of a positional table
    vocab: int  # Vocabulary size V: rows of the token table
    batch: int  # Batch size B of the random batch
    seq_len: int | None  # Sequence length T of the random batch; default: min(ctx, 128)
    seed: int  # Seed of every random draw
    device: str  # auto takes CUDA when present
    dtype: str  # Dtype of the tables
    base: float  # Base of the sinusoidal and RoPE frequencies
    init_std: float  # Std of the N(0, std^2) initial rows of token and learned tables
    max_offset: int  # Largest offset k of the neighbour similarity
    ids: str | None  # Token ids: a JSON list of lists or an .npy int array; '-' reads stdin
    head_dim: int | None  # RoPE head size, even, dividing --dim; default: --dim
    rope_layout: str  # RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama)
    rope_scaling: str  # RoPE context extension
    rope_factor: float  # Context extension factor, 1 or more; required with --rope-scaling
    original_ctx: int | None  # Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ct...
    beta_fast: float  # YaRN: rotations where the ramp starts
    beta_slow: float  # YaRN: rotations where the ramp ends
    low_freq_factor: float  # Llama 3: wavelengths above original-ctx / this are divided by the factor
    high_freq_factor: float  # Llama 3: wavelengths below original-ctx / this are kept
    attention_factor: float | None  # Multiplier of cos and sin; default: YaRN 0.1 ln(factor) + 1, else 1
    heads: int  # ALiBi heads, dividing --dim; one slope each
    checkpoint: str | None  # A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, or...
    key: str | None  # The tensor to read from --checkpoint, when its name is not a known one
    position_offset: int | None  # Leading rows of the --checkpoint table that no position uses; default: the model f...
    plot: str | None  # Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]')
    full: bool  # Measure every position at any context


class OrderFlags(TypedDict, total=False):
    """``posemb order``'s options (``posemb order --help``)."""

    schemes: str | list[str]  # Comma list of schemes to compare; none is NoPE
    dim: int  # Model dimension D
    ctx: int  # Max context length L: rows of a positional table
    vocab: int  # Vocabulary size V: rows of the token table
    batch: int  # Batch size B of the random batch
    seq_len: int | None  # Sequence length T of the random batch; default: min(ctx, 128)
    seed: int  # Seed of every random draw
    device: str  # auto takes CUDA when present
    dtype: str  # Dtype of the tables
    base: float  # Base of the sinusoidal and RoPE frequencies
    init_std: float  # Std of the N(0, std^2) initial rows of token and learned tables
    max_offset: int  # Largest offset k of the neighbour similarity
    ids: str | None  # Token ids: a JSON list of lists or an .npy int array; '-' reads stdin
    head_dim: int | None  # RoPE head size, even, dividing --dim; default: --dim
    rope_layout: str  # RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama)
    rope_scaling: str  # RoPE context extension
    rope_factor: float  # Context extension factor, 1 or more; required with --rope-scaling
    original_ctx: int | None  # Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ct...
    beta_fast: float  # YaRN: rotations where the ramp starts
    beta_slow: float  # YaRN: rotations where the ramp ends
    low_freq_factor: float  # Llama 3: wavelengths above original-ctx / this are divided by the factor
    high_freq_factor: float  # Llama 3: wavelengths below original-ctx / this are kept
    attention_factor: float | None  # Multiplier of cos and sin; default: YaRN 0.1 ln(factor) + 1, else 1
    heads: int  # ALiBi heads, dividing --dim; one slope each


class PaddingFlags(TypedDict, total=False):
    """``posemb padding``'s options (``posemb padding --help``)."""

    model: str | None  # A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.jso...
    schemes: str | list[str]  # Comma list of schemes to compare; none is NoPE
    pad: int  # Masked pad tokens put in front of every sequence
    dim: int  # Model dimension D
    ctx: int  # Max context length L: rows of a positional table
    vocab: int  # Vocabulary size V: rows of the token table
    batch: int  # Batch size B of the random batch
    seq_len: int | None  # Sequence length T of the random batch; default: min(ctx, 128)
    seed: int  # Seed of every random draw
    device: str  # auto takes CUDA when present
    dtype: str  # Dtype of the tables
    base: float  # Base of the sinusoidal and RoPE frequencies
    init_std: float  # Std of the N(0, std^2) initial rows of token and learned tables
    ids: str | None  # Token ids: a JSON list of lists or an .npy int array; '-' reads stdin
    head_dim: int | None  # RoPE head size, even, dividing --dim; default: --dim
    rope_layout: str  # RoPE pairs: interleaved (2i, 2i+1; RoFormer) or half (i, i+d/2; GPT-NeoX, Llama)
    rope_scaling: str  # RoPE context extension
    rope_factor: float  # Context extension factor, 1 or more; required with --rope-scaling
    original_ctx: int | None  # Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ct...
    beta_fast: float  # YaRN: rotations where the ramp starts
    beta_slow: float  # YaRN: rotations where the ramp ends
    low_freq_factor: float  # Llama 3: wavelengths above original-ctx / this are divided by the factor
    high_freq_factor: float  # Llama 3: wavelengths below original-ctx / this are kept
    attention_factor: float | None  # Multiplier of cos and sin; default: YaRN 0.1 ln(factor) + 1, else 1
    heads: int  # ALiBi heads, dividing --dim; one slope each
    checkpoint: str | None  # A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, or...
    key: str | None  # The tensor to read from --checkpoint, when its name is not a known one
    position_offset: int | None  # Leading rows of the --checkpoint table that no position uses; default: the model f...
    model_config: str | None  # A Hugging Face style config.json (or its directory) or a .gguf file: inspect that mod...


class PrecisionFlags(TypedDict, total=False):
    """``posemb precision``'s options (``posemb precision --help``)."""

    model: str | None  # A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.jso...
    scheme: str  # rope or sinusoidal
    dtypes: str | list[str]  # Comma list of dtypes to measure
    ctx: int  # Positions measured: every p below ctx
    dim: int  # Model dimension D
    base: float  # Base of the sinusoidal and RoPE frequencies
    head_dim: int | None  # RoPE head size, even, dividing --dim; default: --dim
    rope_scaling: str  # RoPE context extension
    rope_factor: float  # Context extension factor, 1 or more; required with --rope-scaling
    original_ctx: int | None  # Training context before extension (dynamic, yarn, llama3), at most --ctx; default: ct...
    beta_fast: float  # YaRN: rotations where the ramp starts
    beta_slow: float  # YaRN: rotations where the ramp ends
    low_freq_factor: float  # Llama 3: wavelengths above original-ctx / this are divided by the factor
    high_freq_factor: float  # Llama 3: wavelengths below original-ctx / this are kept
    checkpoint: str | None  # A real model's position table: .safetensors, .bin/.pt state dict, .npy/.npz, .gguf, or...
    model_config: str | None  # A Hugging Face style config.json (or its directory) or a .gguf file: inspect that mod...


class DoctorFlags(TypedDict, total=False):
    """``posemb doctor``'s options (``posemb doctor --help``)."""

    model_config: str | None  # A Hugging Face style config.json (or its directory)
    checkpoint: str | None  # A model's weights (file or directory): its position table, checked against the config.j...


class HeadsFlags(TypedDict, total=False):
    """``posemb heads``'s options (``posemb heads --help``)."""

    distances: str | list[int] | None  # Distances of the kernel; default 0, 1, 2, 4, ... up to the model's context
    top: int  # Heads listed as having the most weight on high-frequency pairs, and on pairs beyond the critical pair
    no_plot: bool  # Leave out the terminal pictures (heatmap, decay curves)
    plot: str | None  # Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]')


class ExtendFlags(TypedDict, total=False):
    """``posemb extend``'s options (``posemb extend --help``)."""

    scalings: str | list[str] | None  # Candidates among none, linear, ntk, dynamic, yarn, llama3, longrope; default...
    factor: float | None  # The factor every candidate takes; default: the one that reaches L (dynamic: the one whose...
    fine_tune: bool  # You will fine-tune the model at L: recommend the best predicted candidate whatever training it...
    write_config: str | None  # Write a copy of the model's config.json with the recommended candidate applied (or th...
    text: str | list[str] | None  # Measure each candidate on the model: the loss at every position of the first L to...
    ids: str | None  # Measure on token ids instead of a text: one row of at least L ids, .npy or JSON ('-' reads stdin)
    save_ids: str | None  # Write the ids of every copy-probe forward the measurement ran (one row per candidate, the...
    runtime: str  # What runs the model: llama.cpp (a .gguf file as stored, with the llama.cpp flags printed for each...
    device: str  # Where the measured model runs; auto: CUDA when present (a model larger than one GPU spread over al...
    dtype: str  # The dtype the measured model runs in
    top: int  # Heads listed as most at risk under each candidate
    no_plot: bool  # Leave out the terminal pictures: the strips of pairs coloured by class and the measured loss curves
    plot: str | None  # Also write a figure to FILE.png or FILE.svg (needs: pip install 'posemb[plot]')
