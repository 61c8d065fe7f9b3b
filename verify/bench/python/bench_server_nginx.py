"""Through nginx: the gateway's auth_request against no-op auth endpoints, same nginx, same run.

    python bench_server_nginx.py WORKDIR ROUNDS REQUESTS CONCURRENCY REDIS_URL [WORKERS] > server_nginx.json

One nginx in front of one plain backend (nginx itself, a static file: Python's http.server would
be the bottleneck), with a site per auth endpoint, each an auth_request in front of the backend:
  - gateway_sqlite, gateway_redis: the gateway (`inactivity-server`, WORKERS processes, default
    2) on SQLite (the default store) and on Redis, through the configuration docs/server.md
    prints (tests_server/nginx_conf.py, the one the gateway's tests run);
  - noop: nginx's own `return 204` in an internal location, the floor of any auth_request (the
    issue's floor: no process, no connection, no HTTP parse);
  - noop_uvicorn: a bare ASGI app answering 204 at once, on uvicorn (uvloop, httptools) with the
    same workers, behind the same documented configuration (the upstream's keepalive): the floor
    of an auth service out of nginx's process, in the gateway's own kind of server;
  - noop_upstream: a second nginx (its own process, one worker) answering 204 at once, behind the
    same documented configuration: the cheapest auth service out of nginx's process there is, so
    its ratio to `noop` is what the auth subrequest's hop alone costs (the front nginx proxies it,
    parses the answer, keeps the connection), whatever the service behind it.
ApacheBench (`ab -k`) measures requests per second and the 99th percentile, the sites
alternating ROUNDS times; the medians are reported, and each gateway's ratio and added p99
against both floors.
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

from nginx_conf import DOC_BACKEND, DOC_GATEWAY, nginx_http_snippet, nginx_snippet, write_nginx_conf  # noqa: E402
from test_gateway import free_port, stop_processes, wait_for_port  # noqa: E402

NOOP_APP = '''
async def app(scope, receive, send):
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})
'''


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


def tree_cpu_s(root: int) -> float:
    """The CPU time (user + system, seconds) of process `root` and of its live descendants (the
    service's workers), from /proc: what answering costs, whatever else runs on the machine."""
    children: Dict[int, List[int]] = {}
    cpu: Dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue   # gone meanwhile
        children.setdefault(int(fields[1]), []).append(int(entry))
        cpu[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [root]
    while todo:
        pid = todo.pop()
        total += cpu.get(pid, 0.0)
        todo.extend(children.get(pid, []))
    return total


def documented_site(listen: int, upstream: str, auth_port: int, backend: int) -> str:
    """docs/server.md's upstream and locations once more, for another auth service (renamed
    upstream): the floor gets exactly the gateway's nginx configuration."""
    http = nginx_http_snippet().replace("inactivity_gateway", upstream).replace(DOC_GATEWAY, f"127.0.0.1:{auth_port}")
    site = nginx_snippet().replace("inactivity_gateway", upstream).replace(DOC_BACKEND, f"127.0.0.1:{backend}")
    return f"{http}\n    server {{\n        listen 127.0.0.1:{listen};\n{site}\n    }}\n"


def main() -> int:
    work, rounds, requests, concurrency, redis = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    workers = int(sys.argv[6]) if len(sys.argv) > 6 else 2
    os.makedirs(os.path.join(work, "site"), exist_ok=True)
    with open(os.path.join(work, "site", "index.html"), "w") as f:
        f.write("the backend's page\n")
    with open(os.path.join(work, "noop_auth.py"), "w") as f:
        f.write(NOOP_APP)
    procs: List[subprocess.Popen[bytes]] = []
    try:
        ports: Dict[str, int] = {}
        for name, store in (("gateway_sqlite", "sqlite:" + os.path.join(work, "sessions.sqlite3")), ("gateway_redis", redis)):
            ports[name] = free_port()
            # --timeout 5: a figure, not a fail-closed test (a write's fsync on a loaded disk can take
            # longer than the default second, which is a 503 and fails the run).
            procs.append(subprocess.Popen(["inactivity-server", "--port", str(ports[name]), "--store", store, "--workers",
                                           str(workers), "--timeout", "5", "--demo-sign-in", "--insecure-cookie"], cwd=work,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_for_port(ports[name], procs[-1], "inactivity-server")
        noop_port = free_port()
        procs.append(subprocess.Popen([sys.executable, "-m", "uvicorn", "noop_auth:app", "--app-dir", work, "--port", str(noop_port),
                                       "--workers", str(workers), "--lifespan", "off", "--no-access-log", "--log-level", "warning",
                                       "--loop", "uvloop", "--http", "httptools"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for_port(noop_port, procs[-1], "uvicorn (no-op auth)")
        # The no-op upstream: a second nginx, out of the front nginx's process, as any auth service is.
        upstream_port = free_port()
        os.makedirs(os.path.join(work, "upstream"), exist_ok=True)
        upstream_conf = os.path.join(work, "upstream", "nginx.conf")
        with open(upstream_conf, "w") as f:
            f.write(f"""daemon off;
worker_processes 1;
pid {work}/upstream/nginx.pid;
error_log {work}/upstream/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {work}/upstream/body;
    proxy_temp_path {work}/upstream/proxy;
    fastcgi_temp_path {work}/upstream/fastcgi;
    uwsgi_temp_path {work}/upstream/uwsgi;
    scgi_temp_path {work}/upstream/scgi;
    keepalive_requests 1000000;
    server {{ listen 127.0.0.1:{upstream_port}; location / {{ return 204; }} }}
}}
""")
        procs.append(subprocess.Popen(["nginx", "-c", upstream_conf, "-p", os.path.join(work, "upstream")],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_for_port(upstream_port, procs[-1], "nginx (no-op upstream)")
        backend, redis_site, floor, uvicorn_site = free_port(), free_port(), free_port(), free_port()
        sqlite_site, upstream_site = free_port(), free_port()
        servers = (documented_site(redis_site, "gateway_redis", ports["gateway_redis"], backend)
                   + documented_site(uvicorn_site, "noop_uvicorn", noop_port, backend)
                   + documented_site(upstream_site, "noop_upstream", upstream_port, backend)
                   + f"""    server {{ listen 127.0.0.1:{backend}; root {work}/site; }}
    server {{
        listen 127.0.0.1:{floor};
        location = /_noop_auth {{ internal; return 204; }}
        location / {{ auth_request /_noop_auth; proxy_pass http://127.0.0.1:{backend}; }}
    }}
""")
        conf = write_nginx_conf(work, gateway=ports["gateway_sqlite"], backend=backend, listen=sqlite_site, servers=servers,
                                worker_connections=1024)
        procs.append(subprocess.Popen(["nginx", "-c", conf, "-p", work], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        sites = {"gateway_sqlite": sqlite_site, "gateway_redis": redis_site, "noop": floor, "noop_uvicorn": uvicorn_site,
                 "noop_upstream": upstream_site}
        for port in (backend, *sites.values()):
            wait_for_port(port, procs[-1], "nginx")
        cookies = {}
        for name in ("gateway_sqlite", "gateway_redis"):
            request = urllib.request.Request(f"http://127.0.0.1:{sites[name]}/inactivity/sign-in", method="POST",
                                             data=json.dumps({"user": "bench", "device": "ab"}).encode(),
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=10) as r:
                cookies[name] = json.loads(r.read())["session_id"]
        cookies["noop"] = cookies["noop_uvicorn"] = cookies["noop_upstream"] = cookies["gateway_sqlite"]
        for name, port in sites.items():   # warm-up (connections, caches)
            ab(f"http://127.0.0.1:{port}/", 200, concurrency, cookies[name])
        # The auth service's processes per site (nginx's own return 204 has none): their CPU per
        # request, read around each run, is the figure that other load on the machine moves least.
        services = {"gateway_sqlite": procs[0].pid, "gateway_redis": procs[1].pid, "noop_uvicorn": procs[2].pid,
                    "noop_upstream": procs[3].pid}
        runs: Dict[str, List[Dict[str, float]]] = {name: [] for name in sites}
        for _ in range(rounds):
            for name, port in sites.items():
                before = tree_cpu_s(services[name]) if name in services else 0.0
                run = ab(f"http://127.0.0.1:{port}/", requests, concurrency, cookies[name])
                if name in services:
                    run["service_cpu_us"] = (tree_cpu_s(services[name]) - before) * 1e6 / requests
                runs[name].append(run)
        result: Dict[str, Any] = {k: {key: statistics.median(r[key] for r in v) for key in v[0]} for k, v in runs.items()}
        for gateway in ("gateway_sqlite", "gateway_redis", "noop_upstream"):
            for floor_name in ("noop", "noop_uvicorn", "noop_upstream"):
                if floor_name == gateway:
                    continue
                result[f"{gateway}/{floor_name}"] = {
                    "ratio": result[gateway]["rps"] / result[floor_name]["rps"],
                    "p99_added_ms": result[gateway]["p99_ms"] - result[floor_name]["p99_ms"],
                }
        # The figure: the default store's gateway against nginx's own no-op.
        result["gateway"] = result["gateway_sqlite"]
        result["ratio"] = result["gateway_sqlite/noop"]["ratio"]
        result["p99_added_ms"] = result["gateway_sqlite/noop"]["p99_added_ms"]
        result["requests"], result["concurrency"], result["rounds"], result["workers"] = requests, concurrency, rounds, workers
        result["load"] = os.getloadavg()
        json.dump(result, sys.stdout, indent=1)
    finally:
        stop_processes(procs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
