"""The keyword arguments of the Python API, one TypedDict per command: the command's flags, named as the flags.

Every key is optional: one left out takes the command's own default, as on the command
line (``posemb CMD --help`` shows it). Choices are strings (``dtype="bfloat16"``); a list
of schemes may be given as a list or as the command line's comma string. The keys are the
options that ``posemb_cli/commands/<name>/options.py`` declares (the CLI's own, such as
``--json``, left out), and each key's type admits its option's.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["CompareFlags", "DoctorFlags", "ExtendFlags", "HeadsFlags", "InspectFlags", "OrderFlags", "PaddingFlags",
           "PrecisionFlags"]


class _Lesson(TypedDict, total=False):
    dim: int
    ctx: int
    vocab: int
    batch: int
    seq_len: int | None
    seed: int
    device: str
    dtype: str
    base: float
    init_std: float
    ids: str | None


class _Scaling(TypedDict, total=False):
    head_dim: int | None
    rope_scaling: str
    rope_factor: float
    original_ctx: int | None
    beta_fast: float
    beta_slow: float
    low_freq_factor: float
    high_freq_factor: float


class _Position(_Scaling, total=False):
    rope_layout: str
    attention_factor: float | None
    heads: int


class _Checkpoint(TypedDict, total=False):
    checkpoint: str | None
    key: str | None
    position_offset: int | None


class InspectFlags(_Lesson, _Position, _Checkpoint, total=False):
    model: str | None
    scheme: str
    max_offset: int
    model_config: str | None
    full: bool
    no_plot: bool
    pictures: str
    plot: str | None


class CompareFlags(_Lesson, _Position, _Checkpoint, total=False):
    models: list[str]
    scalings: str | list[str] | None
    schemes: str | list[str]
    max_offset: int
    full: bool
    plot: str | None


class OrderFlags(_Lesson, _Position, total=False):
    schemes: str | list[str]
    max_offset: int


class PaddingFlags(_Lesson, _Position, _Checkpoint, total=False):
    model: str | None
    schemes: str | list[str]
    pad: int
    model_config: str | None


class PrecisionFlags(_Scaling, total=False):
    model: str | None
    scheme: str
    dtypes: str | list[str]
    ctx: int
    dim: int
    base: float
    checkpoint: str | None
    model_config: str | None


class DoctorFlags(TypedDict, total=False):
    model_config: str | None
    checkpoint: str | None


class HeadsFlags(TypedDict, total=False):
    distances: str | list[int] | None
    top: int
    no_plot: bool
    plot: str | None


class ExtendFlags(TypedDict, total=False):
    fine_tune: bool
    runtime: str
    scalings: str | list[str] | None
    factor: float | None
    text: str | list[str] | None
    ids: str | None
    save_ids: str | None
    write_config: str | None
    device: str
    dtype: str
    top: int
    no_plot: bool
    plot: str | None
