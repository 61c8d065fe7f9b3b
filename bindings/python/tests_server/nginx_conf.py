"""The nginx configuration docs/server.md prints, as the gateway's tests and its benchmark
(verify/bench/python/bench_server_nginx.py) run it: one reader of the documented blocks and one writer
of the whole file, so that what the docs print is what both run."""

from __future__ import annotations

import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "..", "..", "docs", "server.md")
#: The addresses the documented blocks use: the gateway and the backend.
DOC_GATEWAY = "127.0.0.1:8250"
DOC_BACKEND = "127.0.0.1:8080"


def doc_block(name: str) -> str:
    """The ```nginx block between ``<!-- NAME -->`` and ``<!-- end NAME -->`` of docs/server.md."""
    with open(DOCS) as f:
        text = f.read()
    m = re.search(rf"<!-- {name} -->\n```nginx\n(.*?)```\n<!-- end {name} -->", text, re.S)
    assert m, f"docs/server.md has no {name} block"
    return m.group(1)


def nginx_snippet() -> str:
    """The server-level part of docs/server.md's configuration (the locations)."""
    return doc_block("nginx-config")


def nginx_http_snippet() -> str:
    """The http-level part of docs/server.md's configuration (the gateway's upstream)."""
    return doc_block("nginx-http-config")


def write_nginx_conf(directory: str, *, gateway: int, backend: int, listen: int, servers: str = "",
                     worker_connections: int = 64) -> str:
    """Writes DIRECTORY/nginx.conf: the documented upstream and locations, pointed at the gateway's
    and the backend's ports, in a server listening on `listen`; `servers`, more server blocks
    (the benchmark's floors). Returns its path (run ``nginx -c PATH -p DIRECTORY``)."""
    snippet = nginx_snippet().replace(DOC_GATEWAY, f"127.0.0.1:{gateway}").replace(DOC_BACKEND, f"127.0.0.1:{backend}")
    upstream = nginx_http_snippet().replace(DOC_GATEWAY, f"127.0.0.1:{gateway}")
    conf = os.path.join(directory, "nginx.conf")
    with open(conf, "w") as f:
        f.write(f"""
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections {worker_connections}; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
{upstream}
    server {{
        listen 127.0.0.1:{listen};
{snippet}
    }}
{servers}
}}
""")
    return conf
