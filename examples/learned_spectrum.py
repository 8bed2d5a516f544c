"""How does a learned position table's spectrum look? The top principal components, their share and period.

    python examples/learned_spectrum.py gpt2/ [spectrum.png]
"""

import sys

import posemb_cli as posemb


def main(path: str, figure: str | None = None) -> None:
    report = posemb.inspect_model(path, no_plot=figure is None)
    spectrum = report.to_dict()["spectrum"]
    print(f"{spectrum['rows']} positions, {spectrum['method']}")
    for index, (share, period) in enumerate(zip(spectrum["explained_variance"], spectrum["periods"], strict=True)):
        print(f"  PC{index + 1}: {100 * share:5.2f}% of the variance, a cycle every {period:.4g} rows")
    top = sum(spectrum["explained_variance"][:2])
    print("smooth, ordered positions" if top > 0.2 else "no dominant structure (close to a fresh random table)")
    if figure:
        report.plot().savefig(figure)  # needs matplotlib: pip install 'posemb[plot]'


if __name__ == "__main__":
    main(*sys.argv[1:3])
