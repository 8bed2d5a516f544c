"""llama.cpp's command-line flags, as ``posemb extend`` prints them, translated once into the binding's parameters.

The flags are those of ``recommendation.engines.llama_cpp.args`` (``commands.extend.llama_cpp``): ``--rope-scaling
{none,linear,yarn}``, ``--rope-scale N`` (frequencies divided by N: ``rope_freq_scale`` = 1/N), ``--rope-freq-base
N``, ``--yarn-orig-ctx N``, ``--yarn-beta-fast N``, ``--yarn-beta-slow N``, ``-c N``. llama-cpp-python's
``Llama(...)`` takes the same settings under the names of ``llama_context_params``; a flag left out keeps the
binding's default, which is llama.cpp's (read the GGUF's metadata). Anything else is refused: a setting posemb
does not translate would be a figure measured under settings it does not name.
"""

from __future__ import annotations

__all__ = ["SCALING_TYPES", "binding_parameters"]

SCALING_TYPES = {"none": 0, "linear": 1, "yarn": 2}  # llama_rope_scaling_type (llama.h): NONE, LINEAR, YARN
_NUMBERS = {"--rope-scale": "rope_freq_scale", "--rope-freq-base": "rope_freq_base",
            "--yarn-beta-fast": "yarn_beta_fast", "--yarn-beta-slow": "yarn_beta_slow"}
_WHOLE = {"--yarn-orig-ctx": "yarn_orig_ctx", "-c": "n_ctx"}


def binding_parameters(args: list[str] | tuple[str, ...]) -> dict:
    """The ``Llama(...)`` keyword arguments of llama.cpp's flags ``args``.

    Raises:
        ValueError: a flag without its value, a flag posemb does not translate, or a value that is not a number.
    """
    if len(args) % 2:
        raise ValueError(f"llama.cpp flags come in pairs, got {list(args)}")
    out: dict = {}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        if flag == "--rope-scaling":
            if value not in SCALING_TYPES:
                raise ValueError(f"--rope-scaling {value}: posemb translates {', '.join(SCALING_TYPES)}")
            out["rope_scaling_type"] = SCALING_TYPES[value]
        elif flag in _NUMBERS:
            number = float(value)
            out[_NUMBERS[flag]] = 1.0 / number if flag == "--rope-scale" else number
        elif flag in _WHOLE:
            out[_WHOLE[flag]] = int(value)
        else:
            raise ValueError(f"{flag}: not a llama.cpp flag posemb translates")
    return out
