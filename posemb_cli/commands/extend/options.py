"""`posemb extend`'s options: the MODEL and target length, the candidates, and the measurement on the model."""

from __future__ import annotations

from posemb_cli.core.dtypes import DTYPES
from posemb_cli.request import groups
from posemb_cli.request.option import Option

MEASURE_PANEL = "Measure on the model"

OPTIONS = (
    Option("model", (), str, argument=True, metavar="MODEL", show_default=False,
           help="A config.json, a model directory, a .gguf file, a .safetensors/.bin file with its config.json "
                "beside it, a Hugging Face id in the local cache (org/name, @revision) or ollama:NAME. With weights, "
                "each pair is weighted by the heads' query and key weights."),
    Option("to", ("--to",), int, metavar="L", show_default=False, panel=groups.REAL_PANEL,
           help="The target length L, past the model's trained length."),
    Option("scalings", ("--scalings",), str | None, None, items=str, metavar="NAME,...", show_default=False,
           panel=groups.REAL_PANEL,
           help="Candidates among none, linear, ntk, dynamic, yarn, llama3, longrope; default: every one the model "
                "can load (longrope where it carries factors)."),
    Option("factor", ("--factor",), float | None, None, show_default=False, panel=groups.REAL_PANEL,
           help="The factor every candidate takes; default: the one that reaches L (dynamic: the one whose stretch "
                "at L does)."),
    Option("fine_tune", ("--fine-tune",), bool, False, panel=groups.REAL_PANEL,
           help="You will fine-tune the model at L: recommend the best predicted candidate whatever training it "
                "needs. Default: the publisher's recipe for L where the model card (README.md) gives one, else the "
                "best candidate that needs no training where one lies within the prediction's interval of the best."),
    Option("write_config", ("--write-config",), str | None, None, metavar="PATH", show_default=False,
           panel=groups.REAL_PANEL,
           help="Write a copy of the model's config.json with the recommended candidate applied (or the one "
                "--scalings names) as transformers reads it: what would override it removed, the lengths set so "
                "that its validation is silent, no other key changed."),
    Option("text", ("--text",), list[str] | None, None, metavar="FILE", show_default=False, panel=MEASURE_PANEL,
           help="Measure each candidate on the model: the loss at every position of the first L tokens of this UTF-8 "
                "text under the model's own tokenizer. Repeat --text for more documents, joined by its end-of-sequence "
                "token. Needs: pip install 'posemb[measure]'."),
    Option("ids", ("--ids",), str | None, None, metavar="FILE", show_default=False, panel=MEASURE_PANEL,
           help="Measure on token ids instead of a text: one row of at least L ids, .npy or JSON ('-' reads stdin)."),
    Option("save_ids", ("--save-ids",), str | None, None, metavar="FILE", show_default=False, panel=MEASURE_PANEL,
           help="Write the ids of every copy-probe forward the measurement ran (one row per candidate, the probes "
                "written over the text; each probe names its row; the loss runs on the ids given) to FILE.npy or "
                "FILE.json. Only with --text or --ids."),
    Option("runtime", ("--runtime",), str, "auto", choices=("auto", "transformers", "llama.cpp"), panel=MEASURE_PANEL,
           help="What runs the model: llama.cpp (a .gguf file as stored, with the llama.cpp flags printed for each "
                "candidate; needs pip install 'posemb[llamacpp]'; a candidate it has no flags for is left out) or "
                "transformers. auto: llama.cpp for a .gguf file where its extra is installed, else transformers. "
                "Only with --text or --ids."),
    Option("device", ("--device",), str, "auto", metavar="auto|cpu|cuda|cuda:N", panel=MEASURE_PANEL,
           help="Where the measured model runs; auto: CUDA when present (a model larger than one GPU spread over "
                "all of them by accelerate), else the CPU. Only with --text or --ids."),
    Option("dtype", ("--dtype",), str, "float32", choices=tuple(DTYPES), panel=MEASURE_PANEL,
           help="The dtype the measured model runs in. Only with --text or --ids."),
    Option("top", ("--top",), int, 3, panel=groups.OUTPUT_PANEL,
           help="Heads listed as most at risk under each candidate."),
    Option("no_plot", ("--no-plot",), bool, False, panel=groups.OUTPUT_PANEL,
           help="Leave out the terminal pictures: the strips of pairs coloured by class and the measured loss "
                "curves."),
    *groups.PLOT, *groups.OUTPUT,
)
