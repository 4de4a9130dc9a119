#!/usr/bin/env python3
"""pageheight batch benchmark: pageheight against what a user would otherwise pick.

On the article corpus (../shared/corpus/articles: readability/*/reader.html,
readability/*/source.html, aeb/*/source.html; offline; width 390) measures, in one run, on the
same pages, wall time, pages/s, p50/p95 seconds per page and the peak PSS of the whole process
tree (sum of /proc/<pid>/smaps_rollup Pss over the tree; see core.TreePeak for when it is read,
and why a sample taken while a process of the tree exits is dropped) for:

- pageheight batch, default mode, --jobs 1, 2, 4 (and its default jobs if that is another
  number); --until quick --no-fit (the peers' quick rule: load, fonts, images, one reading, fixed 844 px view) at its default jobs; --until schedule --jobs 1 on the
  schedule subset; for (1), --until schedule on every page twice in each offline mode (refuse,
  block) and default mode with --offline=block: default mode against the schedule, and how far
  the schedule repeats itself;
- (a) Selenium + WebKitWebDriver (MiniBrowser), (b) a PyGObject + WebKit2 4.1 script,
  (c) headless Chromium through Selenium: --rule quick on every page, --rule schedule on the
  schedule subset (they take ~5.3 s a page there).

Peers run with the venv's python3 made by scripts/benchmark/peers/setup.sh (Debian's python3 +
PyPI selenium; PyGObject is only there), each in its own network namespace with only loopback
up, each starting its own Xvfb when it needs a display. pageheight runs as a user runs it: no
DISPLAY (it starts its own Xvfb) and --offline.

    scripts/benchmark/peers/setup.sh            # once, as root
    python3 scripts/benchmark/batch.py --markdown batch.md --raw batch.json
    python3 scripts/benchmark/batch.py --pages 12 --schedule-subset 3   # a quick trial

pageheight's default-mode and quick-rule rows run three times (`--runs`), in passes over all of
them; their pages/s and peaks are the medians (see combine()).

A contender whose command fails (for instance a pageheight without `batch`) is skipped with a
note in the output. Prints a Markdown section on stdout.
"""
import argparse
import glob
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from urllib.parse import quote

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core import BINARY, CORPUS, ENV, ROOT, TreePeak  # noqa: E402

BINARY = os.environ.get("PAGEHEIGHT_BENCH_BINARY", BINARY)  # another build or a stand-in, for trials
PEERS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers")
PEER_PYTHON = os.environ.get("PAGEHEIGHT_BENCH_PYTHON",
                             os.path.expanduser("~/.cache/pageheight-bench/venv/bin/python3"))
PEERS = {  # key: (label, script)
    "a": ("(a) Selenium + WebKitWebDriver", "selenium_webkit_peer.py"),
    "b": ("(b) PyGObject + WebKit2 4.1", "pygobject_peer.py"),
    "c": ("(c) headless Chromium + Selenium", "chromium_peer.py"),
}
WIDTH = 390
SAMPLE = 0.05  # s between samples of the tree (core.TreePeak: resident sizes, PSS when it can be a new peak)


# ---------------------------------------------------------------- pages and machine

def corpus_pages(limit=None):
    pages = (glob.glob(os.path.join(CORPUS, "readability", "*", "reader.html"))
             + glob.glob(os.path.join(CORPUS, "readability", "*", "source.html"))
             + glob.glob(os.path.join(CORPUS, "aeb", "*", "source.html")))
    pages = sorted(os.path.abspath(p) for p in pages)
    return spread_subset(pages, limit) if limit else pages


