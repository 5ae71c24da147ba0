"""The guards in front of the server's routes (``tigris serve``): request bodies bounded
(``BodyLimit``), security headers on every answer (``SecurityHeaders``), and only the
server's own pages drive it (``Guard``): a request whose ``Host`` is not an address it
listens on (``Addresses``) is refused (421, against DNS rebinding); a request that
changes something is a POST of ``Content-Type: application/json`` (415 otherwise) whose
``Origin`` is the server's (or, without one, ``Sec-Fetch-Site: same-origin``): 403
otherwise."""

import html

from tigris.errors import UsageError, excerpt
from tigris.web.folders import is_number

__all__ = ["LOCAL_HOSTS", "BodyLimit", "SecurityHeaders", "Addresses", "with_port", "authority", "Guard",
           "error_answer"]

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")


class BodyLimit:
    """Refuses a request whose body is larger than `limit` bytes (413), by its declared
    length or as it arrives, before the application reads it whole."""

    def __init__(self, app, limit):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            return await _too_large(scope, send, self.limit)
        seen = 0

        async def limited():
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge()
            return message

        try:
            await self.app(scope, limited, send)
        except _TooLarge:
            await _too_large(scope, send, self.limit)


class _TooLarge(Exception):
    pass


async def _too_large(scope, send, limit):
    from starlette.responses import JSONResponse

    response = JSONResponse({"error": f"the body is larger than {limit:,} bytes"}, status_code=413)
    await response(scope, None, send)


