#!/usr/bin/env python3
"""The virtual clock's benchmark (issues 33, 48): pageheight's default rule on the page's virtual
clock against two peers that run the reader app's whole schedule, at equal parallelism, and how
often the virtual clock gives the schedule's answer.

The peers (--peers, default both):
  pygobject     PyGObject + WebKit2, one view per process, the 5.3 s schedule on the real clock
                (--rule schedule): the same engine, so its heights are comparable
  chromium-vt   headless Chromium on its own virtual time over the DevTools protocol, one browser
                per process, a budget of 5.4 s of page time per page (issue 48): Chromium's
                engine, so its heights are not pageheight's; compare time, not heights

On the 138 saved pages of ../shared/corpus/articles (readability/*/source.html, aeb/*/source.html;
width 390; pageheight with --offline=block, the peers in a network namespace with only loopback),
for each N in --jobs (default 1 and 4), in one run, alternating:

  pageheight batch --jobs N --clock virtual      (default rule: the whole schedule)
  each peer in turn, N processes over a slice of the pages each
  pageheight batch --jobs N --clock virtual      (again: the median of the two is the figure)

and once, at the largest N, the reference: pageheight batch --clock real --until schedule
(--no-reference skips it, and the agreement with it).

For each run: wall time, pages per second, the sum of the pages' own wall-clock times
(pageheight: timings.realTotal, else timings.total; a peer: its per-page seconds) and "between
pages": (wall x N - that sum) / pages, the time per page spent outside any page's own
measurement; the pages' own times' p50, p99 and max; at each N the ten slowest pages of
pageheight's (mean of its two runs) beside the Chromium peer's time for them. Then the agreement:
pages whose virtual-clock height differs from the reference's, with both heights and statuses.

    python3 scripts/benchmark/clock.py --markdown clock.md --raw clock.json
    python3 scripts/benchmark/clock.py --pages 12 --jobs 4      # a quick trial
    python3 scripts/benchmark/clock.py --peers chromium-vt --no-reference   # issue 48's comparison
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core import BINARY, CORPUS, ENV  # noqa: E402

BINARY = os.environ.get("PAGEHEIGHT_BENCH_BINARY", BINARY)
PEERS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers")
PEER_PYTHON = os.environ.get("PAGEHEIGHT_BENCH_PYTHON", "/usr/bin/python3")  # Debian's: it has PyGObject
WIDTH = 390
CHROMIUM_TIMEOUT = 15  # s per page: pageheight's own default --timeout, the same cap for both


def peer_command(name, rule):
    """(label, command without --out/--list) of peer `name`; `rule` is pageheight's (default, quick)."""
    if name == "pygobject":
        label = "PyGObject peer, quick rule" if rule == "quick" else "PyGObject peer, 5.3 s schedule"
        return label, [PEER_PYTHON, os.path.join(PEERS_DIR, "pygobject_peer.py"),
                       "--rule", "quick" if rule == "quick" else "schedule"]
    return "Chromium peer, virtual time 5.4 s", [PEER_PYTHON, os.path.join(PEERS_DIR, "chromium_vt_peer.py"),
                                                 "--timeout", str(CHROMIUM_TIMEOUT)]


PEER_NAMES = ("pygobject", "chromium-vt")


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
    results, seconds, phases = {}, {}, {}
    for report in read_lines(out):
        timings = report.get("timings", {})
        page = report["url"].replace("file://", "")
        seconds[page] = timings.get("realTotal") or timings.get("total") or 0
        results[page] = (report.get("height"), report.get("status"))
        phases[page] = page_phases(report, seconds[page])
    return {"label": label, "jobs": jobs, "wall": wall, "own": sum(seconds.values()), "pages": len(results),
            "results": results, "seconds": seconds, "phases": phases}


