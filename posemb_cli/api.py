"""posemb from Python: one function per command, keyword arguments named as the flags, a typed report back.

    >>> import posemb_cli as posemb
    >>> report = posemb.inspect(scheme="rope", dim=128, ctx=4096)
    >>> report.to_dict()["neighbour_similarity"][0]["mean"]   # the --json document
    >>> report                                                # in Jupyter: the terminal tables
    >>> posemb.inspect_model("Llama-3.1-8B/config.json").to_dict()["layer_map"][0]
    >>> posemb.compare(models=["meta-llama/Llama-3.1-8B"], scalings="none,yarn:4")   # from the Hugging Face cache

An argument left out takes the command's default, as on the command line (``posemb
CMD --help``). Bad arguments raise ``PosembError`` with the one line the CLI prints;
nothing here prints, writes to stdout or exits. ``import posemb_cli`` imports no
torch; the first call does.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any, TypeVar

from posemb_cli.errors import PosembError
from posemb_cli.reports import (
    CompareReport,
    DoctorReport,
    ExtendReport,
    HeadsReport,
    InspectReport,
    OrderReport,
    PaddingReport,
    PrecisionReport,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from posemb_cli.api_flags import (
        CompareFlags,
        DoctorFlags,
        ExtendFlags,
        HeadsFlags,
        InspectFlags,
        OrderFlags,
        PaddingFlags,
        PrecisionFlags,
    )
    from posemb_cli.request.flags import Flags
    from posemb_cli.sources.model.rope_model import RopeModel

__all__ = ["compare", "doctor", "extend", "heads", "inspect", "inspect_model", "order", "padding", "precision",
           "read_rope_config"]


_Call = TypeVar("_Call", bound=Callable[..., Any])


def _speaks(function: _Call) -> _Call:
    """The API's refusal says what the CLI's says: a refusal raised below the request, under a request's key, is
    worded here as the command line names that key (``request.words``)."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except PosembError as exc:
            from posemb_cli.request.words import worded

            exc.args = (worded(exc),)
            raise

    return call  # type: ignore[return-value]


def _flags(name: str, given: dict[str, Any]) -> Flags:
    """The command's flags: the defaults its options declare (``commands/<name>/options.py``, the CLI's own
    source), then what was given, each read as the CLI reads its text (a value the CLI refuses raises
    ``PosembError`` with its line)."""
    from posemb_cli.request.option import given_flags

    return given_flags(name, import_module(f"posemb_cli.commands.{name}.options").OPTIONS, given)


def _observer(flags: Flags, *, terminal: bool) -> Callable | None:
    """The heatmaps to accumulate: sized for a Rich console here (a notebook's width), and the figure's."""
    from rich.console import Console

    from posemb_cli.render.observer import picture_observer

    return picture_observer(Console(), terminal=terminal, plot=True, full=flags.values.get("pictures") == "full")


def _check_plot(flags: Flags) -> None:
    """Refuse a --plot path before the run, as the CLI does."""
    if flags["plot"] is not None:
        from posemb_cli.render.plot import check_plot_path

        check_plot_path(flags["plot"])


def _plot(flags: Flags, report: InspectReport | CompareReport | HeadsReport | ExtendReport) -> None:
    if flags["plot"] is not None:
        from posemb_cli.render.plot import save_figure

        save_figure(report.plot(), flags["plot"])


@_speaks
def inspect(**flags: Unpack[InspectFlags]) -> InspectReport:
    """``posemb inspect``: one scheme (``scheme="rope"``), or a real model (``checkpoint=``, ``model_config=``)."""
    return _inspect(dict(flags))


def _inspect(given: dict[str, Any]) -> InspectReport:
    from posemb_cli.commands.inspect.request import inspect_request
    from posemb_cli.commands.inspect.run import inspect_command

    chosen = _flags("inspect", given)
    _check_plot(chosen)
    report = inspect_command(inspect_request(chosen), observe=_observer(chosen, terminal=not chosen["no_plot"]))
    _plot(chosen, report)
    return report


@_speaks
def inspect_model(path: str, **flags: Unpack[InspectFlags]) -> InspectReport:
    """``posemb inspect MODEL``: a config.json, a model directory, a .gguf file, a weights file with its config.json
    beside it, a Hugging Face id in the local cache (``org/name``, ``@revision``) or ``ollama:NAME``."""
    return _inspect({**flags, "model": path})


