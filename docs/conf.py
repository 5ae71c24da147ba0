"""Sphinx configuration of the documentation site: the guide (the README), the formats,
the design, the rules contract, the command line and the API reference from the
docstrings.  ``tools/build_docs.sh`` builds it and runs its examples (the doctest builder),
warnings as errors."""

import doctest

import tigris

project = "tigris"
author = "The tigris developers"
copyright = "2026, The tigris developers"
release = version = tigris.__version__

extensions = [
    "myst_parser",              # the pages are Markdown, like the README they include
    "sphinx.ext.autodoc",       # the API reference from the docstrings
    "sphinx.ext.doctest",       # every >>> example runs in CI
    "sphinx.ext.viewcode",
    "sphinxarg.ext",            # the command line from tigris.commands's parser
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
smartquotes = False           # "--out" stays two hyphens in the command reference
myst_enable_extensions = ["colon_fence", "substitution"]
myst_substitutions = {"release": release}
myst_heading_anchors = 3        # links to a README section (#positions-tigris-position1) work

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "description"

# Every example of the docstrings and pages starts from a fresh namespace with the package;
# an expected exception is checked with its message (Sphinx ignores the message unless
# told), "..." standing for any text.
doctest_global_setup = "import tigris"
doctest_default_flags = doctest.ELLIPSIS | doctest.DONT_ACCEPT_TRUE_FOR_1

html_theme = "furo"
html_title = f"tigris {release}"


# -- the knobs of the bot kinds, drawn from the table of knobs (tigris.knobs) -----------

from docutils import nodes                                  # noqa: E402
from sphinx.util.docutils import SphinxDirective            # noqa: E402


class BotKnobs(SphinxDirective):
    """A table per bot kind of its knobs, their defaults, valid values and meanings: the
    rows of ``tigris.knobs``, as ``tigris bots --knobs`` lists them, so the page cannot
    disagree with the code."""

    def run(self):
        from tigris import knobs

        sections = []
        for kind, kind_knobs in knobs.KINDS.items():
            rows = [("knob", "default", "values", "meaning")]
            rows += [(key, "none" if default is None else repr(default), knobs.valid(key), meaning)
                     for key, (_, default, meaning) in kind_knobs.items()]
            sections += [nodes.paragraph("", "", nodes.strong(text=kind)), _table(rows)]
        return sections


def _table(rows):
    table = nodes.table()
    group = nodes.tgroup(cols=len(rows[0]))
    table += group
    for width in (2, 1, 2, 6):
        group += nodes.colspec(colwidth=width)
    head, body = nodes.thead(), nodes.tbody()
    group += [head, body]
    for k, cells in enumerate(rows):
        row = nodes.row()
        for column, text in enumerate(cells):
            entry = nodes.entry()
            code = k > 0 and column < 2             # a knob's name and default, as code
            entry += nodes.paragraph("", "", nodes.literal(text=text) if code
                                     else nodes.Text(text))
            row += entry
        (head if k == 0 else body).append(row)
    return table


def setup(app):
    app.add_directive("bot-knobs", BotKnobs)
