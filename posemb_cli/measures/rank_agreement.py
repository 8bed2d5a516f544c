"""How far a measured ranking agrees with a predicted one: Spearman's rank correlation and each pair they order apart.

Both rankings order the same n candidates, best first. With d_i the difference of candidate i's
two ranks, Spearman's rho = 1 - 6 sum d_i^2 / (n (n^2 - 1)): 1 when the orders are the same, -1
when one is the other reversed (no ties: each ranking is a strict order). It is None for fewer than
two candidates. A disagreement is a pair the two rankings order differently: the prediction puts
one first, the measurement the other.

The measured order itself (``measured_ranking``): lower mean loss first. Two losses of one model on
one text, equal in exact arithmetic or within the rounding noise of the dtype the model ran in, come
out a few ulps apart, and which few differs between machines; so values within ``tolerance``
(relative) of the lowest of their group tie, and ties keep the predicted order. A tie never makes a
disagreement; a gap larger than the noise always counts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["LOSS_NOISE", "Disagreement", "RankAgreement", "measured_ranking", "rank_agreement"]

# Relative noise of a mean next-token loss between machines (another CPU's kernels, another summation
# order), by the dtype the model ran in: a float32 forward through tens of layers keeps about 5 decimals
# of a loss, a 16-bit one about 2.
LOSS_NOISE = {"float64": 1e-6, "float32": 1e-4, "bfloat16": 1e-2, "float16": 1e-2}


@dataclass(frozen=True)
class Disagreement:
    """A pair ordered apart: the prediction ranks ``predicted_first`` above ``measured_first``, the
    measurement the other way round."""

    predicted_first: str
    measured_first: str

    def to_dict(self) -> dict:
        return {"predicted_first": self.predicted_first, "measured_first": self.measured_first}


@dataclass(frozen=True)
class RankAgreement:
    """Two rankings of the same candidates, best first, and how far they agree."""

    spearman: float | None
    measured_ranking: tuple[str, ...]
    predicted_ranking: tuple[str, ...]
    disagreements: tuple[Disagreement, ...]

    def statement(self) -> str:
        """One plain sentence: they agree, or which pairs they order apart."""
        if not self.disagreements:
            return "the measured ranking agrees with the predicted one"
        pairs = "; ".join(f"predicted {pair.predicted_first} above {pair.measured_first}, measured "
                          f"{pair.measured_first} above {pair.predicted_first}" for pair in self.disagreements)
        count = len(self.disagreements)
        return f"the rankings disagree on {count} pair{'s' if count > 1 else ''}: {pairs}"

    def to_dict(self) -> dict:
        return {"spearman": self.spearman, "measured_ranking": list(self.measured_ranking),
                "predicted_ranking": list(self.predicted_ranking),
                "disagreements": [pair.to_dict() for pair in self.disagreements], "statement": self.statement()}


def measured_ranking(values: Mapping[str, float], *, tolerance: float, prefer: Sequence[str] = ()) -> tuple[str, ...]:
    """Candidates by ``values`` (lower first); within ``tolerance`` (relative) of a group's lowest, by ``prefer``.

    A value that is not finite ranks last. Candidates absent from ``prefer`` come after those in it,
    in the order ``values`` gives them.
    """
    order = {name: index for index, name in enumerate(prefer)}
    given = {name: index for index, name in enumerate(values)}
    finite = sorted((name for name in values if math.isfinite(values[name])),
                    key=lambda name: (values[name], order.get(name, len(order)), given[name]))
    ranked: list[str] = []
    group: list[str] = []
    for name in finite:
        if group and values[name] - values[group[0]] > tolerance * abs(values[group[0]]):
            ranked += sorted(group, key=lambda member: (order.get(member, len(order)), given[member]))
            group = []
        group.append(name)
    ranked += sorted(group, key=lambda member: (order.get(member, len(order)), given[member]))
    return tuple(ranked) + tuple(name for name in values if not math.isfinite(values[name]))


def rank_agreement(measured: Sequence[str], predicted: Sequence[str]) -> RankAgreement:
    """Spearman's rho between two strict rankings of the same candidates, and the pairs they order apart."""
    if sorted(measured) != sorted(predicted) or len(set(measured)) != len(measured):
        raise ValueError(f"the rankings must order the same distinct candidates: {list(measured)} "
                         f"and {list(predicted)}")
    count = len(measured)
    rank_measured = {name: index for index, name in enumerate(measured)}
    rank_predicted = {name: index for index, name in enumerate(predicted)}
    spearman = None
    if count >= 2:
        squares = sum((rank_measured[name] - rank_predicted[name]) ** 2 for name in measured)
        spearman = 1 - 6 * squares / (count * (count * count - 1))
    apart = tuple(Disagreement(first, second) for index, first in enumerate(predicted)
                  for second in predicted[index + 1:] if rank_measured[second] < rank_measured[first])
    return RankAgreement(spearman, tuple(measured), tuple(predicted), apart)