@_speaks
def compare(**flags: Unpack[CompareFlags]) -> CompareReport:
    """``posemb compare``: schemes side by side on one batch (``schemes=["learned", "rope"]``), or real models side
    by side (``models=["a.gguf", "org/name"]``, each under each of ``scalings="none,yarn:4"``)."""
    from posemb_cli.commands.compare.request import compare_request
    from posemb_cli.commands.compare.run import compare_command

    chosen = _flags("compare", dict(flags))
    _check_plot(chosen)
    report = compare_command(compare_request(chosen), observe=_observer(chosen, terminal=False))
    _plot(chosen, report)
    return report


@_speaks
def order(**flags: Unpack[OrderFlags]) -> OrderReport:
    """``posemb order``: attention without position cannot tell a batch from its permutation."""
    from posemb_cli.commands.order.request import order_request
    from posemb_cli.commands.order.run import order_command

    return order_command(order_request(_flags("order", dict(flags))))


@_speaks
def precision(**flags: Unpack[PrecisionFlags]) -> PrecisionReport:
    """``posemb precision``: where a 16-bit position signal collapses (``model_config=`` for a real model)."""
    from posemb_cli.commands.precision.request import precision_request
    from posemb_cli.commands.precision.run import precision_command

    return precision_command(precision_request(_flags("precision", dict(flags))))


@_speaks
def padding(**flags: Unpack[PaddingFlags]) -> PaddingReport:
    """``posemb padding``: left padding with naive and mask-derived position ids (or a real model's signal)."""
    from posemb_cli.commands.padding.request import padding_request
    from posemb_cli.commands.padding.run import padding_command

    return padding_command(padding_request(_flags("padding", dict(flags))))


@_speaks
def doctor(path: str, **flags: Unpack[DoctorFlags]) -> DoctorReport:
    """``posemb doctor MODEL``: findings about a model's position setup (MODEL as ``inspect_model`` takes it)."""
    from posemb_cli.commands.doctor.request import doctor_request
    from posemb_cli.commands.doctor.run import doctor_command

    return doctor_command(doctor_request(_flags("doctor", {**flags, "model": path})))


@_speaks
def heads(path: str, **flags: Unpack[HeadsFlags]) -> HeadsReport:
    """``posemb heads MODEL``: which RoPE frequencies a trained model's heads use (a model with its weights: a
    directory, a .safetensors/.bin file, a .gguf file, a Hugging Face id in the local cache or ``ollama:NAME``).

    ``distances`` (a list of ints, or the CLI's comma string) chooses the kernel's distances.
    """
    from posemb_cli.commands.heads.request import heads_request
    from posemb_cli.commands.heads.run import heads_command

    chosen = _flags("heads", {**flags, "model": path})
    _check_plot(chosen)
    report = heads_command(heads_request(chosen))
    _plot(chosen, report)
    return report


@_speaks
def extend(path: str, *, to: int, **flags: Unpack[ExtendFlags]) -> ExtendReport:
    """``posemb extend``: which RoPE scaling, which factor, to run a model at ``to`` positions.

    ``path`` is a MODEL as the command line takes it (a config.json, a model directory, a .gguf file, a weights
    file with its config.json beside it, a Hugging Face id in the local cache or ``ollama:NAME``);
    ``scalings`` (a list, or the CLI's comma string) picks the candidates. ``text`` (a file, or a list of files)
    or ``ids`` (a file) measures each candidate on the model at ``to`` tokens (the ``measure`` extra), with
    ``device`` and ``dtype``; the report then holds the measurement beside the prediction.
    """
    from posemb_cli.commands.extend.request import extend_request
    from posemb_cli.commands.extend.run import extend_command

    chosen = _flags("extend", {**flags, "model": path, "to": to})
    _check_plot(chosen)
    report = extend_command(extend_request(chosen))
    _plot(chosen, report)
    return report


@_speaks
def read_rope_config(path: str) -> RopeModel:
    """Read a config.json, a model directory or a .gguf file into the model's RoPE, one per layer type; a refusal
    names the file as ``--config PATH`` names it on the command line."""
    from posemb_cli.run.models.model_source import speaking_of
    from posemb_cli.sources.model.rope_model import rope_model_of
    from posemb_cli.sources.naming.model_file import option_model
    from posemb_cli.sources.naming.read import read_model

    with speaking_of(option_model("model_config", path)):
        return rope_model_of(read_model(path))
