#!/usr/bin/env bash
# The documentation site: the HTML pages and a run of every example in them, both with
# warnings as errors.  sphinx-argparse parses the command help with docutils on its own,
# whose complaints are printed but not counted as Sphinx warnings: they fail here too.
#
#   tools/build_docs.sh [PYTHON]      PYTHON has the docs extra installed (default: python3)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# One environment for both builders (-d): the doctest builder reads the pages the html
# builder parsed, rather than parsing them all again.
for builder in html doctest; do
    "$python" -m sphinx -W --keep-going -q -b "$builder" -d "$root/docs/_build/doctrees" "$root/docs" \
        "$root/docs/_build/$builder" 2>&1 | tee -a "$log"
done
if grep -Eq '\((WARNING|ERROR|SEVERE)/[0-9]\)' "$log"; then
    echo "docutils complained while building the documentation (above)"
    exit 1
fi
examples="$(sed -n 's/^ *\([0-9]*\) tests$/\1/p' "$root/docs/_build/doctest/output.txt")"
echo "documentation: docs/_build/html/index.html; ${examples:-no} examples run"
