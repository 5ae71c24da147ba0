"""The table in the browser, ``tigris serve``: the web application (``app``: its pages
and routes, the guards in front of them), its searches in worker processes (``jobs``:
hints, analyses, the bots' moves), its tables of people and bots (``tables``), and the
scripts of its panels (``static/``).  It needs the serve extra (Starlette, uvicorn)."""

__all__: list[str] = []       # its modules are imported by name: tigris.web.app, ...

