"""What `posemb extend` is asked, checked once: the one typed request its run takes.

``extend_request`` reads the command's flags (the CLI's and the API's alike, from the one declaration of its
options in ``options.py``) and refuses, in this order, what cannot run: the ``--write-config`` target, the
numbers, the candidates, the measurement's inputs, the model, and the runtime that measures. Nothing is read
past the model's name and its files' kind; the run (``run.extend_command``) then reads and computes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags
from posemb_cli.request.words import flag_of
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

if TYPE_CHECKING:
    from posemb_cli.sources.naming.model_file import ModelFile

MAX_TOP = 1000
MAX_FACTOR = 2.0**20

__all__ = ["MAX_FACTOR", "MAX_TOP", "ExtendRequest", "extend_request"]


@dataclass(frozen=True)
class ExtendRequest:
    """``posemb extend``'s request, every value checked.

    Attributes:
        model: MODEL resolved (a config.json alone allowed; its ``name`` as the user typed it).
        to: the target length L. top: heads listed as most at risk.
        scalings: the candidates asked for (None: every one that applies). factor: the factor every candidate takes
            (None: the one that reaches L). fine_tune: rank for a user who will fine-tune at L.
        text, ids: the measurement's input (``--text`` files or an ``--ids`` file; neither: no measurement).
        runtime: the runtime that measures (``transformers`` or ``llama.cpp``, ``auto`` resolved); None without a
            measurement. device, dtype: the transformers runtime's. save_ids: where the ids each forward ran go.
        write_config: where the recommended candidate's config.json is written, or None. pictures: draw the
            terminal pictures.
    """

    model: ModelFile
    to: int
    top: int
    scalings: list[str] | None
    factor: float | None
    fine_tune: bool
    text: tuple[str, ...]
    ids: str | None
    runtime: str | None
    device: str
    dtype: str
    save_ids: str | None
    write_config: str | None
    pictures: bool

    @property
    def measures(self) -> bool:
        """Whether the candidates are measured on the model (``--text`` or ``--ids``)."""
        return bool(self.text) or self.ids is not None


def _parse_scalings(text: str) -> list[str]:
    """A comma list of the candidate scalings, each once."""
    from posemb_cli.measures.extension_ranking import SCALINGS

    names = [part.strip() for part in text.split(",")]
    unknown = [name for name in names if name not in SCALINGS]
    if unknown:
        raise PosembError(f"--scalings: unknown scaling {unknown[0]!r}; choose from {', '.join(SCALINGS)}")
    if len(set(names)) != len(names):
        raise PosembError(f"--scalings: each scaling may be given once, got {text!r}")
    return names


def _whole(name: str, value, low: int, high: int, high_text: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PosembError(f"--{name} must be a whole number from {low:,} to {high_text}, got {value!r}")
    return value


def _measure_inputs(flags: Flags) -> tuple[tuple[str, ...], str | None]:
    """(the --text files, the --ids file): at most one of them; without either, no flag only they read."""
    from posemb_cli.commands.extend.measure import MEASURE_ONLY

    given = flags["text"]
    text = (given,) if isinstance(given, str) else tuple(str(path) for path in given or ())
    ids = flags["ids"]
    if flags.given("text") and not text:
        raise PosembError("--text: give at least one UTF-8 text file")
    if text and ids is not None:
        raise PosembError("--text and --ids: give one of them, a UTF-8 text to tokenize or token ids")
    unread = [flag_of(name) for name in MEASURE_ONLY if flags.given(name)]
    if unread and not text and ids is None:
        named = " and ".join(unread)
        raise PosembError(f"{named} {'is' if len(unread) == 1 else 'are'} read only by the measurement on the model, "
                          f"which --text FILE or --ids FILE asks for; give one of them or leave {named} out")
    return text, ids


def _factor(flags: Flags, scalings: list[str] | None) -> float | None:
    factor = flags["factor"]
    if factor is None:
        return None
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) \
            or not 1 <= factor <= MAX_FACTOR:
        raise PosembError(f"--factor must be a number from 1 (no stretch) to 2**20, got {factor!r}")
    if scalings == ["none"]:
        raise PosembError("--factor is read by no chosen scaling: none keeps the published frequencies; add "
                          "another scaling to --scalings or leave --factor out")
    return float(factor)


def extend_request(flags: Flags) -> ExtendRequest:
    """The request ``flags`` make, every value checked once (PosembError, exit 2, naming the flag or the file)."""
    from posemb_cli.run.models.model_source import name_model, speaking_of

    write_config = flags.values.get("write_config")
    if write_config is not None:
        from posemb_cli.commands.extend.write_config import check_target

        check_target(write_config)
    to = _whole("to", flags["to"], 2, MAX_COUNT, MAX_COUNT_TEXT)
    top = _whole("top", flags["top"], 1, MAX_TOP, f"{MAX_TOP:,}")
    given = flags["scalings"]  # a list given to the API arrives as the comma string (Option.check)
    scalings = None if given is None else _parse_scalings(given)
    factor = _factor(flags, scalings)
    text, ids = _measure_inputs(flags)
    named = name_model(flags["model"], config_needed=True)
    runtime = None
    if text or ids is not None:
        from posemb_cli.commands.extend.measure import chosen_runtime

        with speaking_of(named):
            runtime = chosen_runtime(named, flags["runtime"])
        if runtime == "llama.cpp" and (flags.given("device") or flags.given("dtype")):
            raise PosembError("--device and --dtype are read by the transformers runtime; llama.cpp runs the GGUF "
                              "file as stored, on the CPU: leave them out or give --runtime transformers")
    return ExtendRequest(model=named, to=to, top=top, scalings=scalings, factor=factor,
                         fine_tune=bool(flags.values.get("fine_tune", False)), text=text, ids=ids, runtime=runtime,
                         device=flags["device"], dtype=flags["dtype"], save_ids=flags.values.get("save_ids"),
                         write_config=write_config, pictures=not flags.values.get("no_plot", False))
