"""`extend`: which RoPE scaling, which factor, for a model at a target length."""

from __future__ import annotations

import dataclasses
import math

from posemb_cli.commands.extend.report import ExtendReport
from posemb_cli.core.progress import Progress
from posemb_cli.errors import PosembError
from posemb_cli.request.flags import Flags
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

MAX_TOP = 1000
MAX_FACTOR = 2.0**20

__all__ = ["MAX_TOP", "extend_command", "measure_inputs", "parse_scalings"]


def parse_scalings(text: str) -> list[str]:
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


def measure_inputs(flags: Flags) -> tuple[tuple[str, ...], str | None]:
    """(the --text files, the --ids file): at most one of them; without either, no flag only they read."""
    from posemb_cli.commands.extend.measure import MEASURE_ONLY

    given = flags["text"]
    text = (given,) if isinstance(given, str) else tuple(str(path) for path in given or ())
    ids = flags["ids"]
    if flags.given("text") and not text:
        raise PosembError("--text: give at least one UTF-8 text file")
    if text and ids is not None:
        raise PosembError("--text and --ids: give one of them, a UTF-8 text to tokenize or token ids")
    unread = ["--" + name.replace("_", "-") for name in MEASURE_ONLY if flags.given(name)]
    if unread and not text and ids is None:
        named = " and ".join(unread)
        raise PosembError(f"{named} {'is' if len(unread) == 1 else 'are'} read only by the measurement on the model, "
                          f"which --text FILE or --ids FILE asks for; give one of them or leave {named} out")
    return text, ids


def extend_command(flags: Flags, *, progress: Progress | None = None) -> ExtendReport:
    """Run ``extend``: the prediction, and with --text/--ids the measurement beside it."""
    path = flags.values.get("write_config")
    if path is not None:
        from posemb_cli.commands.extend.write_config import check_target

        check_target(path)
    report = _extend(flags, progress=progress)
    if path is not None:
        from posemb_cli.commands.extend.write_config import write_config

        report = dataclasses.replace(report, written_config=write_config(report, path))
    return dataclasses.replace(report, pictures=not flags.values.get("no_plot", False))


def _extend(flags: Flags, *, progress: Progress | None = None) -> ExtendReport:
    from posemb_cli.commands.extend.predict import run_extend
    from posemb_cli.run.models.model_source import name_model, speaking_of

    to = _whole("to", flags["to"], 2, MAX_COUNT, MAX_COUNT_TEXT)
    top = _whole("top", flags["top"], 1, MAX_TOP, f"{MAX_TOP:,}")
    given = flags["scalings"]
    if isinstance(given, (list, tuple)):
        given = ",".join(str(name) for name in given)
    scalings = None if given is None else parse_scalings(given)
    factor = flags["factor"]
    if factor is not None:
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not math.isfinite(factor) \
                or not 1 <= factor <= MAX_FACTOR:
            raise PosembError(f"--factor must be a number from 1 (no stretch) to 2**20, got {factor!r}")
        if scalings == ["none"]:
            raise PosembError("--factor is read by no chosen scaling: none keeps the published frequencies; add "
                              "another scaling to --scalings or leave --factor out")
        factor = float(factor)
    text, ids = measure_inputs(flags)
    fine_tune = bool(flags.values.get("fine_tune", False))
    named = name_model(flags["model"], config_needed=True)
    with speaking_of(named):  # a refusal about the model's files names it as typed
        if not text and ids is None:
            return run_extend(flags["model"], to=to, scalings=scalings, factor=factor, top=top, progress=progress,
                              named=named, fine_tune=fine_tune)
        from posemb_cli.commands.extend.measure import chosen_runtime, measure_candidates, open_measured

        runtime = chosen_runtime(named, flags["runtime"])
        if runtime == "llama.cpp" and (flags.given("device") or flags.given("dtype")):
            raise PosembError("--device and --dtype are read by the transformers runtime; llama.cpp runs the GGUF "
                              "file as stored, on the CPU: leave them out or give --runtime transformers")
        model = open_measured(named, what="--text" if text else "--ids", device=flags["device"],
                              dtype=flags["dtype"], runtime=runtime)
        report = run_extend(flags["model"], to=to, scalings=scalings, factor=factor, top=top, progress=progress,
                            named=named, fine_tune=fine_tune)
        return measure_candidates(model, report, text=text, ids=ids, progress=progress,
                                  save_ids=flags.values.get("save_ids"))
