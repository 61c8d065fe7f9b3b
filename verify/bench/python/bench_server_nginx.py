"""Through nginx: the gateway's auth_request against a no-op auth endpoint, same nginx, same run.

    python bench_server_nginx.py WORKDIR ROUNDS REQUESTS CONCURRENCY REDIS_URL > server_nginx.json

One nginx with two sites in front of one plain backend (Python's http.server is too slow to be
the bottleneck-free backend, so the backend is nginx itself: a static file): site A guards it with
the gateway (`inactivity-server`, on Redis, two workers) through the configuration docs/server.md
prints; site B guards it with an auth endpoint that answers 204 at once (nginx's own `return
204`), the floor of any auth_request. ApacheBench (`ab -k`) measures requests per second and the
99th percentile, the two sites alternating ROUNDS times; the medians are reported.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import urllib.request
from typing import Any, Dict, List

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bindings", "python", "tests_server"))

from test_gateway import free_port, nginx_http_snippet, nginx_snippet, wait_for_port  # noqa: E402


def ab(url: str, requests: int, concurrency: int, cookie: str) -> Dict[str, float]:
    out = subprocess.run(["ab", "-k", "-q", "-n", str(requests), "-c", str(concurrency), "-H", f"Cookie: inactivity_session={cookie}",
                          url], capture_output=True, text=True, timeout=600).stdout
    rps = float(re.search(r"Requests per second:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p99 = float(re.search(r"\s99%\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    failed = int(re.search(r"Failed requests:\s+(\d+)", out).group(1))  # type: ignore[union-attr]
    non2xx = re.search(r"Non-2xx responses:\s+(\d+)", out)
    if failed or non2xx:
        raise SystemExit(f"ab: {failed} failed, {non2xx.group(1) if non2xx else 0} non-2xx answers at {url}")
    return {"rps": rps, "p99_ms": p99}


def main() -> int:
    work, rounds, requests, concurrency, redis = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    os.makedirs(os.path.join(work, "site"), exist_ok=True)
    with open(os.path.join(work, "site", "index.html"), "w") as f:
        f.write("the backend's page\n")
    procs: List[subprocess.Popen[bytes]] = []
    try:
        gport = free_port()
        procs.append(subprocess.Popen(["inactivity-server", "--port", str(gport), "--store", redis, "--workers", "2",
                                       "--demo-sign-in", "--insecure-cookie"], cwd=work,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for_port(gport, procs[-1], "inactivity-server")
        backend, guarded, floor = free_port(), free_port(), free_port()
        snippet = nginx_snippet().replace("127.0.0.1:8250", f"127.0.0.1:{gport}").replace("127.0.0.1:8080", f"127.0.0.1:{backend}")
        upstream = nginx_http_snippet().replace("127.0.0.1:8250", f"127.0.0.1:{gport}")
        conf = os.path.join(work, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""
daemon off;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {work}/body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
{upstream}
    server {{ listen 127.0.0.1:{backend}; root {work}/site; }}
    server {{
        listen 127.0.0.1:{guarded};
{snippet}
    }}
    server {{
        listen 127.0.0.1:{floor};
        location = /_noop_auth {{ internal; return 204; }}
        location / {{ auth_request /_noop_auth; proxy_pass http://127.0.0.1:{backend}; }}
    }}
}}
""")
        procs.append(subprocess.Popen(["nginx", "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        for port in (backend, guarded, floor):
            wait_for_port(port, procs[-1], "nginx")
        request = urllib.request.Request(f"http://127.0.0.1:{guarded}/inactivity/sign-in", method="POST",
                                         data=json.dumps({"user": "bench", "device": "ab"}).encode(),
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as r:
            cookie = json.loads(r.read())["session_id"]
        ab(f"http://127.0.0.1:{guarded}/", 200, concurrency, cookie)   # warm-up (connections, caches)
        ab(f"http://127.0.0.1:{floor}/", 200, concurrency, cookie)
        runs: Dict[str, List[Dict[str, float]]] = {"gateway": [], "noop": []}
        for _ in range(rounds):
            runs["gateway"].append(ab(f"http://127.0.0.1:{guarded}/", requests, concurrency, cookie))
            runs["noop"].append(ab(f"http://127.0.0.1:{floor}/", requests, concurrency, cookie))
        result: Dict[str, Any] = {k: {"rps": statistics.median(r["rps"] for r in v),
                                      "p99_ms": statistics.median(r["p99_ms"] for r in v)} for k, v in runs.items()}
        result["ratio"] = result["gateway"]["rps"] / result["noop"]["rps"]
        result["p99_added_ms"] = result["gateway"]["p99_ms"] - result["noop"]["p99_ms"]
        result["requests"], result["concurrency"], result["rounds"] = requests, concurrency, rounds
        json.dump(result, sys.stdout, indent=1)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
