#!/usr/bin/env python3
"""pageheight core benchmark: cold start, verdict latency, memory on a 50,000 px article.

Runs the release binary as a user would (no DISPLAY: it starts its own Xvfb) and prints a
Markdown table for BENCHMARKS.md. Medians over repeated runs; the machine is shared and
noisy, so single runs mean little.
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # scripts/benchmark/core.py
BINARY = os.path.join(ROOT, ".build", "release", "pageheight")
PAGES = os.path.join(ROOT, "Pages")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "articles")
ENV = {k: v for k, v in os.environ.items() if k != "DISPLAY"}


def tree(pid):
    """pid and all its live descendants, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    result, frontier = [pid], [pid]
    while frontier:
        current = frontier.pop()
        for child, parent in parents.items():
            if parent == current:
                result.append(child)
                frontier.append(child)
    return result


def proc_kb(pid, name, field):
    """A kB field of /proc/PID/NAME (`smaps_rollup`, `status`); 0 when the process is gone."""
    try:
        with open(f"/proc/{pid}/{name}") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def rollup(pid, field):
    return proc_kb(pid, "smaps_rollup", field)


def run(arguments, sample_memory=False):
    """Runs pageheight; returns (wall seconds, report or None, peak tree PSS KB, peak main RSS KB)."""
    start = time.monotonic()
    process = subprocess.Popen([BINARY] + arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    peak_pss = peak_rss = 0
    if sample_memory:
        while process.poll() is None:
            pids = tree(process.pid)
            peak_pss = max(peak_pss, sum(rollup(p, "Pss") for p in pids))
            peak_rss = max(peak_rss, rollup(process.pid, "Rss"))
            time.sleep(0.02)
    out, _ = process.communicate()
    wall = time.monotonic() - start
    report = None
    if "--json" in arguments:
        try:
            report = json.loads(out)
        except ValueError:
            pass
    return wall, report, peak_pss, peak_rss


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    repeats = int(os.environ.get("BENCH_REPEATS", "10"))
    static = os.path.join(PAGES, "static.html")
    rows = []

    walls = [run([static])[0] for _ in range(repeats)]
    rows.append(("cold start to printed result, static.html (own Xvfb)", f"{median(walls):.3f} s",
                 f"min {min(walls):.3f}, max {max(walls):.3f}", "< 1.5 s"))

    verdicts = []
    for _ in range(repeats):
        _, report, _, _ = run(["--json", static])
        timings = report["timings"]
        verdicts.append(timings["settledAt"] - timings["finished"])
    rows.append(("verdict after load finished, static.html (default mode)", f"{median(verdicts):.3f} s",
                 f"min {min(verdicts):.3f}, max {max(verdicts):.3f}", "< 0.6 s"))

    article = os.path.join(PAGES, "long-article.html")
    pss, rss, heights = [], [], set()
    for _ in range(max(3, repeats // 3)):
        _, report, peak_pss, peak_rss = run(["--json", article], sample_memory=True)
        pss.append(peak_pss)
        rss.append(peak_rss)
        heights.add(report and report["height"])
    rows.append(("peak PSS of the whole tree, 50,000 px article (fit mode)", f"{median(pss) / 1024:.0f} MB",
                 f"height {sorted(heights)}; main process peak RSS {median(rss) / 1024:.0f} MB", "bounded"))

    corpus = []
    for folder in ("readability",):
        base = os.path.join(CORPUS, folder)
        if os.path.isdir(base):
            for name in sorted(os.listdir(base))[:10]:
                path = os.path.join(base, name, "reader.html")
                if os.path.exists(path):
                    corpus.append(path)
    if corpus:
        wall, _, _, _ = run(["--quiet", "0.5"] + corpus)
        rows.append((f"{len(corpus)} corpus reader.html pages in one process (sequential)",
                     f"{wall / len(corpus):.3f} s/page", f"{wall:.1f} s in all", "-"))

    print(f"Machine: {os.cpu_count()} cores, {os.uname().release}; binary: .build/release/pageheight; "
          f"{repeats} runs each, medians.\n")
    print("| measurement | median | spread / notes | target |")
    print("| --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    sys.exit(main())
