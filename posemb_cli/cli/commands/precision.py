"""`posemb precision`: a frequency position signal in each dtype, native and cast, against float64."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from posemb_cli.cli import options as opt
from posemb_cli.cli.output import run_progress, stdout_console, write_json
from posemb_cli.errors import PosembError

_ROPE_FLAGS = ("head_dim", "rope_scaling", "rope_factor", "original_ctx", "beta_fast", "beta_slow",
               "low_freq_factor", "high_freq_factor")


_PRECISION_SKIP = ("vocab", "batch", "seq_len", "seed", "device", "dtype", "init_std", "max_offset", "ids", "ctx",
                   "rope_layout", "attention_factor", "heads")


@opt.takes(opt.SHARED_FLAGS, opt.POSITION_FLAGS, opt.CHECKPOINT_FLAGS, opt.CONFIG_FLAGS, opt.OUTPUT_FLAGS,
           skip=(*_PRECISION_SKIP, "key", "position_offset"))
def precision(
    context: typer.Context,
    scheme: Annotated[str, typer.Option("--scheme", help="rope or sinusoidal.", rich_help_panel=opt.SHARED)] = "rope",
    dtypes: Annotated[str, typer.Option("--dtypes", help="Comma list of dtypes to measure.",
                                        rich_help_panel=opt.SHARED)] = "float32,bfloat16,float16",
    ctx: Annotated[int, typer.Option("--ctx", "-c", help="Positions measured: every p below ctx.",
                                     rich_help_panel=opt.SHARED)] = 8192,
    **flags: Any,
) -> None:
    """Show where positions collapse and how far phases drift when the signal is held in a low-precision dtype.

    \b
    Example: posemb precision --scheme rope --dim 128 --ctx 8192
    Example: posemb precision --config Llama-3.1-8B/config.json --dtypes bfloat16
    Example: posemb precision --checkpoint Llama-3.1-8B/
    """
    import dataclasses

    from posemb_cli.core.settings import EmbeddingConfig
    from posemb_cli.run.config import require_finite, require_positive_int
    from posemb_cli.run.position_config import with_position_settings
    from posemb_cli.run.precision import PRECISION_SCHEMES, parse_dtypes, run_precision
    from posemb_cli.run.report import to_json

    if scheme not in PRECISION_SCHEMES:
        raise PosembError(f"--scheme {scheme!r}: precision measures {' or '.join(PRECISION_SCHEMES)}")
    flags = opt.plain(flags)
    dim, base, model_config, checkpoint = flags["dim"], flags["base"], flags["model_config"], flags["checkpoint"]
    names = parse_dtypes(dtypes)
    typed = [name for name in _ROPE_FLAGS if given_on_command_line(context, name)]
    source = None
    if model_config is not None or checkpoint is not None:
        from posemb_cli.run.real_models import rope_settings

        if model_config is not None and checkpoint is not None:
            raise PosembError("--checkpoint and --config cannot be combined: give one model")
        given = ("--config", model_config) if model_config is not None else ("--checkpoint", checkpoint)
        for name in ("dim", "ctx", "base", "scheme", *typed):
            if given_on_command_line(context, name):
                flag = "--" + name.replace("_", "-")
                raise PosembError(f"{flag} conflicts with {given[0]} {given[1]}, which sets it; leave {flag} out")
        model, source = _rope_model(model_config, checkpoint)
        config = rope_settings(EmbeddingConfig(dim=model.rotary_dim, ctx=model.ctx), model)
        scheme = "rope"
    else:
        require_positive_int("--dim", dim)
        require_positive_int("--ctx", ctx)
        if ctx < 2:
            raise PosembError(f"--ctx must be at least 2: a collapse compares neighbouring positions, got {ctx}")
        require_finite("--base", base)
        if base <= 1:
            raise PosembError(f"--base must be above 1, got {base!r}")
        if scheme != "rope" and typed:
            flag = "--" + typed[0].replace("_", "-")
            raise PosembError(f"{flag} applies to --scheme rope only")
        config = with_position_settings(
            EmbeddingConfig(dim=dim, ctx=ctx, base=float(base)), schemes=(scheme,),
            **{name: flags[name] for name in _ROPE_FLAGS})
        if scheme != "rope":
            config = dataclasses.replace(config, head_dim=None)
    with run_progress(f"{scheme}: every dtype, both recipes, over positions 0..{config.ctx - 1:,}"):
        report = run_precision(config, scheme, names, source=source)
    if flags["json"]:
        write_json(to_json(report.to_dict()))
        return
    from posemb_cli.render.precision import render_precision

    stdout_console().print(render_precision(report))


def _not_a_formula(flag: str, path: str, kind) -> PosembError:
    """Why precision does not measure a model of this kind, naming the kind and the command that does."""
    import os

    if kind.kind in ("alibi", "none"):
        what, advice = "; precision measures the rope and sinusoidal formulas", f"{flag} {path}"
    else:
        what = (", which is stored in the weights, not computed; precision measures formula schemes "
                "(rope, sinusoidal)")
        advice = f"--checkpoint {path if os.path.isdir(path) else os.path.dirname(path) or '.'}"
    return PosembError(f"{flag} {path}: this model uses {kind.label} ({kind.decided_by}){what}; analyse it with "
                       f"posemb inspect {advice}")


def _rope_model(model_config: str | None, checkpoint: str | None):
    """The RoPE model and its JSON ``source``, the model's kind told first (``real_sources``).

    A model whose positions are stored (a learned table, T5's bias) or that uses ALiBi is refused by kind.
    """
    if model_config is not None:
        from posemb_cli.sources.model_config import rope_model_of
        from posemb_cli.sources.read_model import read_model

        reading = read_model(model_config)
        if reading.kind.kind != "rope":
            raise _not_a_formula("--config", model_config, reading.kind)
        model = rope_model_of(reading)
        return model, model.source()
    from posemb_cli.run.real_sources import from_checkpoint

    if checkpoint is None:
        raise PosembError("precision needs --config FILE or --checkpoint PATH for a real model")
    real = from_checkpoint(checkpoint, key=None, position_offset=None)
    if real.rope is None:
        raise _not_a_formula("--checkpoint", checkpoint, real.kind)
    return real.rope, real.source()


def given_on_command_line(context: typer.Context, name: str) -> bool:
    where = context.get_parameter_source(name)
    return where is not None and where.name == "COMMANDLINE"
