#!/usr/bin/env python3
"""Real clients of `pageheight serve` for its tests (Tests/PageHeightServeTests): Python's own
urllib and http.client, and prometheus_client's text parser. Each mode prints one JSON object.

  serve_client.py concurrent URL CLIENTS FILE...   CLIENTS threads, each POSTs /v1/measure with
                                                   every FILE's HTML in turn (its own order)
  serve_client.py batch-disconnect URL FILE COUNT  POSTs /v1/batch with COUNT lines of FILE's HTML,
                                                   reads the first line out, then closes the socket
  serve_client.py measure-disconnect URL FILE     POSTs /v1/measure with FILE's HTML, then closes the
                                                   socket before the answer
  serve_client.py metrics URL [TOKEN]              GETs /metrics, parses it with prometheus_client
  serve_client.py measure URL BODYFILE [TOKEN]     one POST /v1/measure with urllib
"""
import http.client
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request


def post(url, body, token=None, timeout=120):
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", "Bearer " + token)
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode(), dict(response.headers), time.monotonic() - started
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers), time.monotonic() - started


def concurrent(base, clients, files):
    pages = [open(name, encoding="utf-8").read() for name in files]
    results = []
    lock = threading.Lock()

    def client(number):
        for turn in range(len(pages)):
            which = (number + turn) % len(pages)
            status, body, _, seconds = post(base + "/v1/measure", json.dumps({"html": pages[which]}).encode())
            report = json.loads(body) if status == 200 else {}
            with lock:
                results.append({"client": number, "page": files[which], "status": status,
                                "reportStatus": report.get("status"), "height": report.get("height"), "seconds": seconds})

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"results": results, "wall": time.monotonic() - started}


def batch_disconnect(base, file, count):
    html = open(file, encoding="utf-8").read()
    body = "".join(json.dumps({"html": html}) + "\n" for _ in range(count)).encode()
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request("POST", "/v1/batch", body=body, headers={"Content-Type": "application/x-ndjson"})
    response = connection.getresponse()
    first = response.readline().decode()
    connection.sock.close()  # goes away with the batch unfinished
    connection.close()
    return {"status": response.status, "first": json.loads(first)}


def measure_disconnect(base, file):
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request("POST", "/v1/measure", body=json.dumps({"html": open(file, encoding="utf-8").read(),
                                                               "options": {"clock": "real"}}).encode(),
                       headers={"Content-Type": "application/json"})
    time.sleep(0.5)
    connection.sock.close()  # goes away before the answer
    connection.close()
    return {"closed": True}


def metrics(base, token=None):
    from prometheus_client.parser import text_string_to_metric_families
    request = urllib.request.Request(base + "/metrics")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
        content_type = response.headers.get("Content-Type")
    families = {}
    for family in text_string_to_metric_families(text):
        families[family.name] = {"type": family.type,
                                 "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]}
    return {"contentType": content_type, "families": families}


def main():
    mode, base = sys.argv[1], sys.argv[2].rstrip("/")
    if mode == "concurrent":
        result = concurrent(base, int(sys.argv[3]), sys.argv[4:])
    elif mode == "batch-disconnect":
        result = batch_disconnect(base, sys.argv[3], int(sys.argv[4]))
    elif mode == "measure-disconnect":
        result = measure_disconnect(base, sys.argv[3])
    elif mode == "metrics":
        result = metrics(base, sys.argv[3] if len(sys.argv) > 3 else None)
    elif mode == "measure":
        status, body, headers, seconds = post(base + "/v1/measure", open(sys.argv[3], "rb").read(),
                                              sys.argv[4] if len(sys.argv) > 4 else None)
        result = {"status": status, "body": body, "headers": headers}
    else:
        raise SystemExit("unknown mode " + mode)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
