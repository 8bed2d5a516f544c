"""ALiBi's bias by distance, per head, drawn into a matplotlib axes with the levels where the weight drops."""

from __future__ import annotations

from posemb_cli.run.report import SchemeReport

__all__ = ["has_penalty", "penalty_axes"]

_MAX_HEADS = 16


def has_penalty(results: list[SchemeReport]) -> bool:
    return any(result.signal is not None and result.signal.distance_penalty is not None for result in results)


def penalty_axes(axes, results: list[SchemeReport]) -> None:
    """Each head's bias against distance (a log axis) down to twice the lowest level, and a dashed line at each
    level's bias (ln of the weight): where a head's curve crosses it is the distance the terminal gives."""
    levels: dict[float, float] = {}
    for result in results:
        penalty = None if result.signal is None else result.signal.distance_penalty
        if penalty is None:
            continue
        distances = [row["distance"] for row in penalty.by_distance]
        for head in range(min(penalty.heads, _MAX_HEADS)):
            axes.plot(distances, [row["bias"][head] for row in penalty.by_distance], linewidth=0.9, marker=".",
                      label=f"{result.scheme} head {head}")
        levels.update({level.weight: level.bias for level in penalty.levels})
    for weight, bias in levels.items():
        axes.axhline(bias, color="grey", linestyle="--", linewidth=0.7)
        axes.annotate(f"weight exp(bias) {weight:.0%}", (0.01, bias), xycoords=("axes fraction", "data"),
                      fontsize=7, color="grey", va="bottom")
    if levels:  # down to twice the lowest level: each head's curve is seen crossing the level lines
        axes.set_ylim(2 * min(levels.values()), 0.2)
    axes.set_xscale("log")
    axes.set_title("ALiBi: bias added to the score by distance, per head", fontsize=9)
    axes.set_xlabel("distance |m-n| (positions)")
    axes.set_ylabel("bias (score)")
    axes.legend(fontsize=6, ncol=2)