class SecurityHeaders:
    """Pages that no other site may frame, whose types the browser must not guess, and
    that load nothing from elsewhere."""

    HEADERS = [(b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
               (b"referrer-policy", b"no-referrer"),
               (b"content-security-policy",
                b"default-src 'self'; script-src 'self' 'unsafe-inline'; "
                b"style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        async def with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


class Addresses:
    """The addresses a server answers to, as a browser names them in ``Host`` and
    ``Origin``: ``host:port``, lower case, an IPv6 address in brackets.

    >>> from tigris.web.guard import Addresses
    >>> a = Addresses(["127.0.0.1:8765"])
    >>> a.allows("127.0.0.1:8765"), a.allows("evil.example:8765"), a.allows_origin("http://127.0.0.1:8765")
    (True, False, True)
    """

    def __init__(self, names=()):
        self.names = []
        for name in names:
            self.add(name)

    def add(self, name):
        """Answer to `name` (``host:port``, or a host alone: port 80)."""
        canonical = authority(name)
        if canonical is None:
            raise UsageError(f"{excerpt(name)}: not a host name or address (with its port)")
        if canonical not in self.names:
            self.names.append(canonical)

    def listen(self, host, port, names=()):
        """Answer to a server listening on `host`:`port`: that address, the names of
        this machine where the address is all of them (0.0.0.0, ::), ``localhost`` where
        it is this machine's alone, and `names` (host names, with or without a port).
        Returns the addresses added, in the order to print them."""
        import ipaddress

        wanted = [host]
        try:
            ip = ipaddress.ip_address(host.split("%")[0])
        except ValueError:
            ip = None
        # the loopback addresses of the socket's family (an IPv4 socket is not reached at ::1)
        loopback = ["127.0.0.1"] if ip is None or ip.version == 4 else ["::1"]
        if host == "localhost" or (ip is not None and ip.is_loopback):
            wanted += ["localhost", *loopback]
        elif ip is not None and ip.is_unspecified:
            wanted += ["localhost", *loopback] + [n for n in _machine_names()
                                                  if ip.version == 6 or ":" not in n]
        added = []
        for name in wanted + list(names):
            canonical = authority(with_port(name, port))
            if canonical is None:
                raise UsageError(f"{excerpt(name)}: not a host name or address (with its port)")
            if canonical not in self.names:
                self.names.append(canonical)
                added.append(canonical)
        return added

    def allows(self, host):
        """Whether a request's ``Host`` is one of the server's addresses."""
        return authority(host) in self.names

    def allows_origin(self, origin):
        """Whether an ``Origin`` is a page of this server (``http://`` and an address)."""
        origin = origin.strip().lower()
        return origin.startswith("http://") and self.allows(origin[len("http://"):])


def with_port(name, port):
    """`name` (a host name or address, maybe with its port) with `port` unless it names
    one; an IPv6 address in brackets."""
    if name.startswith("["):
        return name if ":" in name.rsplit("]", 1)[-1] else f"{name}:{port}"
    if name.count(":") > 1:                             # an IPv6 address alone
        return f"[{name}]:{port}"
    return name if ":" in name else f"{name}:{port}"


def authority(text):
    """`text` (a Host header, or a name and port) as ``host:port`` in lower case (port
    80 when none is given), or None if it is not one."""
    if not isinstance(text, str):
        return None
    text = text.strip().lower()
    if not text or not text.isascii() or any(c in text for c in " \t/\\@?#%,;"):
        return None
    if text.startswith("["):
        end = text.find("]")
        host, rest = text[:end + 1], text[end + 1:]
        if end < 2:
            return None
    else:
        host, sep, port = text.partition(":")
        rest = sep + port
    if rest == "":
        port = 80
    elif rest[:1] == ":" and is_number(rest[1:], 5) and rest[1:]:
        port = int(rest[1:])
    else:
        return None
    if not host or port > 65535:
        return None
    return f"{host}:{port}"


def _machine_names():
    """This machine's names and addresses, as other machines may reach it: its host
    name (and full name), their addresses and the address of its way out."""
    import socket

    names = []
    try:
        hostname = socket.gethostname()
        names += [hostname, socket.getfqdn()]
        names += [info[4][0] for info in socket.getaddrinfo(hostname, None, proto=socket.IPPROTO_TCP)]
    except OSError:
        pass
    try:                                    # no packet is sent: the route is looked up
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))
            names.append(probe.getsockname()[0])
    except OSError:
        pass
    return [n.split("%")[0] for n in names if n]


class Guard:
    """Only the server's own pages drive it (see the module's docstring): the Host must
    be an address of `addresses` (421), and a request that changes something (any
    method but GET, HEAD, OPTIONS) must come from one of its pages (``Origin``, or
    ``Sec-Fetch-Site: same-origin``; 403) with a JSON body (415)."""

    SAFE = ("GET", "HEAD", "OPTIONS")

    def __init__(self, app, addresses):
        self.app, self.addresses = app, addresses

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            refusal = self.refusal(scope)
            if refusal is not None:
                from starlette.requests import Request

                return await error_answer(Request(scope), *refusal)(scope, receive, send)
        await self.app(scope, receive, send)

    def refusal(self, scope):
        """(status, message) when the request is refused, else None."""
        headers = {}
        for key, value in scope.get("headers") or []:
            headers.setdefault(key, []).append(value.decode("latin-1"))
        hosts = headers.get(b"host", [])
        if len(hosts) != 1:
            return 400, "a request names its Host, once"
        if not self.addresses.allows(hosts[0]):
            return 421, (f"this server does not answer to {excerpt(hosts[0], 60)}: open it at the "
                         f"address it printed")
        if scope["method"] in self.SAFE:
            return None
        origins = headers.get(b"origin", [])
        if origins:
            if len(origins) > 1 or not self.addresses.allows_origin(origins[0]):
                return 403, (f"a change comes from this server's own pages, not from "
                             f"{excerpt(origins[0], 60)}")
        elif headers.get(b"sec-fetch-site") not in (["same-origin"], ["none"]):
            return 403, "a change comes from this server's own pages: the request names no Origin"
        types = headers.get(b"content-type", [])
        if len(types) != 1 or types[0].split(";")[0].strip().lower() != "application/json":
            given = excerpt(types[0], 60) if len(types) == 1 else "none" if not types else "two"
            return 415, f"the body must be JSON, sent as Content-Type: application/json (not {given})"
        return None


def error_answer(request, status, message):
    """An error answer: JSON for the API, a short page otherwise."""
    from starlette.responses import HTMLResponse, JSONResponse

    if request.url.path.startswith("/api/"):
        return JSONResponse({"error": message}, status_code=status)
    text = html.escape(message)
    return HTMLResponse(f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
                        f"{status}</title></head><body><h1>{status}</h1><p class=\"error\">{text}</p>"
                        f"<p><a href=\"/\">the folders</a></p></body></html>", status_code=status)
