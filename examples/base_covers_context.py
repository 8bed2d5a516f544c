"""Does a model's RoPE base cover the distances its layers attend? One answer per RoPE set (a sliding set: its window).

    python examples/base_covers_context.py Meta-Llama-3.1-8B/config.json    (or a model.gguf)
"""

import sys

import posemb_cli as posemb


def main(path: str) -> None:
    report = posemb.inspect_model(path, max_offset=1, no_plot=True).to_dict()
    for entry in report.get("layer_types") or [report]:
        source, bound = entry["source"], entry["context_bound"]
        attends, dip = source["attends_to"], bound["dip"]
        verdict = "covered" if bound["covers"] else (
            f"NOT covered: first negative at {bound['first_negative']:,}, lowest {dip['depth']:.1%} of the pairs at "
            f"{dip['at']:,}; base {bound['min_base']:,.0f} covers, as does every grid base above it")
        print(f"{source['rope_set']} ({len(source['rope_set_layers'])} layers): base {source['rope_theta']:g}, "
              f"distances below {attends['distance']:,} ({attends['why']}): {verdict}")


if __name__ == "__main__":
    main(sys.argv[1])