def page_phases(report, total):
    """Where a page's own wall-clock seconds went, from its report: the engine's load work (navigation
    timing's load event and the layout after it: before the load finished the page's clock is the
    wall clock), from there to the first reading, and after it (the schedule's jumps, fit mode's
    resizes and the view check at the cap, stepped animation frames, layout inside the readings)."""
    engine = report.get("engine") or {}
    first = next((s for s in report.get("samples", []) if s.get("source") == "load"), None)
    load = (first.get("real") if first and first.get("real") is not None else (first or {}).get("t")) or 0
    work = min(load, engine.get("loadWorkEnd") or engine.get("loadEventEnd") or load)
    jumps = report.get("clockJumps") or []
    return {"engine load": work, "load to first reading": max(0, load - work), "after the first reading": max(0, total - load),
            "layout in readings": engine.get("layout") or 0, "resizes": len(report.get("fitSteps") or []),
            "view check": report.get("viewDependence") is not None,
            "frames": round(sum(j["to"] - j["from"] for j in jumps if j.get("reason") == "frames") * 60),
            "timer jumps": sum(1 for j in jumps if j.get("reason") in ("timer", "timers"))}


def cause(phases):
    """A slow page's cause, from its phases: the largest share, with what the page made pageheight do."""
    shares = {key: phases[key] for key in ("engine load", "load to first reading", "after the first reading")}
    largest = max(shares, key=shares.get)
    what = [f"{largest} {shares[largest]:.2f} s"]
    if phases["resizes"]:
        what.append(f"{phases['resizes']} fit resize{'s' if phases['resizes'] > 1 else ''}")
    if phases["view check"]:
        what.append("view check at the cap")
    if phases["frames"]:
        what.append(f"{phases['frames']} animation frames stepped")
    if phases["timer jumps"] > 20:
        what.append(f"{phases['timer jumps']} timer jumps")
    if phases["layout in readings"] > 0.05:
        what.append(f"layout in readings {phases['layout in readings']:.2f} s")
    return ", ".join(what)


def profile_lines(run):
    """Where pageheight's own seconds went over every page of one run."""
    phases = run.get("phases") or {}
    if not phases:
        return []
    total = sum(run["seconds"].values()) or 1
    lines = [f"Where the pages' own seconds went ({run['label']}, N = {run['jobs']}, {len(phases)} pages, "
             f"{total:.1f} s in all):", "", "| phase | seconds | share |", "| --- | --- | --- |"]
    for key in ("engine load", "load to first reading", "after the first reading", "layout in readings"):
        value = sum(p[key] for p in phases.values())
        lines.append(f"| {key}{' (part of the above)' if key == 'layout in readings' else ''} | {value:.1f} | {value / total * 100:.0f}% |")
    lines += ["", f"Pages with fit resizes: {sum(1 for p in phases.values() if p['resizes'])} "
              f"({sum(p['resizes'] for p in phases.values())} resizes); with the view check at the cap: "
              f"{sum(1 for p in phases.values() if p['view check'])}; with animation frames stepped: "
              f"{sum(1 for p in phases.values() if p['frames'])} ({sum(p['frames'] for p in phases.values())} frames).", ""]
    return lines


def run_peer(pages, jobs, workdir, label, command):
    """N = jobs processes of `command`, each over every jobs-th page; their results merged."""
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
            command + ["--width", str(WIDTH), "--out", out, "--list", listing],
            env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for process in processes:
        process.wait()
    wall = time.monotonic() - started
    results, seconds = {}, {}
    for out in outs:
        for record in read_lines(out) if os.path.exists(out) else []:
            page = record["page"].replace("file://", "")
            seconds[page] = record.get("seconds") or 0
            results[page] = (record.get("height"), "error" if record.get("error") else "ok")
    return {"label": label, "jobs": jobs, "wall": wall, "own": sum(seconds.values()), "pages": len(results),
            "results": results, "seconds": seconds}


def row(run, count):
    between = (run["wall"] * run["jobs"] - run["own"]) / max(1, count) * 1000
    return (f"| {run['label']} | {run['jobs']} | {run['wall']:.1f} | {count / run['wall']:.2f} | {run['own']:.1f} "
            f"| {between:.0f} | {run['pages']} |")


