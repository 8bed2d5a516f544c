"""The core of compare and inspect: build composers, push one batch through, measure.

flags -> config -> composer on a device -> batch -> forward -> metrics -> report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.memory import estimate_bytes, require_fits
from posemb_cli.run.memory_blame import size_blame
from posemb_cli.run.report import (
    CompareReport,
    InspectReport,
    ParamCounts,
    SchemeReport,
)
from posemb_cli.sources.ids import random_ids, read_ids


def _read_batch(config: EmbeddingConfig):
    """The --ids batch and the config with its B and T; a config without --ids is returned as is, with None."""
    import torch

    if config.ids is None:
        return config, None
    ids = read_ids(config.ids, config.vocab)
    batch, seq_len = ids.shape
    if seq_len > config.ctx:
        raise PosembError(f"--ids {config.ids}: sequence length {seq_len} exceeds --ctx {config.ctx}")
    return dataclasses.replace(config, batch=batch, seq_len=seq_len), torch.from_numpy(ids)


def _measure(name: str, config, token, ids, *, device, dtype, progress, given_table=None, observe=None) -> SchemeReport:
    import torch

    from posemb_cli.core.embeddings import EmbeddingComposer
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.measures.neighbours import (
        neighbour_similarity,
        norm_stats,
        row_norms,
    )

    if given_table is None:
        position = build_scheme(name, config, device=device, dtype=dtype)
    else:  # a real model's table, read from a checkpoint
        from posemb_cli.core.schemes.table import TablePositionalEmbedding

        position = TablePositionalEmbedding(given_table, device=device, dtype=dtype)
    composer = EmbeddingComposer(token, position)
    with torch.no_grad():
        output = composer(ids)  # (B, T, D)
        shapes = {
            "ids": list(ids.shape),
            "token": list(token(ids).shape),
            "position": list(position(ids.shape[1]).shape),
            "output": list(output.shape),
        }
        del output
        table = position.table()  # (L, D)
        norms = row_norms(table)
        # Schemes acting inside attention (rope, alibi) measure what position p carries, not their zero table.
        signal = position.fingerprint() if hasattr(position, "fingerprint") else table
        similarity = neighbour_similarity(signal, config.max_offset, norms=norms if signal is table else None,
                                          progress=progress)
        del signal
        stats = norm_stats(table, norms)
    figures = {} if observe is None else observe(name, position)
    return SchemeReport(
        scheme=name,
        figures=figures,
        shapes=shapes,
        params=ParamCounts(
            token=sum(p.numel() for p in token.parameters()),
            position=sum(p.numel() for p in position.parameters()),
        ),
        neighbour_similarity=similarity,
        table=stats,
        bands=position.bands(),
        extra=_extras(name, position, config, device=device, dtype=dtype, built=given_table is None),
    )


def _extras(name: str, position, config, *, device, dtype, built: bool) -> dict:
    """The figures beyond the lesson's (relative check, decay bound, slopes, scorecard)."""
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.run.diagnostics import position_extras

    def rebuild():
        return build_scheme(name, config, device=device, dtype=dtype)

    return position_extras(position, config, rebuild=rebuild if built else None)


def run_schemes(
    config: EmbeddingConfig,
    schemes: tuple[str, ...],
    *,
    progress: Callable[[str, int, int], None] | None = None,
    tables: dict | None = None,
    observe: Callable | None = None,
    origins: dict[str, str] | None = None,
) -> tuple[EmbeddingConfig, list[SchemeReport]]:
    """Build one token embedding, then each scheme's composer on the same batch; measure each.

    ``tables`` maps a name to a ready (L, D) table (a real model's) used instead of building
    that scheme; ``observe(name, position)`` returns pictures kept on the report, out of JSON;
    ``origins`` maps a size setting (``dim``, ``ctx``, ``vocab``) to where a file set it, for the
    memory refusal to name.

    Returns:
        The effective config (device resolved, B and T from --ids) and one report per scheme.
    """
    import torch

    from posemb_cli.core.dtypes import resolve_dtype
    from posemb_cli.core.embeddings import TokenEmbedding
    from posemb_cli.run.device import resolve_device
    from posemb_cli.run.position_config import settle_position_settings

    config = settle_position_settings(config, schemes=schemes)  # RoPE/ALiBi defaults filled, however called
    config, ids = _read_batch(config)
    device = resolve_device(config.device)
    config = dataclasses.replace(config, device=str(device))
    require_fits(estimate_bytes(config, schemes), device, flags=size_blame(config, schemes, origins))
    if ids is None:  # drawn only once the estimate says it fits
        ids = random_ids(config.batch, config.seq_len, config.vocab, seed=config.seed + 2)
    dtype = resolve_dtype(config.dtype)
    token = TokenEmbedding(
        config.vocab, config.dim, config.init_std,
        generator=torch.Generator().manual_seed(config.seed), device=device, dtype=dtype)
    ids = ids.to(device)
    reports = []
    for name in schemes:
        advance = None
        if progress is not None:
            advance = _scheme_progress(progress, name, config.ctx)
        reports.append(_measure(name, config, token, ids, device=device, dtype=dtype, progress=advance,
                                given_table=(tables or {}).get(name), observe=observe))
    return config, reports


def _scheme_progress(progress, name: str, rows: int) -> Callable[[int], None]:
    def advance(done_rows: int) -> None:
        progress(name, done_rows, rows)

    return advance


def inspect(config: EmbeddingConfig, scheme: str, **kwargs) -> InspectReport:
    """One scheme in depth."""
    config, (report,) = run_schemes(config, (scheme,), **kwargs)
    return InspectReport(config={"scheme": scheme, **config.to_dict()}, result=report)


def compare(config: EmbeddingConfig, schemes: tuple[str, ...], **kwargs) -> CompareReport:
    """Several schemes side by side, sharing one token embedding and one batch."""
    config, reports = run_schemes(config, schemes, **kwargs)
    return CompareReport(config={"schemes": list(schemes), **config.to_dict()}, results=reports)
