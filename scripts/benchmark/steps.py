#!/usr/bin/env python3
"""pageheight steps benchmark (`--then`, issue 43): what a step costs, and whether a step gives what
a fresh load gives.

1. Cost: on settled static pages (fixtures and corpus articles, --offline), each step's wall
   time (`steps[].timings.realSeconds`, from the step applied to its verdict on the virtual clock),
   for width, font-size, zoom, color-scheme and click steps. Median, p90 and maximum per step kind.
2. Cross-check: on 40 corpus pages, the height after `--then width=1024` against a fresh
   `--width 1024` measurement (both --offline, one job each, alternating), equal within the
   threshold (5 px, the moves the app ignores). Each difference is listed for its cause.

Prints Markdown (--markdown FILE also writes it) and keeps the raw reports (--raw FILE).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, ".build", "release", "pageheight")
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "articles")
ENV = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
STEPS = ["width=1024", "font-size=20", "zoom=1.5", "zoom=1", "color-scheme=dark", "color-scheme=light", "width=390"]


def corpus_pages():
    pages = []
    for root, _, files in os.walk(CORPUS):
        if "source.html" in files:
            pages.append(os.path.join(root, "source.html"))
    return sorted(pages)


def batch(pages, arguments):
    """One `pageheight batch` run over `pages` with `arguments`: the reports, in list order."""
    listing = "\n".join(pages) + "\n"
    run = subprocess.run([BINARY, "batch", "--jobs", "1", "--no-progress", "--offline"] + arguments + ["-"],
                         input=listing, capture_output=True, text=True, env=ENV)
    reports = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return sorted(reports, key=lambda r: r.get("index", 0))


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=40, help="corpus pages for both parts (default 40)")
    parser.add_argument("--markdown")
    parser.add_argument("--raw")
    options = parser.parse_args()
    corpus = corpus_pages()
    step = max(1, len(corpus) // options.pages)
    chosen = corpus[::step][:options.pages]
    static = [os.path.join(ROOT, "Pages", name) for name in ["static.html", "long-article.html"]]

    # 1. Cost per step: static fixtures (five runs each) and corpus articles.
    steps_args = sum((["--then", s] for s in STEPS), [])
    fixture_reports = batch(static * 5, steps_args)
    cost_reports = batch(chosen, steps_args)
    click_reports = batch([os.path.join(ROOT, "Pages", "step-details.html")] * 10, ["--then", "click=summary"])

    def per_kind(reports):
        kinds = {}
        for report in reports:
            if report.get("status") != "ok":
                continue
            for entry in report.get("steps") or []:
                seconds = (entry.get("timings") or {}).get("realSeconds")
                if entry.get("status") == "ok" and seconds is not None:
                    kinds.setdefault(entry["step"], []).append(seconds)
        return kinds

    # 2. Cross-check: a step to 1024 against a fresh load at 1024, alternating.
    stepped, fresh = [], []
    for page in chosen:
        stepped += batch([page], ["--then", "width=1024"])
        fresh += batch([page], ["--width", "1024"])
    rows, equal, compared = [], 0, 0
    for page, a, b in zip(chosen, stepped, fresh):
        after = (a.get("steps") or [{}])[0]
        if a.get("status") != "ok" or b.get("status") != "ok" or after.get("status") != "ok":
            rows.append((page, a.get("status"), after.get("status"), b.get("status"), None, None))
            continue
        compared += 1
        same = abs(after["height"] - b["height"]) <= 5
        equal += same
        if not same:
            rows.append((page, a["height"], after["height"], b["height"], after["height"] - b["height"], None))

    lines = ["## Steps (`--then`)", "",
             f"Release build, virtual clock, --offline, one job; `--then` {' '.join(STEPS)}. Wall time of each "
             "step, from applied to its verdict (`steps[].timings.realSeconds`).", ""]
    tables = [("static fixtures (`Pages/static.html`, `Pages/long-article.html`: 1,234 and 50,000 px), five runs each",
               per_kind(fixture_reports + click_reports)),
              (f"{len(chosen)} corpus articles", per_kind(cost_reports))]
    for title, kinds in tables:
        lines += [f"**{title}**" + (" (and 10 runs of `Pages/step-details.html` with `--then click=summary`)" if "static" in title else ""), "",
                  "| step | steps | median | p90 | max |", "| --- | --- | --- | --- | --- |"]
        for kind, values in kinds.items():
            lines.append(f"| `{kind}` | {len(values)} | {statistics.median(values) * 1000:.0f} ms | "
                         f"{percentile(values, 90) * 1000:.0f} ms | {max(values) * 1000:.0f} ms |")
        everything = [v for values in kinds.values() for v in values]
        if everything:
            lines += ["", f"All: median {statistics.median(everything) * 1000:.0f} ms, p90 "
                      f"{percentile(everything, 90) * 1000:.0f} ms, max {max(everything) * 1000:.0f} ms over {len(everything)} steps.", ""]
    lines += ["", f"Cross-check: after `--then width=1024` against a fresh `--width 1024`: {equal} of {compared} "
              f"pages within 5 px ({equal / max(compared, 1) * 100:.1f}%)" + (f"; {len(chosen) - compared} not compared "
              "(a status other than ok)" if compared < len(chosen) else "") + ".", ""]
    if rows:
        lines += ["| page | at 390 | after width=1024 | fresh at 1024 | difference |", "| --- | --- | --- | --- | --- |"]
        for page, base, after, fresh_height, diff, _ in rows:
            name = os.path.relpath(page, CORPUS) if page.startswith(CORPUS) else os.path.basename(page)
            lines.append(f"| {name} | {base} | {after} | {fresh_height} | {'' if diff is None else f'{diff:+.0f} px'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if options.markdown:
        with open(options.markdown, "w") as f:
            f.write(text)
    if options.raw:
        with open(options.raw, "w") as f:
            json.dump({"fixtures": fixture_reports, "cost": cost_reports, "clicks": click_reports, "stepped": stepped, "fresh": fresh}, f)


if __name__ == "__main__":
    sys.exit(main())