def spread_subset(pages, count):
    """count pages spread evenly over the sorted list (both sources, both page kinds)."""
    if count >= len(pages):
        return list(pages)
    return [pages[i * len(pages) // count] for i in range(count)]


def file_url(page):
    return "file://" + quote(os.path.abspath(page))


def short(page):
    return os.path.relpath(page, CORPUS) if page.startswith(CORPUS) else page


def command_output(arguments):
    try:
        return subprocess.run(arguments, capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def other_webkit_processes():
    """Processes already running that map WebKit or Mesa's LLVM: they share those pages with the
    contenders' trees and so lower every PSS figure (one forgotten script halved them)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/maps") as f:
                if any("libwebkit2gtk" in line or "libLLVM" in line for line in f):
                    with open(f"/proc/{entry}/comm") as c:
                        found.append(f"{entry} {c.read().strip()}")
        except OSError:
            continue
    return found


def cpu_ticks():
    """(steal, total) jiffies from /proc/stat: the share the hypervisor took from this machine."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
        return (fields[7] if len(fields) > 7 else 0), sum(fields[:8])
    except (OSError, ValueError):
        return 0, 0


def machine():
    memory = "?"
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    memory = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    debian = ""
    try:
        with open("/etc/debian_version") as f:
            debian = "Debian " + f.read().strip()
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "memory": memory,
        "os": debian,
        "kernel": os.uname().release,
        "webkitgtk": command_output(["dpkg-query", "-W", "-f=${Version}", "libwebkit2gtk-4.1-0"]),
        "chromium": command_output(["chromium", "--version"]),
        "selenium": command_output([PEER_PYTHON, "-c", "import selenium; print(selenium.__version__)"]),
        "python": command_output([PEER_PYTHON, "--version"]),
        "pageheight": command_output([BINARY, "--version"]),
    }


def default_jobs():
    """pageheight batch's own default for --jobs, from its help; else two per core."""
    text = command_output([BINARY, "batch", "--help"]) or command_output([BINARY, "--help"])
    match = re.search(r"--jobs\s*<n>.*?\(default:\s*(\d+)", text, re.S)
    if match:
        return int(match.group(1)), "from pageheight batch --help"
    return 2 * (os.cpu_count() or 1), "assumed (two per core): pageheight batch --help gave none"


# ---------------------------------------------------------------- running a contender

def run_measured(command, env, cap):
    """Runs command; returns (wall s, peak tree PSS KB, exit code, stderr tail, samples dropped
    because a process of the tree was exiting)."""
    with tempfile.TemporaryFile() as err:
        start = time.monotonic()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env,
                                   start_new_session=True)
        peak, sampler = 0, TreePeak(process.pid)
        while process.poll() is None:
            peak = sampler.sample()
            if time.monotonic() - start > cap:
                os.killpg(process.pid, signal.SIGKILL)  # the group this script started
                break
            time.sleep(SAMPLE)
        code = process.wait()
        wall = time.monotonic() - start
        err.seek(0)
        tail = err.read().decode(errors="replace").strip().splitlines()[-3:]
    return wall, peak, code, tail, sampler.dropped


def read_jsonl(path):
    records = []
    try:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        records.append(json.loads(line))
                    except ValueError:
                        pass
    except OSError:
        pass
    return records


def pageheight_record(report, pages):
    index = report.get("index")
    page = pages[index] if isinstance(index, int) and 0 <= index < len(pages) else report.get("url")
    timings = report.get("timings") or {}
    engine = report.get("engine") or {}
    status = report.get("status")
    return {
        "page": page,
        "height": report.get("height"),
        "seconds": timings.get("total"),
        "error": None if status == "ok" else f"{status}: {report.get('message') or ''}".strip(": "),
        "status": status,
        "overhead": report.get("overhead"),
        "loadEventEnd": engine.get("loadEventEnd"),
        "loadLayout": engine.get("loadLayout"),
        "layout": engine.get("layout"),
        "finished": timings.get("finished"),
        "settledAt": timings.get("settledAt"),
        "scheduleHeight": ((report.get("strategies") or {}).get("schedule") or {}).get("height"),
    }


def run_contender(name, rule, jobs, command, out, pages, env, kind):
    cap = 35 * len(pages) + 120
    wall, peak, code, tail, dropped = run_measured(command, env, cap)
    raw = read_jsonl(out)
    records = [pageheight_record(r, pages) for r in raw] if kind == "pageheight" else raw
    result = {"contender": name, "rule": rule, "jobs": jobs, "command": command, "pages": len(pages),
              "wall": wall, "peakPssKB": peak, "droppedSamples": dropped, "exit": code, "records": records, "skipped": None}
    if not records or (kind == "pageheight" and code not in (0, 1)) or (kind == "peer" and code != 0 and
                                                                         len(records) < len(pages)):
        result["skipped"] = f"command failed (exit {code}, {len(records)} of {len(pages)} pages): " + \
                            " / ".join(tail)[-300:]
    seconds = sorted(r["seconds"] for r in records if isinstance(r.get("seconds"), (int, float)))
    result["measured"] = len(records)
    result["errors"] = sum(1 for r in records if r.get("error"))
    result["pagesPerSecond"] = len(records) / wall if wall > 0 and records else None
    result["p50"] = percentile(seconds, 50)
    result["p95"] = percentile(seconds, 95)
    note = result["skipped"] or f"{result['pagesPerSecond']:.2f} pages/s, peak {peak / 1024:.0f} MB"
    print(f"  {name} {rule} jobs {jobs}: {wall:.1f} s; {note}", file=sys.stderr, flush=True)
    return result


def combine(runs):
    """One result from repeated runs of one command. A tree's peak depends on which heavy pages two
    or four views meet at the same moment, so one run's peak moved by tens of MB between runs of the
    same code (two jobs, quick rule: 300-350 MB). The combined result carries the median pages/s,
    wall time and peak PSS of the runs that completed, every run's own figures (`runs`), and the
    first completed run's per-page records (heights, timings, overhead)."""
    done = [r for r in runs if not r.get("skipped")]
    if len(runs) == 1 or not done:
        return runs[0]
    result = dict(done[0])
    for key in ("pagesPerSecond", "peakPssKB", "wall"):
        result[key] = statistics.median(r[key] for r in done)
    result["droppedSamples"] = sum(r.get("droppedSamples", 0) for r in done)
    result["runs"] = [{key: r.get(key) for key in ("wall", "pagesPerSecond", "peakPssKB", "droppedSamples",
                                                   "measured", "errors", "skipped")} for r in runs]
    return result


def percentile(values, p):
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    rank = (len(values) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (rank - low)


# ---------------------------------------------------------------- comparison

def heights(result):
    if not result or result.get("skipped"):
        return {}
    return {r["page"]: r for r in result["records"]}


def cause(page, value, other, mine, theirs, ph_quick=None, peer_label=""):
    """A one-line guess at why pageheight (value, report `mine`) and a peer (`other`) differ."""
    if theirs and "xhtml" in str(theirs.get("contentType")) and theirs.get("height") is None:
        return ("WebKitGTK sniffed the file:// page as application/xhtml+xml (xmlns on <html>): "
                "XML parse error, no body, for the peer")
    if theirs and theirs.get("error"):
        return f"peer error: {theirs['error']}"
    if mine and mine.get("error"):
        return f"pageheight {mine['error']}"
    if value is None or other is None:
        return "no height from one side"
    facts = theirs or {}
    landed = (facts.get("url") or "").split("#")[0]
    if landed and landed != file_url(page):
        return f"the page navigated itself away after load; the peer measured {landed[:60]}"
    if "xhtml" in str(facts.get("contentType")):
        return ("the peer's WebKitGTK parsed the file:// page as XHTML (sniffed from xmlns on <html>); "
                "pageheight loads .html as text/html, as browsers and reader apps do")
    quirks = facts.get("compatMode") == "BackCompat"
    viewport = facts.get("innerHeight") or 844
    if "Chromium" in peer_label:
        if facts.get("charset") not in (None, "UTF-8"):
            return f"Blink vs WebKit, and Chromium read the page as {facts['charset']} (WebKit: UTF-8)"
        return "Blink vs WebKit: default fonts (Chromium serif vs WebKitGTK sans-serif) and text layout"
    if ph_quick is not None and ph_quick == other and value != other:
        return "timing: the page moved after load/fonts/images; pageheight waited for quiet, the quick rule read once"
    if other == viewport and value < viewport:
        return ("quirks mode: body.scrollHeight is at least the fixed 844 px viewport; fit mode shrinks the view"
                if quirks else "viewport-relative height (100vh / height:100%) fills the fixed 844 px view; fit mode measures the content")
    if value > other and other > viewport and (facts.get("lazyImages") or 0) > 0:
        return f"lazy images ({facts['lazyImages']}): fit mode's taller view brings them in and they load"
    if (facts.get("incompleteImages") or 0) > 0:
        return f"{facts['incompleteImages']} images still incomplete at the peer's measurement"
    if value > other:
        return "content taller in fit mode's taller view (viewport-relative sizes) or grew after the peer's reading"
    return "pageheight lower: content depends on the view height (vh) or shrank after the peer's reading; timing?"


def compare(pages, base_name, base, peers, ph_quick=None):
    """Agreement counts and the disagreement list of `base` (pageheight) against each peer."""
    lines, disagreements = [], []
    base_map, quick_map = heights(base), heights(ph_quick)
    for key, (label, result) in peers.items():
        peer_map = heights(result)
        if not base_map or not peer_map:
            continue
        common_pages = [p for p in pages if p in base_map and p in peer_map]
        same = [p for p in common_pages if base_map[p]["height"] == peer_map[p]["height"]
                and base_map[p]["height"] is not None]
        near = [p for p in common_pages if base_map[p]["height"] is not None and peer_map[p]["height"] is not None
                and abs(base_map[p]["height"] - peer_map[p]["height"]) <= 5]
        lines.append(f"- {base_name} vs {label}: {len(same)} of {len(common_pages)} identical, "
                     f"{len(near)} within 5 px")
        for p in common_pages:
            if p in same:
                continue
            value, other = base_map[p]["height"], peer_map[p]["height"]
            quick = quick_map.get(p, {}).get("height") if quick_map else None
            why = cause(p, value, other, base_map[p], peer_map[p], quick, label)
            disagreements.append((label, p, value, other, why if len(why) <= 160 else why[:157] + "..."))
    return lines, disagreements


# ---------------------------------------------------------------- report

def mb(kb):
    return f"{kb / 1024:.0f}" if kb else "-"


def fmt(value, digits=2):
    return f"{value:.{digits}f}" if isinstance(value, (int, float)) else "-"


def ratio_line(text, value, target, higher=True):
    if value is None:
        return f"- {text}: not measured"
    ok = value >= target if higher else value <= target
    return f"- {text}: **{value:.2f}** (target {'>=' if higher else '<='} {target:g}) {'PASS' if ok else 'FAIL'}"


QUICK = "quick (--until quick --no-fit)"
REPEAT_SCHEDULE = "schedule, every page (--until schedule)"
REPEAT_BLOCK_DEFAULT = "default, --offline=block"
REPEAT_BLOCK_SCHEDULE = "schedule, every page, --offline=block"
# A second --until schedule run of every page, in each mode: how far the schedule repeats itself.
AGAIN_SCHEDULE = "schedule again, every page (--until schedule)"
AGAIN_BLOCK_SCHEDULE = "schedule again, every page, --offline=block"


def same_schedule_height(default_run, schedule_run):
    """Pages where both runs report the same strategies.schedule.height, and the ones that differ."""
    a, b = heights(default_run), heights(schedule_run)
    both = [p for p in a if p in b]
    differ = [(p, a[p].get("scheduleHeight"), b[p].get("scheduleHeight")) for p in both
              if a[p].get("scheduleHeight") != b[p].get("scheduleHeight")]
    return len(both) - len(differ), len(both), differ


def render(info, pages, subset, results, jobs_default, jobs_note, skipped_by_flag):
    out = []
    by = {(r["contender"], r["rule"], r["jobs"]): r for r in results}
    ok = lambda r: r if r and not r.get("skipped") else None  # noqa: E731

    out.append("## Batch against the alternatives (issue: batch)\n")
    out.append(f"Machine: {info['cores']} cores, {info['memory']}, {info['os']}, Linux {info['kernel']}; "
               f"WebKitGTK {info['webkitgtk']} (webkit2gtk-4.1); {info['chromium']}; selenium {info['selenium']} "
               f"on {info['python']} (Debian's, for PyGObject); {info['pageheight'] or 'pageheight ?'}. "
               f"CPU time stolen by the hypervisor during the run: {info.get('steal', '?')}.")
    if info.get("others"):
        out.append(f"**Warning**: other processes mapped WebKit or Mesa's LLVM when the run began "
                   f"({', '.join(info['others'])}); they share those pages, so every PSS figure below is low.\n")
    out.append(f"Pages: {len(pages)} corpus pages (`readability/*/reader.html`, `readability/*/source.html`, "
               f"`aeb/*/source.html`), sorted, offline, width {WIDTH}; schedule rule on {len(subset)} of them "
               f"spread evenly over the list. pageheight default jobs: {jobs_default} ({jobs_note}). "
               f"Command: `python3 scripts/benchmark/batch.py`.\n")
    out.append("Where a row had several runs, its wall time, pages/s and peak are their medians, and the last "
               "column gives each run's peak and pages/s; p50/p95, errors and heights are the first run's.\n")
    out.append("| contender | rule | jobs | pages | wall s | pages/s | p50 s/page | p95 s/page | peak tree PSS MB | samples dropped (a process exiting) | errors | runs: peak MB @ pages/s |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        if r.get("skipped"):
            out.append(f"| {r['contender']} | {r['rule']} | {r['jobs']} | {r['pages']} | - | - | - | - | - | - | "
                       f"skipped: {r['skipped'].replace('|', '/')} | - |")
        else:
            each = ", ".join(f"{mb(x['peakPssKB'])} @ {fmt(x['pagesPerSecond'])}" if not x.get("skipped") else "failed"
                             for x in r["runs"]) if r.get("runs") else "1"
            out.append(f"| {r['contender']} | {r['rule']} | {r['jobs']} | {r['measured']} | {r['wall']:.1f} | "
                       f"{fmt(r['pagesPerSecond'])} | {fmt(r['p50'], 3)} | {fmt(r['p95'], 3)} | "
                       f"{mb(r['peakPssKB'])} | {r.get('droppedSamples', '-')} | {r['errors']} | {each} |")
    for note in skipped_by_flag:
        out.append(f"\nSkipped by `--skip`: {note}.")

    ph_default = ok(by.get(("pageheight", "default", jobs_default)))
    ph_quick = ok(by.get(("pageheight", QUICK, jobs_default)))
    ph_jobs = {j: ok(by.get(("pageheight", "default", j))) for j in (1, 2, 4)}
    ph_quick_jobs = {j: ok(by.get(("pageheight", QUICK, j))) for j in (1, 2, 4)}
    peer_schedule = {k: ok(by.get((PEERS[k][0], "schedule", 1))) for k in PEERS}
    peer_quick = {k: ok(by.get((PEERS[k][0], "quick", 1))) for k in PEERS}

    out.append("\n### Done-when figures\n")
    for k in PEERS:
        r = peer_schedule[k]
        if r:
            out.append(f"- {PEERS[k][0]} on the 5.3 s schedule: p50 {fmt(r['p50'], 2)} s/page "
                       f"({fmt(r['pagesPerSecond'], 3)} pages/s)")
    for k in PEERS:
        r = peer_schedule[k]
        value = ph_default["pagesPerSecond"] / r["pagesPerSecond"] if ph_default and r else None
        out.append(ratio_line(f"(1) pageheight default mode, jobs {jobs_default}, pages/s ÷ {PEERS[k][0]} "
                              f"schedule pages/s", value, 8))
    for label, default_run, schedule_run, again_run in (
            ("--offline (refuse)", ph_default, ok(by.get(("pageheight", REPEAT_SCHEDULE, jobs_default))),
             ok(by.get(("pageheight", AGAIN_SCHEDULE, jobs_default)))),
            ("--offline=block", ok(by.get(("pageheight", REPEAT_BLOCK_DEFAULT, jobs_default))),
             ok(by.get(("pageheight", REPEAT_BLOCK_SCHEDULE, jobs_default))),
             ok(by.get(("pageheight", AGAIN_BLOCK_SCHEDULE, jobs_default))))):
        if default_run and schedule_run:
            same, total, differ = same_schedule_height(default_run, schedule_run)
            listed = "; ".join(f"`{short(p)}` {x} / {y}" for p, x, y in differ)
            out.append(ratio_line(f"(1) {label}, jobs {jobs_default}: default mode gives the same "
                                  f"strategies.schedule.height as --until schedule on {same} of {total} pages, %",
                                  100 * same / total if total else None, 99) + (f" (differ: {listed})" if differ else ""))
        if default_run and schedule_run and again_run:
            # How far the schedule repeats itself, and default mode on the pages where it does.
            _, _, unstable = same_schedule_height(schedule_run, again_run)
            unstable_pages = {p for p, _, _ in unstable}
            listed = "; ".join(f"`{short(p)}` {x} / {y}" for p, x, y in unstable)
            first, again, default = heights(schedule_run), heights(again_run), heights(default_run)
            stable = [p for p in first if p in again and p not in unstable_pages]
            matched = [p for p in stable
                       if default.get(p, {}).get("scheduleHeight") == first[p].get("scheduleHeight")]
            share = f" ({100 * len(matched) / len(stable):.1f}%)" if stable else ""
            out.append(f"- (1) {label}: two --until schedule runs agree on {len(stable)} of "
                       f"{len(stable) + len(unstable)} pages" + (f" (differ: {listed})" if unstable else "")
                       + f"; on those, default mode gives the same height on {len(matched)}{share}")
    for k, target in (("b", 2), ("a", 4), ("c", None)):
        r = peer_quick[k]
        value = ph_quick["pagesPerSecond"] / r["pagesPerSecond"] if ph_quick and r else None
        text = f"(2) pageheight --until quick --no-fit, jobs {jobs_default}, pages/s ÷ {PEERS[k][0]} quick pages/s"
        if target is None:
            out.append(f"- {text}: {fmt(value)} (no target)")
        else:
            out.append(ratio_line(text, value, target))
    a_map, b_map, q_map = heights(peer_quick["a"]), heights(peer_quick["b"]), heights(ph_quick)
    if a_map and b_map and q_map:
        agreed = [p for p in pages if p in a_map and p in b_map and a_map[p]["height"] is not None
                  and a_map[p]["height"] == b_map[p]["height"]]
        same = [p for p in agreed if p in q_map and q_map[p]["height"] == a_map[p]["height"]]
        differ = [f"`{short(p)}` {q_map.get(p, {}).get('height')} against {a_map[p]['height']}: "
                  + cause(p, q_map.get(p, {}).get("height"), a_map[p]["height"], q_map.get(p), a_map[p],
                          None, PEERS["a"][0])
                  for p in agreed if p not in same]
        out.append(f"- (2) heights: (a) and (b) agree on {len(agreed)} of {len(pages)} pages; pageheight "
                   f"--until quick --no-fit gives the identical height on {len(same)} of those "
                   f"{'PASS' if agreed and len(same) == len(agreed) else 'FAIL'}")
        out.extend(f"  - {line}" for line in differ)
    peer_pss = [(PEERS[k][0], peer_quick[k]["peakPssKB"]) for k in ("a", "b") if peer_quick[k]]
    # Memory on the peers' own rule (quick, --no-fit: the same fixed 844 px view), then in default
    # mode (fit: the view grows to the content, up to 16384 device px).
    for rule_label, by_jobs in (("quick rule, --no-fit", ph_quick_jobs), ("default mode", ph_jobs)):
        counts = sorted({len(r.get("runs") or [r]) for r in by_jobs.values() if r})
        if counts and counts != [1]:
            rule_label += f" (peaks: medians of {'/'.join(map(str, counts))} runs)"
        if by_jobs[1] and peer_pss:
            for label, pss in peer_pss:
                out.append(ratio_line(f"(3) pageheight {rule_label}, jobs 1 peak tree PSS ÷ {label} (quick) peak tree PSS",
                                      by_jobs[1]["peakPssKB"] / pss, 0.5, higher=False))
        if peer_quick["c"] and by_jobs[1]:
            out.append(f"- (3) pageheight {rule_label}, jobs 1 peak tree PSS ÷ {PEERS['c'][0]}: "
                       f"{by_jobs[1]['peakPssKB'] / peer_quick['c']['peakPssKB']:.2f} (no target)")
        for j in (2, 4):
            if by_jobs[1] and by_jobs[j]:
                extra = (by_jobs[j]["peakPssKB"] - by_jobs[1]["peakPssKB"]) / 1024 / (j - 1)
                out.append(ratio_line(f"(3) {rule_label}: PSS per extra job, jobs {j} vs 1 (MB)", extra, 60,
                                      higher=False))
    for label, result in (("default mode", ph_default), ("jobs 1", ph_jobs[1])):
        if result:
            overheads = [r["overhead"] for r in result["records"] if isinstance(r.get("overhead"), (int, float))]
            loads = [r["loadEventEnd"] for r in result["records"] if isinstance(r.get("loadEventEnd"), (int, float))]
            layouts = [r["layout"] for r in result["records"] if isinstance(r.get("layout"), (int, float))]
            load_layouts = [r["loadLayout"] for r in result["records"] if isinstance(r.get("loadLayout"), (int, float))]
            if overheads:
                out.append(ratio_line(f"(4) median pageheight overhead per page, {label} "
                                      f"(jobs {result['jobs']}), ms", statistics.median(overheads) * 1000, 5,
                                      higher=False)
                           + f"; p95 {percentile(sorted(overheads), 95) * 1000:.1f} ms; engine's own work: "
                             f"median loadEventEnd {statistics.median(loads) * 1000 if loads else float('nan'):.0f} ms, "
                             f"layout after the load event {statistics.median(load_layouts) * 1000 if load_layouts else float('nan'):.0f} ms "
                             f"(p95 {percentile(sorted(load_layouts), 95) * 1000 if load_layouts else float('nan'):.0f}), "
                             f"measurement layout {statistics.median(layouts) * 1000 if layouts else float('nan'):.1f} ms")
            else:
                out.append(f"- (4) {label}: the reports carry no `overhead`")

    out.append("\n### Heights\n")
    peers_quick = {k: (PEERS[k][0], peer_quick[k]) for k in PEERS}
    sections = [("pageheight default mode", ph_default, peers_quick, ph_quick, pages),
                ("pageheight --until quick --no-fit", ph_quick, peers_quick, None, pages)]
    ph_schedule = ok(by.get(("pageheight", "schedule (--until schedule)", 1)))
    sections.append(("pageheight --until schedule", ph_schedule,
                     {k: (PEERS[k][0] + " schedule", peer_schedule[k]) for k in PEERS}, None, subset))
    ab_disagreements = []
    for rule, left, right, page_set in (("quick", a_map, b_map, pages),
                                        ("schedule", heights(peer_schedule["a"]), heights(peer_schedule["b"]), subset)):
        if left and right:
            both = [p for p in page_set if p in left and p in right]
            differ = [p for p in both if left[p]["height"] != right[p]["height"]]
            out.append(f"- (a) vs (b), {rule} rule: {len(both) - len(differ)} of {len(both)} identical")
            for p in differ:
                why = cause(p, left[p]["height"], right[p]["height"], left[p], right[p], None, "(b)")
                if why.startswith("the page navigated") or right[p].get("error"):
                    pass
                elif (left[p].get("url") or "").split("#")[0] not in ("", file_url(p)):
                    why = "the page navigated itself away after load; (a) measured " + left[p]["url"][:60]
                elif left[p].get("error"):
                    why = "(a) error: " + left[p]["error"]
                else:
                    why = "timing: the two peers read the page at different moments of its own changes"
                ab_disagreements.append((rule, p, left[p]["height"], right[p]["height"], why))
    all_disagreements = []
    for name, base, peers, quick, page_set in sections:
        lines, disagreements = compare(page_set, name, base, peers, quick)
        out.extend(lines)
        all_disagreements += [(name,) + d for d in disagreements]
    if ab_disagreements:
        out.append(f"\nDisagreements between (a) and (b) ({len(ab_disagreements)}):\n")
        out.append("| rule | page | (a) | (b) | cause (guess) |")
        out.append("| --- | --- | --- | --- | --- |")
        for rule, page, left, right, why in ab_disagreements:
            out.append(f"| {rule} | `{short(page)}` | {left} | {right} | {why} |")
    webkit = [d for d in all_disagreements if "Chromium" not in d[1]]
    chromium = [d for d in all_disagreements if "Chromium" in d[1]]
    out.append(f"\nDisagreements with the WebKit peers ({len(webkit)}):\n")
    if webkit:
        out.append("| pageheight run | peer | page | pageheight | peer | cause (guess) |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for name, label, page, value, other, why in webkit:
            out.append(f"| {name} | {label} | `{short(page)}` | {value} | {other} | {why} |")
    else:
        out.append("none")
    if chromium:
        out.append(f"\n<details><summary>Disagreements with headless Chromium ({len(chromium)})</summary>\n")
        out.append("| pageheight run | page | pageheight | Chromium | cause (guess) |")
        out.append("| --- | --- | --- | --- | --- |")
        for name, label, page, value, other, why in chromium:
            out.append(f"| {name} | `{short(page)}` | {value} | {other} | {why} |")
        out.append("\n</details>")

    maps = [("pageheight", heights(ph_default)), ("ph quick", q_map), ("(a)", a_map), ("(b)", b_map),
            ("(c)", heights(peer_quick["c"]))]
    out.append(f"\n<details><summary>Every page's height (quick rule for the peers)</summary>\n")
    out.append("| page | " + " | ".join(n for n, _ in maps) + " |")
    out.append("| --- |" + " --- |" * len(maps))
    for p in pages:
        out.append(f"| `{short(p)}` | " + " | ".join(str(m.get(p, {}).get("height", "-")) if m else "-"
                                                   for _, m in maps) + " |")
    out.append("\n</details>\n")
    return "\n".join(out)


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description="pageheight batch benchmark against its peers")
    parser.add_argument("--pages", type=int,
                        help="only N pages, spread evenly over the sorted list (for quick trials)")
    parser.add_argument("--schedule-subset", type=int, default=20,
                        help="pages (spread over the list) for the schedule-rule runs (default 20)")
    parser.add_argument("--skip", action="append", default=[],
                        help="skip a contender: pageheight, a, b, c, schedule, quick, repeat (repeatable, or comma-separated)")
    parser.add_argument("--jobs", default="1,2,4", help="pageheight --jobs values, default mode (default 1,2,4)")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs of each pageheight default-mode and quick-rule row (their pages/s and peaks "
                             "are the medians; default 3)")
    parser.add_argument("--markdown", help="also write the Markdown section here")
    parser.add_argument("--raw", help="write every run's per-page results as JSON here")
    arguments = parser.parse_args()
    skip = {s.strip() for value in arguments.skip for s in value.split(",") if s.strip()}

    pages = corpus_pages(arguments.pages)
    if not pages:
        sys.exit(f"no pages under {CORPUS}")
    subset = spread_subset(pages, arguments.schedule_subset)
    info = machine()
    info["others"] = other_webkit_processes()
    if info["others"]:
        print("warning: other processes map WebKit or Mesa's LLVM, PSS figures will be low: "
              + ", ".join(info["others"]), file=sys.stderr, flush=True)
    steal_start = cpu_ticks()
    jobs_default, jobs_note = default_jobs()
    work = tempfile.mkdtemp(prefix="pageheight-batch-bench-")
    lists = {}
    for name, page_list in (("all", pages), ("subset", subset)):
        lists[name] = os.path.join(work, f"{name}.txt")
        with open(lists[name], "w") as f:
            f.write("\n".join(page_list) + "\n")
    print(f"batch benchmark: {len(pages)} pages, schedule subset {len(subset)}, work files in {work}",
          file=sys.stderr, flush=True)

    results, skipped_by_flag = [], []
    if "pageheight" in skip:
        skipped_by_flag.append("pageheight")
    elif not os.access(BINARY, os.X_OK):
        results.append({"contender": "pageheight", "rule": "default", "jobs": "-", "pages": len(pages),
                        "skipped": f"{os.path.relpath(BINARY, ROOT)} missing (swift build -c release)"})
    else:
        runs = [("default", j, []) for j in sorted({int(j) for j in arguments.jobs.split(",")} | {jobs_default})]
        if "quick" not in skip:
            for j in sorted({1, 2, jobs_default}):
                runs.append((QUICK, j, ["--until", "quick", "--no-fit"]))
        if "schedule" not in skip:
            runs.append(("schedule (--until schedule)", 1, ["--until", "schedule"]))
        if "repeat" not in skip:
            # (1) default mode against a full --until schedule run of every page, in both offline modes.
            runs += [(REPEAT_SCHEDULE, jobs_default, ["--until", "schedule"]),
                     (REPEAT_BLOCK_DEFAULT, jobs_default, ["--offline=block"]),
                     (REPEAT_BLOCK_SCHEDULE, jobs_default, ["--offline=block", "--until", "schedule"]),
                     (AGAIN_SCHEDULE, jobs_default, ["--until", "schedule"]),
                     (AGAIN_BLOCK_SCHEDULE, jobs_default, ["--offline=block", "--until", "schedule"])]
        # The default-mode and quick-rule rows run `--runs` times, a pass over all of them at a time,
        # so that a slow spell of the machine does not fall on one row's runs only.
        repeated = [i for i, (rule, _, _) in enumerate(runs) if rule in ("default", QUICK)]
        passes = [list(range(len(runs)))] + [repeated] * (max(1, arguments.runs) - 1)
        done = [[] for _ in runs]
        for number, indices in enumerate(passes):
            for i in indices:
                rule, jobs, extra = runs[i]
                page_list = subset if rule.startswith("schedule (") else pages
                out = os.path.join(work, f"pageheight-{rule.split()[0].strip(',')}-{i}-j{jobs}-run{number + 1}.jsonl")
                command = [BINARY, "batch", "--offline", "--width", str(WIDTH), "--jobs", str(jobs), "--out", out] \
                    + extra + [lists["subset" if rule.startswith("schedule (") else "all"]]
                done[i].append(run_contender("pageheight", rule, jobs, command, out, page_list, ENV, "pageheight"))
        results += [combine(r) for r in done]

    peer_env = dict(ENV, PYTHONUNBUFFERED="1")
    for key, (label, script) in PEERS.items():
        if key in skip:
            skipped_by_flag.append(label)
            continue
        if not os.access(PEER_PYTHON, os.X_OK):
            results.append({"contender": label, "rule": "-", "jobs": 1, "pages": len(pages),
                            "skipped": f"{PEER_PYTHON} missing: run scripts/benchmark/peers/setup.sh"})
            continue
        for rule in ("quick", "schedule"):
            if rule in skip:
                continue
            page_list = subset if rule == "schedule" else pages
            out = os.path.join(work, f"peer-{key}-{rule}.jsonl")
            command = [PEER_PYTHON, os.path.join(PEERS_DIR, script), "--rule", rule, "--width", str(WIDTH),
                       "--out", out, "--list", lists["subset" if rule == "schedule" else "all"]]
            results.append(run_contender(label, rule, 1, command, out, page_list, peer_env, "peer"))

    steal_end = cpu_ticks()
    if steal_end[1] > steal_start[1]:
        info["steal"] = f"{100 * (steal_end[0] - steal_start[0]) / (steal_end[1] - steal_start[1]):.0f}%"
    text = render(info, pages, subset, results, jobs_default, jobs_note, skipped_by_flag)
    print(text)
    if arguments.markdown:
        with open(arguments.markdown, "w") as f:
            f.write(text + "\n")
    if arguments.raw:
        with open(arguments.raw, "w") as f:
            json.dump({"machine": info, "pages": pages, "scheduleSubset": subset, "defaultJobs": jobs_default,
                       "runs": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
