import pytest
import torch


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def cuda_available() -> bool:
    return torch.cuda.is_available()


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA"))]


# The files whose tests spawn processes (python -m posemb_cli, the installed script), build or run models
# (transformers' save_pretrained and forward, real GGUF files), fuzz (hypothesis), set ulimits or rerun the
# documents' examples: marked slow, so that `python -m pytest -m "not slow"` is the quick loop.
SLOW_FILES = {
    "cli/test_examples.py", "cli/test_fuzz_limits.py", "cli/test_installed.py", "cli/test_model_families.py",
    "cli/test_model_names.py", "cli/test_promise_kinds.py", "cli/test_promise_properties.py",
    "cli/test_relative_bias_cli.py", "cli/test_startup.py", "cli/test_terminal_progress.py",
    "cli/test_whole_figures.py", "cli/test_fuzz_inputs.py", "commands/doctor/test_zoo.py",
    "commands/doctor/test_without_torch.py", "commands/extend/test_api_measure.py", "commands/extend/test_cli.py",
    "commands/extend/test_measure.py", "commands/extend/test_retrieval.py", "commands/extend/test_transformers.py",
    "commands/extend/test_real_gguf.py", "commands/extend/test_measure_real.py", "commands/heads/test_cli.py",
    "commands/heads/test_gguf.py", "commands/heads/test_read_ahead.py", "commands/heads/test_real_gguf.py",
    "commands/heads/test_transformers.py", "commands/padding/test_models.py", "run/test_streaming.py",
    "runtime/test_interrupt_and_memory.py", "runtime/test_measure.py", "runtime/test_refusals.py",
    "runtime/test_retrieval_forward.py", "runtime/test_rotary_check.py", "runtime/test_transformers_gguf.py",
    "runtime/test_transformers_losses.py", "sources/bounds/test_input_limits.py",
    "sources/bounds/test_json_beside_torch.py", "sources/bounds/test_parse_memory.py", "test_readme_examples.py",
    "test_architecture.py",
}


def pytest_collection_modifyitems(config, items):
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        relative = os.path.relpath(str(item.fspath), here).replace(os.sep, "/")
        if relative in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
