#!/usr/bin/env python3
"""pageheight serve benchmark (issue 59): requests per second and latency of `pageheight serve`
under a real load generator, against `pageheight batch` at equal jobs and against the CLI started
per page, on the same corpus pages.

- a static page (Pages/static.html sent as `html`), one client at a time, `hey`: p50 and p99 of
  the round trip over loopback;
- the corpus pages (../shared/corpus/articles: readability/*/reader.html, readability/*/source.html,
  aeb/*/source.html), each sent as `{"html": ...}` (the server has `--offline`), `wrk` with a Lua
  script that cycles through them from a different page in each connection, at 1, 4 and 16
  concurrent clients for `--seconds` each: requests/s, p50, p99, non-2xx answers;
- every corpus page once, 16 clients at a time (Python threads, urllib), sent as `{"url": PATH}`
  (the server has `--pages-dir` the corpus) and as `{"html": ...}`: pages/s by the wall clock, the
  same work as a batch; the file pages' heights and statuses against the batch's;
- `pageheight batch --offline --jobs N` on the same pages as files: pages/s;
- `pageheight --offline --json PAGE`, started once per page, on the first `--cli-pages` pages;
- with `--memory`, 10,000 requests of the static page at 8 clients (`hey`) while the process
  tree's private memory (`/metrics`' `pageheight_process_tree_private_bytes`) is read every 2 s.

    python3 scripts/benchmark/serve.py --jobs 4 --seconds 60 --markdown serve.md --raw serve.json

Prints a Markdown section on stdout. `scripts/bench serve` builds the release binary and installs
wrk and hey (Debian's) first.
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
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from core import BINARY, CORPUS, ENV, ROOT  # noqa: E402

BINARY = os.environ.get("PAGEHEIGHT_BENCH_BINARY", BINARY)

LUA = r"""
local bodies = {}
local next_body = 1
local threads = 0
setup = function(thread)
  thread:set("id", threads)
  threads = threads + 1
