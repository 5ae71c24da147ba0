"""The release's one version number: ``tigris.__version__`` is it, the package metadata
reads it from here (pyproject.toml), ``tigris --version`` prints it, the messages name it
(a file of a newer format says which version this is), CHANGELOG.md says what each
version added.  It lives here, below every layer, so that any module may name it."""

__all__ = ["VERSION"]

VERSION = "2.0.0"
