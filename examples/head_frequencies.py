"""Which RoPE frequencies do a model's heads use? Per RoPE set: where the weight sits, and the heads' labels.

    python examples/head_frequencies.py SmolLM2-135M-Instruct.Q4_1.gguf    (or model.safetensors with config.json)
"""

import sys

import posemb_cli as posemb


def main(path: str) -> None:
    report = posemb.heads(path, distances=[0, 1], no_plot=True).to_dict()
    for one in report["rope_sets"]:
        print(f"{one['name']}: {one['rotary_pairs']} pairs, critical pair {one['critical_pair']}")
    for layer in report["layers"]:
        if not layer["heads"]:
            print(f"layer {layer['layer']}: no RoPE")
            continue
        shares = [head["pair_share"] for head in layer["heads"]]
        mean = [sum(column) / len(shares) for column in zip(*shares, strict=True)]
        busiest = max(range(len(mean)), key=lambda pair: (mean[pair], -pair))
        beyond = sum(head["beyond_critical_share"] for head in layer["heads"]) / len(shares)
        labels = ", ".join(sorted({head["label"] for head in layer["heads"]}))
        print(f"layer {layer['layer']}: most weight on pair {busiest}, {100 * beyond:.0f}% beyond critical ({labels})")
    print(report["labels"])


if __name__ == "__main__":
    main(sys.argv[1])
