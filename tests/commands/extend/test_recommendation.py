"""The recommendation for the user's situation: no training by default, the publisher's recipe where a model card
gives one, graded fine-tuning labels, and --fine-tune ranking for training. Each promise is checked by a plain loop
over every published layout at 2x and 4x, written here from the rule in the docs."""

from __future__ import annotations

import json
import shutil

import pytest
from posemb_cli import api
from posemb_cli.commands.extend.predict import run_extend
from posemb_cli.commands.extend.publisher import read_recipe

from tests.commands.extend.test_config_edit import FILES, PUBLISHED, published

pytest.importorskip("torch")

QWEN_CARD = """### Processing Long Texts

For supported frameworks, you could add the following to `config.json` to enable YaRN:
```json
{
  ...,
  "rope_scaling": {
    "factor": 4.0,
    "original_max_position_embeddings": 32768,
    "type": "yarn"
  }
}
```
"""


def _qwen(tmp_path, card: str | None = QWEN_CARD):
    folder = tmp_path / "Qwen2.5-7B-Instruct"
    folder.mkdir()
    shutil.copy(PUBLISHED / "qwen2.5-7b-instruct.json", folder / "config.json")
    if card is not None:
        (folder / "README.md").write_text(card)
    return folder


def test_the_card_recipe_is_read(tmp_path):
    recipe = read_recipe(str(_qwen(tmp_path)), "config")
    assert (recipe.scaling, recipe.factor, recipe.original, recipe.reach) == ("yarn", 4.0, 32768, 131072)
    assert recipe.source == "Qwen2.5-7B-Instruct/README.md"
    assert recipe.covers("yarn", 4.0, 131072) and not recipe.covers("yarn", 8.0, 262144)
    assert not recipe.covers("llama3", 4.0, 131072) and not recipe.covers("yarn", 2.0, 65536)


@pytest.mark.parametrize("card", [None, "no block here", '"rope_scaling": {"type": "yarn", "factor": "four"}',
                                  '"rope_scaling": {not json}'])
def test_no_recipe_without_a_readable_block(tmp_path, card):
    assert read_recipe(str(_qwen(tmp_path, card)), "config") is None


def test_qwen_at_131072_gets_its_publishers_yarn(tmp_path):
    """The publisher's recipe, used without training, is recommended; --fine-tune ranks by the prediction."""
    folder = _qwen(tmp_path)
    report = api.extend(str(folder), to=131072)
    document = json.loads(report.to_json())
    recommendation = document["recommendation"]
    assert (recommendation["scaling"], recommendation["factor"]) == ("yarn", 4.0)
    assert recommendation["rope_parameters"]["original_max_position_embeddings"] == 32768
    assert recommendation["needs_fine_tuning"] == "no" and recommendation["for"] == "no training"
    assert recommendation["publisher_recipe"]["reach"] == 131072
    yarn = next(one for one in document["candidates"] if one["scaling"] == "yarn")
    assert yarn["published_recipe"] is True
    tuned = api.extend(str(folder), to=131072, fine_tune=True)
    first = min(tuned.candidates, key=lambda one: one.rank)
    assert tuned.recommendation["scaling"] == first.scaling and tuned.recommendation["for"] == "fine-tuning"


@pytest.mark.parametrize("to", [40000, 65536, 98304])
def test_below_the_cards_reach_its_scaling_is_recommended(tmp_path, to):
    """Below the card's reach, the card's scaling at the factor that reaches L, where the prediction cannot tell it
    from its first (a brute-force pick over the ranking, written here); the why names the card and --factor."""
    folder = _qwen(tmp_path)
    report = api.extend(str(folder), to=to)
    ranked = sorted(report.candidates, key=lambda one: one.rank)
    first = ranked[0]
    yarn = next(one for one in ranked if one.scaling == "yarn")
    assert yarn.factor == pytest.approx(to / 32768) and not yarn.published_recipe
    recommendation = report.recommendation
    if to == 65536:  # the case this rule is for: the refitted prediction ranks ntk first there, within reach of yarn
        assert first.scaling != "yarn" and yarn.predicted.window.value <= first.predicted.window.high
    if yarn.predicted.window.value <= first.predicted.window.high:
        assert recommendation["scaling"] == "yarn" and recommendation["factor"] == pytest.approx(to / 32768)
        if first.scaling != "yarn":
            assert "Qwen2.5-7B-Instruct/README.md" in recommendation["why"] and "--factor 4" in recommendation["why"]
    else:
        assert recommendation["scaling"] != "yarn" or first.scaling == "yarn"


def test_the_factor_the_why_names_gives_the_cards_own_recipe(tmp_path):
    """The advice below the reach (--factor 4) does give the card's recipe: yarn x4 from 32,768, marked published."""
    report = api.extend(str(_qwen(tmp_path)), to=65536, factor=4)
    recommendation = report.recommendation
    assert (recommendation["scaling"], recommendation["factor"]) == ("yarn", 4.0)
    assert recommendation["rope_parameters"]["original_max_position_embeddings"] == 32768
    assert next(one for one in report.candidates if one.scaling == "yarn").published_recipe


def _label(scaling: str, stretch: float) -> str:
    """The graded rule, written out: training-free scalings hold to about 2x, the rest need training."""
    if scaling in ("ntk", "dynamic", "yarn"):
        return "no" if stretch <= 2 else "beyond 2x"
    return "yes"


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("times", [2, 4])
def test_no_training_is_recommended_where_the_prediction_allows(name, times):
    config = published(name)
    text = config.get("text_config", config) if "hidden_size" not in config else config
    to = times * int(text.get("max_position_embeddings") or 131072)
    report = run_extend(str(PUBLISHED / name), to=to)
    recommendation = report.recommendation
    if recommendation.get("rope_needs_no_change"):
        return
    ranked = sorted(report.candidates, key=lambda one: one.rank)
    trained = min(one.trained_length for one in report.sets if one.needs_extension)
    for one in ranked:
        assert one.needs_fine_tuning == _label(one.scaling, to / trained), (name, one.scaling)
    first = ranked[0]
    chosen = next(one for one in ranked if one.scaling == recommendation["scaling"])
    if first.predicted is None:
        return
    # brute force over the ranking: the first candidate needing no training (else only past 2x) within the interval
    expected = first
    for level in ("no", "beyond 2x"):
        pool = [one for one in ranked if one.needs_fine_tuning == level]
        if pool:
            if pool[0].predicted.window.value <= first.predicted.window.high:
                expected = pool[0]
            break
    if report.source["kind"] != "gguf":
        assert chosen.scaling == expected.scaling, (name, times, chosen.scaling, expected.scaling)
    if chosen is not first:
        assert first.scaling in recommendation["why"] and "--fine-tune" in recommendation["why"]
