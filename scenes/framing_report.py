"""Print how much of the content area each scene's figure fills over its running time (probe, no video).

python -m scenes.framing_report [ID ...]
"""

from __future__ import annotations

import statistics
import sys

from scenes.framing import fill_over_time, plays
from scenes.lesson import LESSON
from scenes.probe import probe


def main(ids: list[str]) -> None:
    shares = []
    for entry in LESSON:
        if ids and entry.id not in ids:
            continue
        share = fill_over_time(plays([snap.frame for snap in probe(entry)]))
        shares.append(share)
        print(f"{entry.id:26s} {share:4.0%}", flush=True)
    if shares:
        full = sum(s >= 0.5 for s in shares)
        print(f"{'median':26s} {statistics.median(shares):4.0%}  ({full} of {len(shares)} at 50 % or more)")


if __name__ == "__main__":
    main(sys.argv[1:])
