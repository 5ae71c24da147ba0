"""The server, ``tigris serve``: the web application (``app``, put together
from ``folders``, ``routes``, ``served``, ``pages``, ``guard`` and ``server``), its
answer times (``bench``), its tasks in worker processes (``jobs``:
hints, analyses, the bots' moves), its tables of people and bots (``tables``), and the
scripts of its panels (``static/``).  It needs the serve extra (Starlette, uvicorn)."""

__all__: list[str] = []       # its modules are imported by name: tigris.web.app, ...

