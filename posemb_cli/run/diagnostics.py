"""The figures beyond the lesson's for one built scheme: relative check, decay bound, ALiBi's penalty, scorecard.

The JSON keys these give are listed in docs/json-contract.md, and so is ``methods``: how each figure reads
the signal (``figure_methods``), so that a reader sees which figures are sampled and which follow from the
formula, whatever the context.
"""

from __future__ import annotations

import torch

from posemb_cli.core.allocator import release_free_memory
from posemb_cli.core.progress import Progress, or_silent
from posemb_cli.core.schemes.protocols import AttentionScheme, BiasScheme, PositionScheme, RotaryScheme
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.measures.context_bound_key import context_bound
from posemb_cli.measures.decay import full_turn_pairs, long_term_decay
from posemb_cli.measures.distance_penalty import distance_penalty
from posemb_cli.measures.relative import probe_vectors, relative_deviation
from posemb_cli.measures.scorecard import scorecard
from posemb_cli.measures.signal_pass import SignalPass
from posemb_cli.measures.spectrum import table_spectrum
from posemb_cli.run.report import SignalFigures

_PROBE_SEED = 3  # offset from --seed of the q/k pair of the relative checks


def _extend_advice(length: int) -> str:
    """The command that ranks the scalings for a model whose rotary pairs never turn within its context."""
    return f"posemb extend MODEL --to {length} ranks the scalings that keep them within"


# The vector figures a bias per distance (ALiBi) gives no meaning to, and why (JSON ``left_out``).
_SAME_WAY = ("every position's signal (its bias against position 0, -slope_h*p per head) points the same way: "
             "every cosine between positions is 1")
BIAS_LEFT_OUT = {
    "neighbour_similarity": _SAME_WAY,
    "heatmap": _SAME_WAY,
    "boundedness": "a bias that grows with distance is the design (-slope*|m-n|)",
}


def signal_figures(
    position: PositionScheme,
    config: EmbeddingConfig,
    *,
    measured: SignalPass,
    progress: Progress | None = None,
) -> SignalFigures:
    """Every figure of one scheme beyond the lesson's, measured on its tensors.

    Args:
        position: the built scheme.
        config: the effective settings (ctx, max_offset, seed, init_std).
        measured: the one pass over the signal already made (its second read the rebuild's rows).
        progress: hears each stage as it starts.
    """
    progress = or_silent(progress)
    with torch.no_grad():
        first = position.signal(0, 1)  # one row: its dtype and device, nothing of size L
        compute = torch.float64 if first.dtype == torch.float64 else torch.float32
        q, k = probe_vectors(position.dim, config.init_std, seed=config.seed + _PROBE_SEED,
                             device=first.device, dtype=compute)
        progress.stage("relative check")
        relative = relative_deviation(position, q, k, max_offset=config.max_offset)
        bands = position.bands()
        frequencies = [band.inv_freq for band in bands] if bands else None
        ctx = int(position.max_ctx)
        progress.stage("scorecard")
        card = scorecard(position, max_offset=config.max_offset,
                         seed=config.seed + _PROBE_SEED, probe_std=config.init_std, measured=measured,
                         ctx_by="--ctx", extend_advice=_extend_advice)
        bound = None
        if frequencies is not None:
            progress.stage("context bound")
            bound = context_bound(position, ctx)
        progress.stage("decay bound and spectrum")
        release_free_memory()  # what the checks above freed, back before the spectrum's blocks are allocated
        return SignalFigures(
            acts_on=position.acts_on,
            relative=relative,
            scorecard=card,
            long_term_decay=None if frequencies is None else long_term_decay(frequencies, ctx),
            full_turn_pairs=None if frequencies is None else full_turn_pairs(frequencies, ctx),
            attention_factor=float(position.attention_factor) if isinstance(position, RotaryScheme) else None,
            slopes=position.slopes.tolist() if isinstance(position, BiasScheme) else None,
            attention_bias=(position.bias_at_offsets(config.max_offset) if isinstance(position, BiasScheme)
                            else None),
            distance_penalty=distance_penalty(position, ctx) if isinstance(position, BiasScheme) else None,
            left_out=dict(BIAS_LEFT_OUT) if isinstance(position, BiasScheme) else None,
            context_bound=bound,
            # A stored table's (learned, checkpoint) principal components: the table itself, no copy.
            spectrum=(table_spectrum(position.table()) if frequencies is None and position.acts_on == "input"
                      else None),
        )


EVERY_POSITION, SAMPLED, CLOSED_FORM, SCAN, PROOF = "every position", "sampled", "closed form", "scan", "proof"


def figure_methods(position: PositionScheme, measured: SignalPass, figures: SignalFigures) -> dict[str, str]:
    """How each figure of one scheme reads its signal: the JSON ``methods`` object.

    ``every position``: the row of every position 0..L-1; ``sampled``: a set of positions whose size does not
    grow with L (the pass's sample, a grid of anchors, a window of rows, a few blocks); ``closed form``: from the
    frequencies, slopes or a known zero, no row read; ``scan``: the context bound scans every distance below L;
    ``proof``: past 1,048,576 distances it rests on the proof (and a scan of the first 2,097,152).
    """
    over = SAMPLED if measured.coverage.sampled else EVERY_POSITION
    card = figures.scorecard
    found = {
        "neighbour_similarity": over,
        "table": CLOSED_FORM if isinstance(position, AttentionScheme) else over,  # nothing added: zero norms
        "relative_deviation": SAMPLED,  # a grid of anchors and offsets
        "scorecard.uniqueness": over,
        "scorecard.boundedness": over,
        "scorecard.relative": SAMPLED,  # the first rows of the table, or the grid of anchors
        "scorecard.extrapolation": SAMPLED if card.extrapolation.judged == "formula" else CLOSED_FORM,  # rows each side
        "scorecard.determinism": (EVERY_POSITION if measured.drawn or measured.compared == measured.blocks
                                  and not measured.coverage.sampled else SAMPLED),
    }
    if position.bands() is not None:
        found["bands"] = CLOSED_FORM
    if figures.long_term_decay is not None:
        found["long_term_decay"] = CLOSED_FORM
    if figures.full_turn_pairs is not None:
        found["full_turn_pairs"] = CLOSED_FORM
    if figures.context_bound is not None:
        found["context_bound"] = SCAN if figures.context_bound.scanned else PROOF
    if figures.slopes is not None:
        found["slopes"] = found["attention_bias"] = CLOSED_FORM
    if figures.spectrum is not None:
        found["spectrum"] = EVERY_POSITION
    return found
