#!/usr/bin/env python3
"""pageheight batch memory over 1000 pages: RSS of the pageheight process, and PSS of its whole
tree, when 100 and when 1000 pages are done (the corpus repeated, offline, default jobs).

    python3 scripts/benchmark/memory.py [--pages 1000] [--rule settled|quick]
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core import BINARY, CORPUS, ENV, rollup, tree  # noqa: E402

BINARY = os.environ.get("PAGEHEIGHT_BENCH_BINARY", BINARY)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--rule", default="quick", choices=["settled", "quick"])
    arguments = parser.parse_args()
    corpus = sorted(glob.glob(os.path.join(CORPUS, "readability", "*", "reader.html"))
                    + glob.glob(os.path.join(CORPUS, "readability", "*", "source.html"))
                    + glob.glob(os.path.join(CORPUS, "aeb", "*", "source.html")))
    pages = [corpus[i % len(corpus)] for i in range(arguments.pages)]
    work = tempfile.mkdtemp(prefix="pageheight-memory-")
    listing = os.path.join(work, "list.txt")
    out = os.path.join(work, "out.jsonl")
    with open(listing, "w") as f:
        f.write("\n".join(pages) + "\n")
    command = [BINARY, "batch", "--offline", "--no-progress", "--until", arguments.rule, "--out", out, listing]
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    end = max(101, arguments.pages - 20)  # sampled before the process exits
    marks = {100: None, arguments.pages // 2: None, end: None}
    peak_rss = 0
    done = 0
    while process.poll() is None:
        try:
            with open(out) as f:
                done = sum(1 for _ in f)
        except OSError:
            done = 0
        rss = rollup(process.pid, "Rss")
        peak_rss = max(peak_rss, rss)
        for mark in marks:
            if marks[mark] is None and done >= mark - 5:
                pss = sum(rollup(p, "Pss") for p in tree(process.pid))
                marks[mark] = (done, rss, pss, time.monotonic() - start)
        time.sleep(0.1)
    print(f"{arguments.pages} pages ({len(corpus)} corpus pages repeated), --until {arguments.rule}, "
          f"default jobs, offline: {time.monotonic() - start:.0f} s, exit {process.returncode}\n")
    print("| pages done | pageheight RSS | whole tree PSS |")
    print("| --- | --- | --- |")
    for mark, value in sorted(marks.items()):
        if value:
            print(f"| {value[0]} | {value[1] / 1024:.0f} MB | {value[2] / 1024:.0f} MB |")
    first, last = marks[100], marks[end]
    if first and last:
        print(f"\nRSS after {last[0]} pages is {100 * (last[1] - first[1]) / first[1]:+.1f}% of RSS after {first[0]}; "
              f"peak RSS {peak_rss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
