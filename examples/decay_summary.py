"""Read `posemb compare --json` on stdin and say, per scheme, how fast neighbours decorrelate.

    posemb compare --dim 64 --ctx 512 --json | python examples/decay_summary.py
"""

import json
import sys


def main() -> None:
    doc = json.load(sys.stdin)
    config = doc["config"]
    print(f"D={config['dim']} ctx={config['ctx']} on {config['device']} ({config['dtype']})")
    for entry in doc["schemes"]:
        curve = entry["neighbour_similarity"]
        first, last = curve[0], curve[-1]
        params = entry["params"]
        print(f"{entry['scheme']:>12}: +{params['position']:,} params "
              f"({100 * params['overhead']:.2f}% of the token table); "
              f"cos at k={first['offset']} is {first['mean']:.4f}, at k={last['offset']} is {last['mean']:.4f}")
        below = [row["offset"] for row in curve if row["mean"] is not None and row["mean"] < 0.5]
        if below:
            print(f"{'':>12}  neighbours fall below cos 0.5 at offset {below[0]}")
        else:
            print(f"{'':>12}  neighbours stay above cos 0.5 up to offset {last['offset']}")


if __name__ == "__main__":
    main()
