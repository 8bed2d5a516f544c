"""Does a model's RoPE base cover its context? One answer per RoPE set, against the distances its layers attend.

    python examples/base_covers_context.py Meta-Llama-3.1-8B/config.json    (or a model.gguf)
"""

import sys

import posemb_cli as posemb


def main(path: str) -> None:
    report = posemb.inspect_model(path, max_offset=1, no_plot=True).to_dict()
    groups = {group["rope_set"]: group for group in report["model"]["layer_groups"] if group["rope_set"]}
    for entry in report.get("layer_types") or [report]:
        source, bound = entry["source"], entry["context_bound"]
        group = groups[source["rope_set"]]
        reach = group["window"] or bound["ctx"]  # a sliding layer only ever sees its window
        first = bound["first_negative"]
        covered = first is None or first > reach
        verdict = "covered" if covered else f"NOT covered (a base of {bound['min_base']:.4g} would be)"
        print(f"{source['rope_set']} ({len(group['layers'])} layers): base {source['rope_theta']:g} over "
              f"{reach:,} positions: sum cos(m theta) first negative at {first or 'no distance scanned'}: {verdict}")


if __name__ == "__main__":
    main(sys.argv[1])