def percentile(values, share):
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)] if ordered else float("nan")


def timing_row(run):
    own = list(run["seconds"].values())
    not_ok = sum(1 for _, status in run["results"].values() if status != "ok")
    return (f"| {run['label']} | {run['jobs']} | {percentile(own, 0.5):.3f} | {percentile(own, 0.99):.3f} "
            f"| {max(own, default=float('nan')):.3f} | {not_ok} |")


def slowest_lines(mine, chromium, jobs):
    """The ten slowest pages of pageheight's runs at N = jobs (mean of the runs), with the Chromium peer's."""
    mean = {page: statistics.mean(r["seconds"].get(page, 0) for r in mine) for page in mine[-1]["seconds"]}
    lines = [f"Ten slowest pages of pageheight's at N = {jobs} (own seconds, mean of {len(mine)} runs), and the "
             "Chromium peer's at the same N:", "",
             "| page | pageheight s | height, status | cause (the last run's report) | Chromium peer s | height, status |",
             "| --- | --- | --- | --- | --- | --- |"]
    for page in sorted(mean, key=mean.get, reverse=True)[:10]:
        height, status = mine[-1]["results"][page]
        theirs = chromium["results"].get(page, (None, "missing"))
        phases = (mine[-1].get("phases") or {}).get(page)
        lines.append(f"| {os.path.relpath(page, CORPUS)} | {mean[page]:.3f} | {height} {status} | {cause(phases) if phases else ''} "
                     f"| {chromium['seconds'].get(page, float('nan')):.3f} | {theirs[0]} {theirs[1]} |")
    return lines + [""]


