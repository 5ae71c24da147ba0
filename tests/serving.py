"""tigris serve for the tests: Starlette's test client as a page of the server (at an
address the server answers to, with its Origin), real servers in threads of this
process, each on a free port of 127.0.0.1, and the command in a process of its own."""

import re
import subprocess
import sys
import threading

ORIGIN = "http://tigris.test:8765"        # the address a test client names
HOST = ("127.0.0.1", 50000)               # a client on the server's machine: its host's browser
AWAY = ("192.0.2.7", 50000)               # a client on another machine (a seat over the network)


def client(app, **options):
    """A TestClient of `app` (``create_app``) that sends what the server's own pages send:
    the Host of one of its addresses and that Origin (``headers`` may replace them), from
    this machine (``client=AWAY`` for another's)."""
    from starlette.testclient import TestClient

    app.state.addresses.add(ORIGIN[len("http://"):])
    headers = {"Origin": ORIGIN, **options.pop("headers", {})}
    options.setdefault("client", HOST)
    return TestClient(app, base_url=ORIGIN, headers=headers, **options)


class Servers:
    """Servers in threads of this process, each on a free port of 127.0.0.1."""

    def __init__(self):
        self.running = []

    def __call__(self, folder, server_options=None, port=0, **options):
        """Start one over `folder` (``create_app`` options; ``server_options`` those of
        ``serve.server``) on `port` (0: a free one; a stopped server's again): its address."""
        from tigris.web import app as serve

        sock = serve.listen("127.0.0.1", port)
        app = serve.create_app([folder], **options)
        server = serve.server(app, sock, **(server_options or {}))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        self.running.append((server, thread, app))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/"

    def stop(self):
        """Stop them all (a server that stops keeps nothing but its files)."""
        for server, thread, _ in self.running:
            server.should_exit = True
            thread.join(timeout=10)
        self.running = []


def serve_process(args, cwd, files=None):
    """A `tigris serve ARGS` process (its open-file limit `files`) and the address it
    printed; stop it with ``processes.ctrl_c``."""
    from processes import as_in_a_terminal

    def limit():
        as_in_a_terminal()
        if files:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    process = subprocess.Popen([sys.executable, "-m", "tigris", "serve", *args], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    line = process.stdout.readline()
    match = re.search(r"http://\S+/", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    return process, match.group(0)
