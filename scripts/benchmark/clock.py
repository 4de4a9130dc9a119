#!/usr/bin/env python3
"""The virtual clock's benchmark (issue 33): pageheight's default rule on the page's virtual clock
against the PyGObject + WebKit2 peer running the reader app's whole 5.3 s schedule, at equal
parallelism, and how often the virtual clock gives the schedule's answer.

On the 138 saved pages of ../shared/corpus/articles (readability/*/source.html, aeb/*/source.html;
width 390; pageheight with --offline=block, the peer in a network namespace with only loopback),
for each N in --jobs (default 1 and 4), in one run, alternating:

  pageheight batch --jobs N --clock virtual      (default rule: settled)
  the peer, N processes of one view each over a slice of the pages (--rule schedule)
  pageheight batch --jobs N --clock virtual      (again: the median of the two is the figure)

and once, at the largest N, the reference: pageheight batch --clock real --until schedule.

For each run: wall time, pages per second, the sum of the pages' own wall-clock times
(pageheight: timings.realTotal, else timings.total; the peer: its per-page seconds) and "between
pages": (wall x N - that sum) / pages, the time per page spent outside any page's own
measurement. Then the agreement: pages whose virtual-clock height differs from the reference's,
with both heights and statuses.

    python3 scripts/benchmark/clock.py --markdown clock.md --raw clock.json
    python3 scripts/benchmark/clock.py --pages 12 --jobs 4      # a quick trial
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core import BINARY, CORPUS, ENV  # noqa: E402

BINARY = os.environ.get("PAGEHEIGHT_BENCH_BINARY", BINARY)
PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers", "pygobject_peer.py")
PEER_PYTHON = os.environ.get("PAGEHEIGHT_BENCH_PYTHON", "/usr/bin/python3")  # Debian's: it has PyGObject
WIDTH = 390


def corpus_pages(limit=None):
    pages = sorted(glob.glob(os.path.join(CORPUS, "readability", "*", "source.html"))
                   + glob.glob(os.path.join(CORPUS, "aeb", "*", "source.html")))
    if limit and limit < len(pages):
        pages = [pages[i * len(pages) // limit] for i in range(limit)]
    return pages


def read_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def run_pageheight(pages, jobs, extra, workdir, label):
    listing = os.path.join(workdir, "list.txt")
    with open(listing, "w") as f:
        f.write("\n".join(pages) + "\n")
    out = os.path.join(workdir, f"{label}.jsonl")
    if os.path.exists(out):
        os.remove(out)
    command = [BINARY, "batch", "--jobs", str(jobs), "--width", str(WIDTH), "--offline=block",
               "--no-progress", "--out", out] + extra + [listing]
    started = time.monotonic()
    subprocess.run(command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    results = {}
    own = 0.0
    for report in read_lines(out):
        timings = report.get("timings", {})
        own += timings.get("realTotal") or timings.get("total") or 0
        results[report["url"].replace("file://", "")] = (report.get("height"), report.get("status"))
    return {"label": label, "jobs": jobs, "wall": wall, "own": own, "pages": len(results), "results": results}


def run_peer(pages, jobs, workdir, label, rule="schedule"):
    processes, outs = [], []
    started = time.monotonic()
    for index in range(jobs):
        part = pages[index::jobs]
        listing = os.path.join(workdir, f"peer-{index}.txt")
        with open(listing, "w") as f:
            f.write("\n".join(part) + "\n")
        out = os.path.join(workdir, f"{label}-{index}.jsonl")
        if os.path.exists(out):
            os.remove(out)
        outs.append(out)
        environment = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
        processes.append(subprocess.Popen(
            [PEER_PYTHON, PEER, "--rule", rule, "--width", str(WIDTH), "--out", out, "--list", listing],
            env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for process in processes:
        process.wait()
    wall = time.monotonic() - started
    own, results = 0.0, {}
    for out in outs:
        for record in read_lines(out) if os.path.exists(out) else []:
            own += record.get("seconds") or 0
            results[record["page"].replace("file://", "")] = (record.get("height"), "error" if record.get("error") else "ok")
    return {"label": label, "jobs": jobs, "wall": wall, "own": own, "pages": len(results), "results": results}


def row(run, count):
    between = (run["wall"] * run["jobs"] - run["own"]) / max(1, count) * 1000
    return (f"| {run['label']} | {run['jobs']} | {run['wall']:.1f} | {count / run['wall']:.2f} | {run['own']:.1f} "
            f"| {between:.0f} | {run['pages']} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, help="a spread subset of this many pages (a trial)")
    parser.add_argument("--jobs", default="1,4", help="parallelism for both sides, comma-separated (default 1,4)")
    parser.add_argument("--markdown", help="also write the Markdown section here")
    parser.add_argument("--raw", help="write every run's per-page results as JSON here")
    parser.add_argument("--rule", choices=["default", "quick"], default="default",
                        help="default: pageheight's default rule against the peer's whole schedule, and the "
                             "agreement with --clock real --until schedule; quick: --until quick against the "
                             "peer's quick rule, and the agreement between the two (issue 29)")
    arguments = parser.parse_args()
    pages = corpus_pages(arguments.pages)
    jobs_list = [int(j) for j in arguments.jobs.split(",")]
    quick = arguments.rule == "quick"
    mine_args = ["--until", "quick"] if quick else ["--clock", "virtual"]
    mine_label = "pageheight --until quick" if quick else "pageheight virtual"
    peer_label = "PyGObject peer, quick rule" if quick else "PyGObject peer, 5.3 s schedule"
    runs = []
    with tempfile.TemporaryDirectory(prefix="pageheight-clock-bench-") as workdir:
        for jobs in jobs_list:
            print(f"N = {jobs}: {mine_label}, {peer_label}, {mine_label}", file=sys.stderr)
            runs.append(run_pageheight(pages, jobs, mine_args, workdir, f"{mine_label} #1"))
            runs.append(run_peer(pages, jobs, workdir, peer_label, "quick" if quick else "schedule"))
            runs.append(run_pageheight(pages, jobs, mine_args, workdir, f"{mine_label} #2"))
        if quick:
            reference = [r for r in runs if r["label"] == peer_label][-1]
        else:
            reference_jobs = max(jobs_list)
            print(f"reference: pageheight --clock real --until schedule, N = {reference_jobs}", file=sys.stderr)
            reference = run_pageheight(pages, reference_jobs, ["--clock", "real", "--until", "schedule"], workdir,
                                       "pageheight real, --until schedule (reference)")
    count = len(pages)
    lines = [f"{count} pages of ../shared/corpus/articles (readability and aeb source pages), width 390, "
             f"pageheight --offline=block, the peer with loopback only. Between pages = (wall x N - sum of the pages' "
             f"own wall-clock times) / pages.", "",
             "| contender | N | wall s | pages/s | sum of own s | between pages, ms/page | pages |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    lines += [row(run, count) for run in runs + ([] if quick else [reference])]
    lines.append("")
    for jobs in jobs_list:
        mine = [r for r in runs if r["jobs"] == jobs and r["label"].startswith("pageheight")]
        peer = [r for r in runs if r["jobs"] == jobs and r["label"].startswith("PyGObject")][0]
        rate = statistics.median(count / r["wall"] for r in mine)
        between = statistics.median((r["wall"] * r["jobs"] - r["own"]) / count * 1000 for r in mine)
        lines.append(f"- N = {jobs}: {mine_label} {rate:.2f} pages/s, between pages {between:.0f} ms/page (median of {len(mine)}), peer "
                     f"{count / peer['wall']:.2f}: **{rate / (count / peer['wall']):.1f}x**")
    virtual = runs[-1]["results"]
    differ = []
    for page, (height, status) in sorted(reference["results"].items()):
        mine = virtual.get(page)
        rounded = lambda h: None if h is None else round(h)  # noqa: E731
        # The peer's statuses are ok or error only: in quick mode the heights are compared.
        if mine is None or rounded(mine[0]) != rounded(height) or (not quick and mine[1] != status):
            differ.append((page, mine, (height, status)))
    same = count - len(differ)
    lines += ["", f"Agreement with {reference['label']} (N = {reference['jobs']}): {same} of {count} pages "
              f"({100 * same / count:.1f}%) give the same height and status in {runs[-1]['label']} "
              f"(N = {runs[-1]['jobs']}).", ""]
    if differ:
        lines += ["| page | pageheight | reference |", "| --- | --- | --- |"]
        for page, mine, theirs in differ:
            name = os.path.relpath(page, CORPUS)
            lines.append(f"| {name} | {mine[0] if mine else '-'} {mine[1] if mine else ''} | {theirs[0]} {theirs[1]} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if arguments.markdown:
        with open(arguments.markdown, "w") as f:
            f.write(text)
    if arguments.raw:
        with open(arguments.raw, "w") as f:
            json.dump({"runs": runs + ([] if quick else [reference])}, f, indent=1)


if __name__ == "__main__":
    main()