def height_line(mine, chromium):
    """How far Chromium's heights are from pageheight's: a sanity check, not an agreement."""
    ratios = [chromium["results"][page][0] / height for page, (height, _) in mine["results"].items()
              if height and chromium["results"].get(page, (None,))[0]]
    if not ratios:
        return "Chromium's heights: none to compare."
    near = sum(1 for r in ratios if abs(r - 1) <= 0.1)
    return (f"Chromium's heights (another engine: not an agreement, a sanity check): {len(ratios)} pages with a height "
            f"on both sides, Chromium / pageheight median {statistics.median(ratios):.2f}, "
            f"{near} within 10%, range {min(ratios):.2f}-{max(ratios):.2f}.")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, help="a spread subset of this many pages (a trial)")
    parser.add_argument("--jobs", default="1,4", help="parallelism for every side, comma-separated (default 1,4)")
    parser.add_argument("--peers", default=",".join(PEER_NAMES),
                        help=f"the peers to run, comma-separated, from {', '.join(PEER_NAMES)} (default: all)")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip pageheight --clock real --until schedule and the agreement with it")
    parser.add_argument("--markdown", help="also write the Markdown section here")
    parser.add_argument("--raw", help="write every run's per-page results as JSON here")
    parser.add_argument("--rule", choices=["default", "quick"], default="default",
                        help="default: pageheight's default rule against the peers' whole schedule, and the "
                             "agreement with --clock real --until schedule; quick: --until quick against the "
                             "PyGObject peer's quick rule, and the agreement between the two (issue 29); the "
                             "Chromium peer runs its budget either way")
    arguments = parser.parse_args()
    peers = [name for name in arguments.peers.split(",") if name]
    unknown = [name for name in peers if name not in PEER_NAMES]
    if unknown:
        parser.error(f"unknown peer {', '.join(unknown)} (known: {', '.join(PEER_NAMES)})")
    pages = corpus_pages(arguments.pages)
    jobs_list = [int(j) for j in arguments.jobs.split(",")]
    quick = arguments.rule == "quick"
    mine_args = ["--until", "quick"] if quick else ["--clock", "virtual"]
    mine_label = "pageheight --until quick" if quick else "pageheight virtual"
    commands = {name: peer_command(name, arguments.rule) for name in peers}
    runs = []
    with tempfile.TemporaryDirectory(prefix="pageheight-clock-bench-") as workdir:
        for jobs in jobs_list:
            order = [mine_label] + [commands[name][0] for name in peers] + [mine_label]
            print(f"N = {jobs}: {', '.join(order)}", file=sys.stderr)
            runs.append(run_pageheight(pages, jobs, mine_args, workdir, f"{mine_label} #1"))
            for name in peers:
                label, command = commands[name]
                runs.append(dict(run_peer(pages, jobs, workdir, label, command), peer=name))
            runs.append(run_pageheight(pages, jobs, mine_args, workdir, f"{mine_label} #2"))
        reference = None
        if quick:
            reference = ([r for r in runs if r.get("peer") == "pygobject"] or [None])[-1]
        elif not arguments.no_reference:
            reference_jobs = max(jobs_list)
            print(f"reference: pageheight --clock real --until schedule, N = {reference_jobs}", file=sys.stderr)
            reference = run_pageheight(pages, reference_jobs, ["--clock", "real", "--until", "schedule"], workdir,
                                       "pageheight real, --until schedule (reference)")
    count = len(pages)
    listed = runs + ([reference] if reference and not quick else [])
    lines = [f"{count} pages of ../shared/corpus/articles (readability and aeb source pages), width 390, "
             f"pageheight --offline=block, the peers with loopback only. Between pages = (wall x N - sum of the pages' "
             f"own wall-clock times) / pages.", "",
             "| contender | N | wall s | pages/s | sum of own s | between pages, ms/page | pages |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    lines += [row(run, count) for run in listed]
    lines.append("")
    for jobs in jobs_list:
        mine = [r for r in runs if r["jobs"] == jobs and r["label"].startswith("pageheight")]
        rate = statistics.median(count / r["wall"] for r in mine)
        between = statistics.median((r["wall"] * r["jobs"] - r["own"]) / count * 1000 for r in mine)
        against = [f"{peer['label']} {count / peer['wall']:.2f} pages/s: **{rate / (count / peer['wall']):.1f}x**"
                   for peer in runs if peer["jobs"] == jobs and "peer" in peer]
        lines.append(f"- N = {jobs}: {mine_label} {rate:.2f} pages/s, between pages {between:.0f} ms/page "
                     f"(median of {len(mine)}); against " + ("; ".join(against) or "no peer"))
    lines += ["", "Each page's own wall-clock seconds (pageheight: timings.realTotal; a peer: its per-page "
              "seconds), and the pages whose status is not ok (pageheight: fallback, timeout, crashed...; a peer: "
              "an error, such as a timeout):", "",
              "| contender | N | p50 s | p99 s | max s | not ok |", "| --- | --- | --- | --- | --- | --- |"]
    lines += [timing_row(run) for run in listed]
    lines.append("")
    first = next((r for r in runs if r["label"].startswith("pageheight") and r["jobs"] == min(jobs_list)), None)
    if first:
        lines += profile_lines(first)
    for jobs in jobs_list:
        chromium = [r for r in runs if r["jobs"] == jobs and r.get("peer") == "chromium-vt"]
        if chromium:
            mine = [r for r in runs if r["jobs"] == jobs and r["label"].startswith("pageheight")]
            lines += slowest_lines(mine, chromium[0], jobs)
    chromium = [r for r in runs if r.get("peer") == "chromium-vt"]
    if chromium:
        lines += [height_line(runs[-1], chromium[-1]), ""]
    virtual = runs[-1]["results"]
    differ = []
    for page, (height, status) in sorted(reference["results"].items()) if reference else []:
        mine = virtual.get(page)
        rounded = lambda h: None if h is None else round(h)  # noqa: E731
        # The peer's statuses are ok or error only: in quick mode the heights are compared.
        if mine is None or rounded(mine[0]) != rounded(height) or (not quick and mine[1] != status):
            differ.append((page, mine, (height, status)))
    if reference:
        same = count - len(differ)
        lines += [f"Agreement with {reference['label']} (N = {reference['jobs']}): {same} of {count} pages "
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
            json.dump({"runs": listed}, f, indent=1)


if __name__ == "__main__":
    main()
