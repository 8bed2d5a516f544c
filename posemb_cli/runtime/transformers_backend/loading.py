"""The model's files to transformers objects: where they are, the config with a scaling set, the model, the tokenizer.

A model is a directory with a config.json and safetensors weights (or that config.json named
directly), or a GGUF file (a .gguf, or a file that starts with GGUF's magic: an Ollama blob),
loaded through transformers' GGUF loader (``from_pretrained(folder, gguf_file=...)``) for the
architectures it reads; another GGUF architecture is refused, named. A GGUF's weights are
dequantised into the dtype asked (``GgufConfig(dequantize=True)``): the plain dense model, on any
machine, with no kernel fetched.
Attention is PyTorch's scaled-dot-product attention (``attn_implementation="sdpa"``), which holds
no L x L matrix on a causal window. transformers' own progress bars and notices are kept off the
terminal while it loads; its errors become one line (exit 2).
"""

from __future__ import annotations

import contextlib
import copy
import io
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from posemb_cli.errors import PosembError, brief, option

__all__ = ["ModelFiles", "config_with", "load_model", "load_tokenizer", "locate", "meta_model", "quiet", "read_config"]

HINT = "give a model directory with config.json and safetensors weights, or a .gguf file"


@dataclass(frozen=True)
class ModelFiles:
    """The model as named (``source``), its folder, and the GGUF file's name in it (None for a directory)."""

    source: str
    folder: str
    gguf_file: str | None


def locate(path: str) -> ModelFiles:
    """Where the model's files are; refuse what transformers cannot load as a causal LM here."""
    if not os.path.exists(path):
        raise PosembError(f"{path}: no such file or directory; {HINT}")
    if os.path.isfile(path):
        from posemb_cli.sources.gguf.header import is_gguf

        if is_gguf(path):  # by suffix, or by magic (an Ollama blob has no suffix)
            return ModelFiles(path, os.path.dirname(os.path.abspath(path)), os.path.basename(path))
        if os.path.basename(path) != "config.json":
            raise PosembError(f"{path}: not a model; {HINT}")
        path = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(os.path.join(path, "config.json")):
        raise PosembError(f"{path}: no config.json in this directory; {HINT}")
    if not any(name.endswith(".safetensors") for name in os.listdir(path)):
        raise PosembError(f"{path}: no safetensors weights beside its config.json; {HINT}")
    return ModelFiles(path, path, None)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """transformers' notices and progress bars off (its GGUF loader writes tqdm bars to stderr itself)."""
    from transformers.utils import logging

    verbosity, bars = logging.get_verbosity(), logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()


def _gguf_architecture(files: ModelFiles) -> str:
    from posemb_cli.sources.gguf.file import gguf_reader

    return str(gguf_reader(files.source).metadata.get("general.architecture", "unknown"))


def read_config(files: ModelFiles) -> Any:
    """transformers' config of the model (a GGUF's derived from its metadata by transformers' GGUF loader)."""
    import transformers

    kwargs = {"gguf_file": files.gguf_file} if files.gguf_file else {}
    try:
        with quiet():
            config = transformers.AutoConfig.from_pretrained(files.folder, **kwargs)
    except (ValueError, KeyError, OSError) as exc:
        if files.gguf_file and "not supported" in str(exc):
            raise PosembError(f"{files.source}: transformers {transformers.__version__}'s GGUF loader does not read "
                              f"architecture '{_gguf_architecture(files)}'; give the model's safetensors "
                              "directory") from None
        raise PosembError(f"{files.source}: transformers cannot read its config ({brief(exc)})") from None
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    if config.model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        raise PosembError(f"{files.source}: transformers has no causal language model for model_type "
                          f"'{config.model_type}' (AutoModelForCausalLM); measuring the next-token loss needs one")
    return config


def config_with(config: Any, rope_parameters: Mapping[str, Any], name: str) -> Any:
    """A copy of ``config`` with ``rope_parameters`` set as transformers 5 takes them, standardised and checked."""
    edited = copy.deepcopy(config)
    edited.rope_parameters = copy.deepcopy(dict(rope_parameters))
    try:
        with quiet():
            edited.standardize_rope_params()
            edited.validate_rope()
    except (ValueError, KeyError, TypeError) as exc:
        raise PosembError(f"scaling {name}: transformers refuses rope_parameters {dict(rope_parameters)} "
                          f"({brief(exc)})") from None
    return edited


def meta_model(config: Any) -> Any:
    """The model built on the meta device: its parameters' shapes, no bytes."""
    import torch
    import transformers

    with quiet(), torch.device("meta"):
        return transformers.AutoModelForCausalLM.from_config(config)


def load_model(files: ModelFiles, config: Any, dtype: Any, device_map: Any, max_memory: dict | None) -> Any:
    """The model with ``config`` (its scaling), in ``dtype``, placed by ``device_map``; in eval mode."""
    import transformers

    kwargs: dict[str, Any] = {"config": config, "dtype": dtype, "attn_implementation": "sdpa"}
    if files.gguf_file:
        kwargs.update(gguf_file=files.gguf_file,
                      quantization_config=transformers.GgufConfig(dequantize=True))
    if device_map is not None:
        kwargs["device_map"] = device_map
    if max_memory is not None:
        kwargs["max_memory"] = max_memory
    try:
        with quiet():
            model = transformers.AutoModelForCausalLM.from_pretrained(files.folder, **kwargs)
    except (ValueError, KeyError, OSError, RuntimeError) as exc:
        raise PosembError(f"{files.source}: transformers cannot load the model ({brief(exc)})") from None
    return model.eval()


def load_tokenizer(files: ModelFiles) -> Any:
    """The model's own tokenizer: the GGUF's, or the one saved in the directory."""
    import transformers

    kwargs = {"gguf_file": files.gguf_file} if files.gguf_file else {}
    try:
        with quiet():
            return transformers.AutoTokenizer.from_pretrained(files.folder, **kwargs)
    except (ValueError, KeyError, OSError, TypeError) as exc:
        raise PosembError(f"{files.source}: transformers finds no tokenizer for it ({brief(exc)}); "
                          f"give token ids with {option('ids')}") from None
