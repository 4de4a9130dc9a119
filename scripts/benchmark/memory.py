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
from core import BINARY, CORPUS, ENV, proc_kb, rollup, tree  # noqa: E402

BINARY = os.environ.get("PAGEHEIGHT_BENCH_BINARY", BINARY)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=1000)
    parser.add_argument("--rule", default="quick", choices=["settled", "quick"])
    parser.add_argument("--no-fit", action="store_true", help="pass --no-fit (the view stays 844 px tall)")
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
    if arguments.no_fit:
        command.insert(-1, "--no-fit")
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    end = max(101, arguments.pages - 20)  # sampled before the process exits
    marks = {100: None, arguments.pages // 2: None, end: None}
    # RSS of the pageheight process sampled every 0.1 s, by pages done: the instant value swings
    # with the views in flight (a fit-mode view is an image surface up to 16384 px tall), so the
    # flatness figure compares medians over a window of pages, and peak RSS (VmHWM) at each mark.
    samples = []
    done = 0
    while process.poll() is None:
        try:
            with open(out) as f:
                done = sum(1 for _ in f)
        except OSError:
            done = 0
        rss = rollup(process.pid, "Rss")
        if rss:
            samples.append((done, rss))
        for mark in marks:
            if marks[mark] is None and done >= mark - 5:
                pss = sum(rollup(p, "Pss") for p in tree(process.pid))
                marks[mark] = (done, rss, pss, proc_kb(process.pid, "status", "VmHWM"))
        time.sleep(0.1)
    print(f"{arguments.pages} pages ({len(corpus)} corpus pages repeated), --until {arguments.rule}"
          f"{' --no-fit' if arguments.no_fit else ''}, default jobs, offline: "
          f"{time.monotonic() - start:.0f} s, exit {process.returncode}\n")
    print("| pages done | pageheight RSS | median RSS, pages done within 50 before | peak RSS so far (VmHWM) | whole tree PSS |")
    print("| --- | --- | --- | --- | --- |")
    medians = {}
    for mark, value in sorted(marks.items()):
        if value:
            window = sorted(r for d, r in samples if value[0] - 50 <= d <= value[0])
            medians[mark] = window[len(window) // 2] if window else value[1]
            print(f"| {value[0]} | {value[1] / 1024:.0f} MB | {medians[mark] / 1024:.0f} MB | "
                  f"{value[3] / 1024:.0f} MB | {value[2] / 1024:.0f} MB |")
    first, last = marks[100], marks[end]
    if first and last:
        print(f"\nAfter {last[0]} pages against after {first[0]}: median RSS "
              f"{100 * (medians[end] - medians[100]) / medians[100]:+.1f}%, peak RSS (VmHWM) "
              f"{100 * (last[3] - first[3]) / first[3]:+.1f}%")


if __name__ == "__main__":
    main()
