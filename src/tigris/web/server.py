"""The server on the wire (``tigris serve``): the socket bound before the address is
shown (``listen``), uvicorn with its limits (``server``: a request whole within
``REQUEST_SECONDS``, an idle connection closed after ``KEEP_ALIVE_SECONDS``, at most
``connection_cap()`` connections held, a new one pushing out the oldest that waits),
and ``run`` until Ctrl-C."""


from tigris.errors import UsageError
from tigris.web.guard import authority, with_port

__all__ = ["DEFAULT_PORT", "MAX_CONNECTIONS", "REQUEST_SECONDS", "KEEP_ALIVE_SECONDS", "MAX_HEAD",
           "BACKLOG", "listen", "server", "connection_cap", "run"]

DEFAULT_PORT = 8765
MAX_CONNECTIONS = 500       # connections held at once (fewer under a low open-file limit)
REQUEST_SECONDS = 10.0      # a request (its head and body) must arrive whole within this
KEEP_ALIVE_SECONDS = 5      # an idle connection is closed after this
MAX_HEAD = 16 * 1024        # bytes of a request's line and headers
BACKLOG = 128               # connections the system queues before they are accepted


def listen(host="127.0.0.1", port=DEFAULT_PORT):
    """A socket bound to `host`:`port` (0: a free port) and listening, so that
    connections wait from now on; UsageError if it cannot be."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except (OSError, OverflowError) as e:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port} ({getattr(e, 'strerror', None) or e})") from None
    return sock


def server(app, sock, names=(), max_connections=None, request_seconds=REQUEST_SECONDS):
    """A uvicorn server of `app` (``create_app``) for the listening socket `sock`
    (``listen``): the app answers to the socket's address and to `names` (a host name,
    with or without a port: ``Addresses.listen``); on the wire, a request must arrive
    whole within `request_seconds`, an idle connection is closed after
    KEEP_ALIVE_SECONDS, and at most `max_connections` (default: ``connection_cap()``)
    are held.  Serve with ``.run(sockets=[sock])``."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    app.state.addresses.listen(host, port, names)
    cap = max_connections or connection_cap()
    config = uvicorn.Config(app, log_level="warning", http=_guarded_protocol(cap, request_seconds),
                            ws="none", lifespan="on", backlog=BACKLOG, timeout_keep_alive=KEEP_ALIVE_SECONDS,
                            limit_concurrency=cap + BACKLOG, h11_max_incomplete_event_size=MAX_HEAD,
                            timeout_graceful_shutdown=3, server_header=False)
    return uvicorn.Server(config)


def connection_cap():
    """MAX_CONNECTIONS, or fewer under a low open-file limit: room is left for the
    connections accepted at once (BACKLOG) and for the searches' pipes and the files
    read, so that accepting never runs out of files."""
    try:
        import resource
    except ImportError:                          # not a POSIX system
        return MAX_CONNECTIONS
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft - BACKLOG - 256))


def _more_files(wanted=4096):
    """Raise this process's open-file limit towards `wanted` (up to the hard limit)."""
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass

_PROTOCOLS: dict = {}            # the guarded protocol classes made, by (cap, seconds)


def _guarded_protocol(cap, seconds):
    """uvicorn's HTTP/1.1 protocol (h11) with the guards uvicorn lacks: a request must
    arrive whole within `seconds` of its connection's start or of the last answer
    (uvicorn has no timeout for a request's head: a client could trickle it forever),
    and at most `cap` connections are held: a new one pushes out the oldest that waits
    for a request, or is closed if all are answering one."""
    if (cap, seconds) in _PROTOCOLS:
        return _PROTOCOLS[cap, seconds]
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11(H11Protocol):
        _deadline = None
        _waiting_since = None          # when it began to wait for a request; None: answering

        def connection_made(self, transport):
            super().connection_made(transport)
            held = [c for c in self.connections if not c.transport.is_closing()]
            if len(held) > cap:
                waiting = [c for c in held if c is not self and c._waiting_since is not None]
                if not waiting:
                    transport.close()
                    return
                min(waiting, key=lambda c: c._waiting_since).transport.close()
            self._wait()

        def _wait(self):
            self._waiting_since = self.loop.time()
            self._cancel()
            self._deadline = self.loop.call_later(seconds, self._too_slow)

        def _cancel(self):
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self):
            self._deadline = None
            if not self.transport.is_closing():
                self.transport.close()

        def handle_events(self):
            super().handle_events()
            if self.cycle is not None and not self.cycle.response_complete:
                self._waiting_since = None          # a request under way
                if not self.cycle.more_body:
                    self._cancel()                  # it has arrived whole

        def on_response_complete(self):
            if not self.transport.is_closing():
                self._wait()
            super().on_response_complete()

        def connection_lost(self, exc):
            self._cancel()
            super().connection_lost(exc)

    _PROTOCOLS[cap, seconds] = GuardedH11
    return GuardedH11


def run(app, host="127.0.0.1", port=DEFAULT_PORT, announce=print, names=()):
    """Serve `app` on `host`:`port` (0: a free port) with uvicorn until Ctrl-C; the
    address goes to `announce` once the socket is bound, then the other addresses it
    answers to (`names` among them)."""
    import socket

    _more_files()
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    try:
        uvicorn_server = server(app, sock, names=[host, *names])
    except UsageError:
        sock.close()
        raise
    shown = f"[{host}]" if sock.family == socket.AF_INET6 else host
    announce(f"tigris serve: http://{shown}:{bound}/  (Ctrl-C stops it)")
    others = [n for n in app.state.addresses.names if n != authority(with_port(host, bound))]
    if others:
        announce("it answers at " + ", ".join(f"http://{n}/" for n in others) + " as well; at no other name")
    uvicorn_server.run(sockets=[sock])