end
init = function(args)
  for path in io.lines(args[1]) do
    local file = io.open(path, "rb")
    bodies[#bodies + 1] = file:read("*a")
    file:close()
  end
  -- every thread starts at another page
  next_body = ((id or 0) * 37) % #bodies + 1
end
request = function()
  local body = bodies[next_body]
  next_body = next_body % #bodies + 1
  return wrk.format("POST", "/v1/measure", {["Content-Type"] = "application/json"}, body)
end
"""


def corpus_pages(limit=None):
    pages = sorted(glob.glob(os.path.join(CORPUS, "readability", "*", "reader.html"))
                   + glob.glob(os.path.join(CORPUS, "readability", "*", "source.html"))
                   + glob.glob(os.path.join(CORPUS, "aeb", "*", "source.html")))
    return pages[:limit] if limit else pages


def start_server(jobs, work):
    log = open(os.path.join(work, "serve.log"), "w")
    process = subprocess.Popen([BINARY, "serve", "--listen", "127.0.0.1:0", "--jobs", str(jobs), "--queue", "512",
                                "--offline", "--pages-dir", CORPUS], env=ENV, stdout=subprocess.DEVNULL, stderr=log)
    url = None
    deadline = time.time() + 60
    while time.time() < deadline:
        for line in open(log.name):
            event = json.loads(line)
            if event.get("event") == "listening":
                url = event["url"]
            if event.get("event") == "ready":
                return process, url
        time.sleep(0.05)
    process.kill()
    raise SystemExit("the server did not start: " + open(log.name).read()[-800:])


def stop_server(process):
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=120)


def seconds(text):
    """wrk's and hey's durations: 12.3ms, 1.2s, 500us, 0.0123 (secs)."""
    match = re.match(r"([\d.]+)\s*(us|ms|s|m)?", text.strip())
    value, unit = float(match.group(1)), match.group(2) or "s"
    return value * {"us": 1e-6, "ms": 1e-3, "s": 1, "m": 60}[unit]


def hey(url, body, requests, clients):
    out = subprocess.run(["hey", "-n", str(requests), "-c", str(clients), "-m", "POST", "-T", "application/json",
                          "-D", body, "-t", "120", url + "/v1/measure"], capture_output=True, text=True, check=True).stdout
    result = {"requests": requests, "clients": clients,
              "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))}
    for p in ("50", "90", "99"):
        match = re.search(p + r"% in ([\d.]+) secs", out)
        result["p" + p] = float(match.group(1)) if match else None
    codes = dict((int(c), int(n)) for c, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", out))
    result["statuses"] = codes
    return result


def wrk(url, listfile, clients, duration, script):
    threads = min(clients, 4)
    out = subprocess.run(["wrk", "-t", str(threads), "-c", str(clients), "-d", f"{duration}s", "--timeout", "120s", "--latency",
                          "-s", script, url + "/v1/measure", "--", listfile], capture_output=True, text=True, check=True).stdout
    result = {"clients": clients, "seconds": duration,
              "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
              "requests": int(re.search(r"(\d+) requests in", out).group(1))}
    latency = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", out, re.M))
    for p in ("50", "90", "99"):
        result["p" + p] = seconds(latency[p]) if p in latency else None
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    result["non2xx"] = int(non2xx.group(1)) if non2xx else 0
    errors = re.search(r"Socket errors: (.*)", out)
    result["socketErrors"] = errors.group(1) if errors else None
    return result


def fixed_pass(url, bodies, clients):
    """Every body once, `clients` at a time; the wall time and each answer's report (by index)."""
    reports = [None] * len(bodies)
    next_index = [0]
    lock = threading.Lock()

    def client():
        while True:
            with lock:
                index = next_index[0]
                next_index[0] += 1
            if index >= len(bodies):
                return
            request = urllib.request.Request(url + "/v1/measure", data=bodies[index], method="POST",
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=300) as response:
                    reports[index] = json.loads(response.read())
            except urllib.error.HTTPError as error:
                reports[index] = {"httpStatus": error.code}

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    return {"clients": clients, "pages": len(bodies), "wall": wall, "pagesPerSecond": len(bodies) / wall}, reports


def metric(url, name):
    text = urllib.request.urlopen(url + "/metrics", timeout=30).read().decode()
    match = re.search(r"^" + name + r" (\S+)$", text, re.M)
    return float(match.group(1)) if match else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=60, help="each wrk run's duration")
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--pages", type=int, default=None, help="only the first N corpus pages")
    parser.add_argument("--cli-pages", type=int, default=20)
    parser.add_argument("--memory", action="store_true", help="10,000 requests, the tree's memory read every 2 s")
    parser.add_argument("--markdown")
    parser.add_argument("--raw")
    args = parser.parse_args()

    pages = corpus_pages(args.pages)
    work = tempfile.mkdtemp(prefix="pageheight-serve-bench-")
    bodies = []
    for index, page in enumerate(pages):
        path = os.path.join(work, f"body-{index}.json")
        with open(page, encoding="utf-8", errors="replace") as source, open(path, "w") as body:
            json.dump({"html": source.read()}, body)
        bodies.append(path)
    listfile = os.path.join(work, "bodies.txt")
    open(listfile, "w").write("\n".join(bodies) + "\n")
    script = os.path.join(work, "cycle.lua")
    open(script, "w").write(LUA)
    static = os.path.join(work, "static.json")
    json.dump({"html": open(os.path.join(ROOT, "Pages", "static.html")).read()}, open(static, "w"))
    raw = {"jobs": args.jobs, "pages": len(pages), "binary": BINARY}

    process, url = start_server(args.jobs, work)
    try:
        hey(url, static, 20, 1)  # the views of the static page's settings are made
        raw["static"] = hey(url, static, 300, 1)
        print(f"static, 1 client: {raw['static']}", file=sys.stderr)
        raw["corpus"] = []
        for clients in [int(c) for c in args.clients.split(",")]:
            run = wrk(url, listfile, clients, args.seconds, script)
            raw["corpus"].append(run)
            print(f"corpus, {clients} clients: {run}", file=sys.stderr)
        fixed_clients = max(int(c) for c in args.clients.split(","))
        raw["fixedFiles"], file_reports = fixed_pass(url, [json.dumps({"url": page}).encode() for page in pages], fixed_clients)
        print(f"every page once as url: {raw['fixedFiles']}", file=sys.stderr)
        raw["fixedHTML"], _ = fixed_pass(url, [open(body, "rb").read() for body in bodies], fixed_clients)
        print(f"every page once as html: {raw['fixedHTML']}", file=sys.stderr)
        if args.memory:
            samples = []
            stop = threading.Event()

            def sample():
                while not stop.is_set():
                    samples.append(metric(url, "pageheight_process_tree_private_bytes"))
                    stop.wait(2)
            sampler = threading.Thread(target=sample)
            sampler.start()
            raw["memory"] = hey(url, static, 10000, 8)
            stop.set()
            sampler.join()
            raw["memory"]["treeBytes"] = [s for s in samples if s is not None]
            raw["memory"]["renewals"] = metric(url, "pageheight_web_process_renewals_total")
            print(f"memory: {raw['memory']['rps']} req/s, tree max {max(raw['memory']['treeBytes']) / 2**20:.0f} MB",
                  file=sys.stderr)
        raw["serveExit"] = stop_server(process)
    finally:
        if process.poll() is None:
            process.kill()

    pagelist = os.path.join(work, "pages.txt")
    open(pagelist, "w").write("\n".join(pages) + "\n")
    started = time.monotonic()
    subprocess.run([BINARY, "batch", "--offline", "--jobs", str(args.jobs), "--no-progress", "--out",
                    os.path.join(work, "batch.jsonl"), pagelist], env=ENV, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - started
    raw["batch"] = {"wall": wall, "pagesPerSecond": len(pages) / wall}
    print(f"batch: {raw['batch']}", file=sys.stderr)
    batch_reports = [json.loads(line) for line in open(os.path.join(work, "batch.jsonl")) if line.strip()]
    by_url = {report["url"]: report for report in batch_reports}
    same = differ = 0
    raw["differences"] = []
    for page, served in zip(pages, file_reports):
        batch = by_url.get("file://" + page)
        if served and batch and served.get("status") == batch.get("status") and served.get("height") == batch.get("height"):
            same += 1
        else:
            differ += 1
            raw["differences"].append({"page": page, "serve": served and (served.get("status"), served.get("height")),
                                       "batch": batch and (batch.get("status"), batch.get("height"))})
    raw["agreement"] = {"same": same, "differ": differ}

    cli = pages[:args.cli_pages]
    times = []
    for page in cli:
        started = time.monotonic()
        subprocess.run([BINARY, "--offline", "--json", page], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.monotonic() - started)
    raw["cli"] = {"pages": len(cli), "pagesPerSecond": len(cli) / sum(times), "p50": statistics.median(times)}
    print(f"cli: {raw['cli']}", file=sys.stderr)

    ms = lambda s: "–" if s is None else f"{s * 1000:.0f} ms"  # noqa: E731
    out = [f"### pageheight serve (issue 59): --jobs {args.jobs}, {len(pages)} corpus pages sent as html, --offline", "",
           f"Static page (`Pages/static.html` as `html`), one client, {raw['static']['requests']} requests (hey): "
           f"p50 {ms(raw['static']['p50'])}, p90 {ms(raw['static']['p90'])}, p99 {ms(raw['static']['p99'])}, "
           f"{raw['static']['rps']:.1f} req/s.", "",
           "| load | req/s (pages/s) | p50 | p90 | p99 | non-2xx |", "| --- | --- | --- | --- | --- | --- |"]
    for run in raw["corpus"]:
        out.append(f"| serve, {run['clients']} client{'s' if run['clients'] > 1 else ''} (wrk, {run['seconds']} s, "
                   f"{run['requests']} requests) | {run['rps']:.2f} | {ms(run['p50'])} | {ms(run['p90'])} | {ms(run['p99'])} "
                   f"| {run['non2xx']} |")
    for key, what in (("fixedFiles", "as `{\"url\": PATH}`"), ("fixedHTML", "as `{\"html\": …}`")):
        run = raw[key]
        out.append(f"| serve, every page once {what}, {run['clients']} clients (urllib) | {run['pagesPerSecond']:.2f} | | | | |")
    out.append(f"| batch --jobs {args.jobs}, the same pages as files | {raw['batch']['pagesPerSecond']:.2f} | | | | |")
    out.append(f"| the CLI started per page ({raw['cli']['pages']} pages, one at a time) | {raw['cli']['pagesPerSecond']:.2f} "
               f"| {ms(raw['cli']['p50'])} | | | |")
    out += ["", f"The same work (every page once, as files) through serve / batch: "
                f"{raw['fixedFiles']['pagesPerSecond'] / raw['batch']['pagesPerSecond']:.2f}; heights and statuses the same as "
                f"the batch's on {raw['agreement']['same']} of {len(pages)} pages."]
    if "memory" in raw:
        tree = raw["memory"]["treeBytes"]
        out += ["", f"10,000 requests of the static page at 8 clients: {raw['memory']['rps']:.1f} req/s, "
                    f"statuses {raw['memory']['statuses']}; the process tree's private memory read every 2 s: first "
                    f"{tree[0] / 2**20:.0f} MB, max {max(tree) / 2**20:.0f} MB, last {tree[-1] / 2**20:.0f} MB; "
                    f"{raw['memory']['renewals']:.0f} web process renewals."]
    text = "\n".join(out) + "\n"
    print(text)
    if args.markdown:
        open(args.markdown, "w").write(text)
    if args.raw:
        json.dump(raw, open(args.raw, "w"), indent=2)


if __name__ == "__main__":
    main()
