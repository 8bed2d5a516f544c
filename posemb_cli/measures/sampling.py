"""Which positions the signal pass measures: every one, or an even sample of whole blocks at long contexts.

Notation: L positions, n sampled blocks of B consecutive positions each, P = n * B.

A signal computed from a formula (rope, sinusoidal, alibi) longer than P =
1,048,576 positions is measured over n = 256 blocks of B = 4,096 positions
spread evenly over the context: block i starts at ``floor(i * (L - B) / (n - 1))``,
so the first block starts at 0 and the last ends at L (where float32 rounding of
m * theta is worst). Up to P positions, a stored table (learned, a checkpoint's)
at any length, and under ``--full``, every position is measured. The plan depends
on L alone: the same flags give the same positions on any machine.

The determinism check compares at most 16 of the pass's blocks, spread evenly
(the first and the last among them), at every length.
"""

from __future__ import annotations

from dataclasses import dataclass

SAMPLE_POSITIONS = 1 << 20  # P: above this many positions a computed signal is sampled
SAMPLE_BLOCK = 1 << 12  # B: consecutive positions per sampled block (n = P / B = 256 blocks)
DETERMINISM_BLOCKS = 16  # blocks of the pass compared with a rebuild, whatever L is

__all__ = ["Coverage", "DETERMINISM_BLOCKS", "SAMPLE_BLOCK", "SAMPLE_POSITIONS", "coverage_of", "evenly_spread",
           "every_position"]


@dataclass(frozen=True)
class Coverage:
    """The positions one pass measures: runs of consecutive positions, in order.

    Attributes:
        rows: L, the positions of the signal.
        spans: ``(start, stop)`` runs of consecutive positions measured, ascending, disjoint.
        rule: how they were chosen, in words (the JSON ``rule``).
    """

    rows: int
    spans: tuple[tuple[int, int], ...]
    rule: str

    @property
    def measured(self) -> int:
        return sum(stop - start for start, stop in self.spans)

    @property
    def sampled(self) -> bool:
        return self.measured < self.rows

    def position(self, index: int) -> int:
        """The position of the ``index``-th measured position (0-based, in order)."""
        for start, stop in self.spans:
            if index < stop - start:
                return start + index
            index -= stop - start
        raise IndexError(f"measured position {index} beyond the {self.measured} measured")

    def to_dict(self) -> dict:
        """The ``coverage`` JSON object."""
        return {"positions_measured": self.measured, "of": self.rows, "blocks": len(self.spans), "rule": self.rule}


def every_position(rows: int, rule: str = "every position") -> Coverage:
    """One run over positions 0..L-1."""
    return Coverage(rows=rows, spans=((0, rows),), rule=rule)


def evenly_spread(total: int, count: int) -> list[int]:
    """``count`` indices of 0..total-1 spread evenly, the first and the last among them (all when total <= count).

    Index i is ``floor(i * (total - 1) / (count - 1))``.
    """
    if total <= count:
        return list(range(total))
    if count == 1:
        return [0]
    return [i * (total - 1) // (count - 1) for i in range(count)]


def coverage_of(rows: int, *, computed: bool, full: bool = False, positions: int | None = None,
                block: int | None = None, full_by: str = "full") -> Coverage:
    """The positions measured for a signal of ``rows`` positions.

    Args:
        rows: L.
        computed: the signal is computed from a formula (not a stored table): only such a signal is sampled.
        full: measure every position whatever L is (``--full``).
        positions, block: P and B; by default ``SAMPLE_POSITIONS`` and ``SAMPLE_BLOCK``.
        full_by: how the caller asks for ``full``, named in the rule (the CLI's option).
    """
    positions = SAMPLE_POSITIONS if positions is None else positions
    block = SAMPLE_BLOCK if block is None else block
    if rows <= positions:
        return every_position(rows)
    if full:
        return every_position(rows, f"every position ({full_by})")
    if not computed:
        return every_position(rows, "every position (a stored table is measured in full)")
    count = max(2, positions // block)
    starts = [i * (rows - block) // (count - 1) for i in range(count)]
    rule = (f"{count} blocks of {block:,} consecutive positions spread evenly over 0..{rows - 1:,}: block i "
            f"starts at floor(i * ({rows:,} - {block:,}) / {count - 1}), the first and the last always "
            f"included; {full_by} measures every position")
    return Coverage(rows=rows, spans=tuple((start, start + block) for start in starts), rule=rule)
