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


def stat_fields(pid):
    """The fields of /proc/PID/stat after the command name (state, ppid, ...); None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def tree(pid):
    """pid and all its live descendants, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(int(entry))
            if fields:
                parents[int(entry)] = int(fields[1])
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


PF_EXITING = 0x4  # include/linux/sched.h: set as a process starts to exit, before it unmaps


def states(pids):
    """Each pid's state: "alive", "exiting" (unmapping its memory) or "dead" (a zombie, or gone)."""
    result = {}
    for pid in pids:
        fields = stat_fields(pid)
        if not fields or fields[0] in ("Z", "X", "x"):
            result[pid] = "dead"
        else:
            result[pid] = "exiting" if int(fields[6]) & PF_EXITING else "alive"
    return result


class TreePeak:
    """The peak PSS of a process tree, sampled so as to disturb the tree little.

    A process's PSS (`smaps_rollup`) costs a walk of its page tables: 4-7 ms for a web process,
    about 40 ms for the whole tree at four jobs. Read every 50 ms, that took a quarter of one of
    the two cores from the processes being measured. A process's resident size (`VmRSS` in
    `status`) is a counter: 0.1 ms. So each sample estimates every process's PSS as its PSS at
    its last read plus the growth of its resident size since (a new process's PSS is read at
    once), and reads every process's PSS only when the tree's estimate comes within MARGIN KB of
    the peak, or FULL seconds after the last such read. Checked against reading every process
    every 50 ms (185 pages): the same peaks within the run-to-run spread; an estimate from
    anonymous memory alone read 10-20 MB low (shared memory and the file pages of new processes
    grow too).

    A sample taken while a process of the tree exits is dropped (`dropped` counts them): the
    processes are read one after another, and the pages an exiting process shared move to the
    others' PSS as it unmaps them, so a read of it before and of them after counts those pages
    twice. pageheight renews its web processes every few pages, and at two jobs the highest
    samples were such reads: an exiting web process still at 100-116 MB PSS with its anonymous
    memory already freed, next to the others at their full share.
    """
    FULL = 1.0
    MARGIN = 8 * 1024

    def __init__(self, root):
        self.root = root
        self.peak = 0
        self.read_at = None
        self.known = {}  # pid: (PSS, VmRSS) at its last read, KB
        self.dropped = 0  # samples taken while a process of the tree exited

    def read(self, pid):
        self.known[pid] = (rollup(pid, "Pss"), proc_kb(pid, "status", "VmRSS"))
        return self.known[pid][0]

    def sample(self):
        """Takes a sample; returns the peak so far (KB)."""
        now = time.monotonic()
        pids = tree(self.root)
        if self.read_at is not None and now - self.read_at < self.FULL:
            estimate = 0
            for pid in pids:
                if pid in self.known:
                    pss, rss = self.known[pid]
                    estimate += pss + proc_kb(pid, "status", "VmRSS") - rss
                else:
                    estimate += self.read(pid)
            if estimate < self.peak - self.MARGIN:
                return self.peak
        self.known = {}
        before = states(pids)
        total = sum(self.read(pid) for pid in pids)
        after = states(pids)
        if "exiting" in before.values() or after != before:
            self.known = {}
            self.dropped += 1
            return self.peak
        self.peak = max(self.peak, total)
        self.read_at = now
        return self.peak


def run(arguments, sample_memory=False):
    """Runs pageheight; returns (wall seconds, report or None, peak tree PSS KB, peak main RSS KB)."""
    start = time.monotonic()
    process = subprocess.Popen([BINARY] + arguments, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=ENV)
    peak_pss = peak_rss = 0
    if sample_memory:
        sampler = TreePeak(process.pid)
        while process.poll() is None:
            peak_pss = sampler.sample()
            peak_rss = max(peak_rss, proc_kb(process.pid, "status", "VmRSS"))
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
