"""The core of compare and inspect: build composers, push one batch through, measure.

flags -> config -> composer on a device -> batch -> forward -> metrics -> report.
"""

from __future__ import annotations

from collections.abc import Callable

from posemb_cli.core.progress import Prefixed, Progress, or_silent
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.run.preparation import prepare
from posemb_cli.run.report import CompareReport, InspectReport, ParamCounts, SchemeReport, SignalFigures


def _measure(name: str, config, token, ids, *, device, dtype, progress, given_table=None, observe=None,
             builder=None) -> SchemeReport:
    import torch

    from posemb_cli.core.allocator import bounded_heap
    from posemb_cli.core.embeddings import EmbeddingComposer
    from posemb_cli.core.schemes import build_scheme
    from posemb_cli.core.schemes.base import AdditiveTable
    from posemb_cli.core.schemes.protocols import AttentionScheme
    from posemb_cli.measures.sampling import coverage_of
    from posemb_cli.measures.scorecard import PAIR_BUDGET
    from posemb_cli.measures.signal_pass import measure_signal

    build = builder or build_scheme
    progress.stage("build and forward")
    if given_table is None:
        position = build(name, config, device=device, dtype=dtype)
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
        # One pass over the signal, block by block (the table rows of an additive scheme, what position p
        # carries for rope and alibi): norms, neighbours, the scorecard's sums and the determinism rebuild.
        wanted = {} if observe is None else observe(name, position)  # heatmaps: name -> cells per side
        # A long computed signal is measured over an even sample of blocks (every position under --full).
        stored = isinstance(position, AdditiveTable) and position.stored
        coverage = coverage_of(int(position.max_ctx), computed=not stored, full=config.full, full_by="--full")
        progress.stage("neighbour similarity" + (" and pictures" if wanted else ""), coverage.measured)
        with bounded_heap():  # the heap keeps and reuses the pass's blocks: the peak stays a few blocks
            second = _second_read(name, config, device=device, dtype=dtype, built=given_table is None,
                                  builder=builder)
            measured = measure_signal(position, max_offset=config.max_offset, pair_budget=PAIR_BUDGET,
                                      coverage=coverage, progress=progress.advance, heatmaps=wanted, **second)
        if isinstance(position, AttentionScheme):  # nothing is added to the input: its table is zero
            stats = {"rows": int(position.max_ctx), "dim": int(position.dim), "norm_min": 0.0, "norm_mean": 0.0,
                     "norm_max": 0.0}
        else:  # the signal is the table
            stats = measured.norms
    from posemb_cli.run.diagnostics import figure_methods

    figures = _signal_figures(position, config, measured=measured, progress=progress)
    return SchemeReport(
        scheme=name,
        pictures=measured.heatmaps,
        shapes=shapes,
        params=ParamCounts(
            token=sum(p.numel() for p in token.parameters()),
            position=sum(p.numel() for p in position.parameters()),
        ),
        # a figure the signal gives no meaning to (ALiBi's: every cosine is 1) is left out, not printed
        neighbour_similarity=None if "neighbour_similarity" in (figures.left_out or {}) else measured.neighbours,
        table=stats,
        coverage=measured.coverage.to_dict(),
        bands=position.bands(),
        signal=figures,
        methods=figure_methods(position, measured, figures),
    )


def _second_read(name: str, config, *, device, dtype, built: bool, builder) -> dict:
    """The rows the determinism check compares with: the scheme built again from the same settings.

    The registry's schemes are rebuilt row block by row block (``rebuild_rows``): a learned table's draw
    is repeated in blocks, never a second whole table. Without a rebuild (a checkpoint's table), the
    table is read twice.
    """
    from posemb_cli.core.schemes import rebuild_rows

    how = "two builds from the same settings"
    if not built:
        return {"how": "two reads of the same table (no rebuild available)"}
    if builder is None:
        return {"second": rebuild_rows(name, config, device=device, dtype=dtype), "how": how}
    from posemb_cli.measures.scorecard import rebuilt_rows

    return rebuilt_rows(lambda: builder(name, config, device=device, dtype=dtype))


def _signal_figures(position, config, *, measured, progress) -> SignalFigures:
    """The figures beyond the lesson's (relative check, decay bound, slopes, scorecard), from the one pass."""
    from posemb_cli.run.diagnostics import signal_figures

    return signal_figures(position, config, measured=measured, progress=progress)


def run_schemes(
    config: EmbeddingConfig,
    schemes: tuple[str, ...],
    *,
    progress: Progress | None = None,
    tables: dict | None = None,
    observe: Callable | None = None,
    builders: dict | None = None,
    origins: dict[str, str] | None = None,
) -> tuple[EmbeddingConfig, list[SchemeReport]]:
    """Build one token embedding, then each scheme's composer on the same batch; measure each.

    ``tables`` maps a name to a ready (L, D) table (a real model's) used instead of building
    that scheme; ``builders`` maps a name to ``build(name, config, device=, dtype=)`` used instead of
    the registry's (a real model's RoPE, with knobs no flag sets); ``observe(name, position)``
    names the heatmaps wanted (name -> cells per side), accumulated in the signal pass and kept on the
    report, out of JSON; ``origins`` maps a size setting (``dim``, ``ctx``,
    ``vocab``) to where a file set it, for the memory refusal to name;
    ``progress`` hears every stage, by scheme.

    Returns:
        The effective config (device resolved, B and T from --ids) and one report per scheme.
    """
    progress = or_silent(progress)
    progress.stage("prepare the batch")
    run = prepare(config, schemes, origins=origins)
    config, device, dtype, token, ids = run.config, run.device, run.dtype, run.token, run.ids
    reports = []
    for name in schemes:
        reports.append(_measure(name, config, token, ids, device=device, dtype=dtype,
                                progress=Prefixed(progress, name),
                                given_table=(tables or {}).get(name), observe=observe,
                                builder=(builders or {}).get(name)))
    return config, reports


def inspect(config: EmbeddingConfig, scheme: str, **kwargs) -> InspectReport:
    """One scheme in depth."""
    config, (report,) = run_schemes(config, (scheme,), **kwargs)
    return InspectReport(config={"scheme": scheme, **config.to_dict()}, result=report)


def compare(config: EmbeddingConfig, schemes: tuple[str, ...], **kwargs) -> CompareReport:
    """Several schemes side by side, sharing one token embedding and one batch."""
    config, reports = run_schemes(config, schemes, **kwargs)
    return CompareReport(config={"schemes": list(schemes), **config.to_dict()}, results=reports)
