"""Transformers as the oracle for RoPE configs: save a config class, read transformers' own frequencies.

``posemb_doc`` runs ``posemb inspect --config DIR --json`` on the directory that
``save_pretrained`` wrote; ``rotary_reference`` instantiates the model family's own
rotary embedding module (or calls ``ROPE_INIT_FUNCTIONS``) on the same config.
"""

from __future__ import annotations

import importlib
import json

import numpy as np
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
RTOL = 1e-5


def saved(tmp_path, config, name: str = "model") -> str:
    """``config.save_pretrained`` into a fresh directory; its path."""
    folder = tmp_path / name
    config.save_pretrained(folder)
    return str(folder)


def posemb_doc(path: str, *extra: str) -> dict:
    """The JSON of ``posemb inspect --config PATH --device cpu --json`` (exit 0 asserted)."""
    result = runner.invoke(app, ["inspect", "--config", path, "--device", "cpu", "--max-offset", "2", "--json",
                                 *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def posemb_refusal(path: str) -> str:
    """stderr of a refused ``inspect --config`` (exit 2, one line, nothing on stdout)."""
    result = runner.invoke(app, ["inspect", "--config", path, "--device", "cpu", "--json"])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output and result.stderr.count("\n") == 1
    return result.stderr


def rotary_reference(module: str, cls: str, config, layer_type: str | None = None) -> tuple[np.ndarray, float]:
    """``inv_freq`` and ``attention_scaling`` of the family's own rotary module, built from ``config``."""
    rotary = getattr(importlib.import_module(f"transformers.models.{module}"), cls)(config)
    prefix = "" if layer_type is None else f"{layer_type}_"
    return (getattr(rotary, f"{prefix}inv_freq").double().numpy(),
            float(getattr(rotary, f"{prefix}attention_scaling")))


def init_reference(config, rope_type: str, **kwargs) -> tuple[np.ndarray, float]:
    """transformers' ``ROPE_INIT_FUNCTIONS[rope_type](config, 'cpu', **kwargs)``."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    inv_freq, attention = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", **kwargs)
    return inv_freq.double().numpy(), float(attention)


def band_values(scheme: dict, key: str = "inv_freq") -> np.ndarray:
    return np.array([band[key] for band in scheme["bands"]])


def assert_matches(scheme: dict, reference: tuple[np.ndarray, float], key: str = "inv_freq") -> None:
    """posemb's bands and attention factor equal transformers' to a relative 1e-5."""
    inv_freq, attention = reference
    np.testing.assert_allclose(band_values(scheme, key), inv_freq, rtol=RTOL)
    np.testing.assert_allclose(scheme["attention_factor"], attention, rtol=RTOL)
