#!/usr/bin/env bash
# The release as a user gets it: build the source distribution and the wheel (the wheel
# built from the sdist, so a file missing from the sdist fails the build), check that
# both hold what the package needs, install the wheel into a fresh virtual environment
# outside the checkout, and use it there: a short game, a hint, a two-game tournament,
# and mypy over the examples against the installed stubs.
#
#   tools/check_dist.sh [PYTHON [DIST]]   PYTHON has `build` installed (default: python3);
#                                         DIST: a folder where they are built already
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${1:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
step() { printf '\n== %s\n' "$*"; }

if [ -n "${2:-}" ]; then
    mkdir "$work/dist" && cp "$2"/tigris_euphrates-*.tar.gz "$2"/tigris_euphrates-*.whl "$work/dist/"
else
    step "building the source distribution and the wheel"
    "$python" -m build --outdir "$work/dist" "$root" > "$work/build.log" 2>&1 \
        || { tail -40 "$work/build.log"; exit 1; }
fi
sdist=("$work"/dist/tigris_euphrates-*.tar.gz)
wheel=("$work"/dist/tigris_euphrates-*.whl)
ls -l "$work/dist"

step "checking their contents"
# must_hold ARCHIVE LISTING PATTERN...: every pattern (a regular expression) names a member.
must_hold() {
    local archive="$1" listing="$2"; shift 2
    for pattern in "$@"; do
        grep -Eq "$pattern" <<< "$listing" || { echo "$archive lacks $pattern"; exit 1; }
    done
}
sdist_files="$(tar tzf "${sdist[0]}")"
must_hold sdist "$sdist_files" LICENSE CHANGELOG.md 'cython_core/tigris/_core\.pyx' \
    'cython_core/tigris/_game\.pxd' 'cython_core/tigris/_search\.pxd' 'src/tigris/_game\.pyi' \
    'cython_core/tigris/_search_game\.pxd' 'cython_core/tigris/_rng\.pxd' 'src/tigris/py\.typed' \
    'bots/ismcts-fast\.toml' 'bots/ismcts-hint\.toml' 'bots/ismcts-heuristic\.toml' 'src/tigris/calibration\.json' \
    'src/tigris/chance\.json' 'src/tigris/viewer\.js' \
    'src/tigris/networks/gen1-2p\.npz' 'src/tigris/networks/gen1-3p4p\.npz' 'src/tigris/networks/gen2-2p\.npz' \
    'src/tigris/web/static/panel\.js'
if grep -Eq '\.(c|so)$|/docs/_build/' <<< "$sdist_files"; then echo "sdist holds built files"; exit 1; fi
wheel_files="$("$python" -m zipfile -l "${wheel[0]}")"
must_hold wheel "$wheel_files" 'tigris/_core\..*\.so' 'tigris/_game\..*\.so' \
    'tigris/_search\..*\.so' 'tigris/_eval\..*\.so' 'tigris/_core\.pxd' 'tigris/_game\.pxd' \
    'tigris/_eval\.pxd' 'tigris/_search\.pxd' 'tigris/_search_game\.pxd' 'tigris/_rng\.pxd' \
    'tigris/_game\.pyi' \
    'tigris/py\.typed' 'tigris/bot_configs/ismcts-fast\.toml' 'tigris/bot_configs/ismcts-hint\.toml' \
    'tigris/bot_configs/ismcts-calibrated\.toml' \
    'tigris/calibration\.json' 'tigris/chance\.json' \
    'tigris/viewer\.js' 'tigris/viewer\.css' 'licenses/LICENSE' \
    'tigris/_net\..*\.so' 'tigris/networks/gen1-2p\.npz' 'tigris/networks/gen1-3p4p\.npz' \
    'tigris/networks/gen2-2p\.npz' \
    'tigris/web/static/panel\.js' 'tigris/web/static/hint\.js' 'tigris/web/static/play\.js' \
    'tigris/web/static/analyse\.js' 'tigris/web/static/edit\.js' 'tigris/web/app\.py'
# The position suite, once its reference is computed and the file shipped (docs/results.md,
# "A position suite with fixed answers"): in both, as every data file.
if [ -f "$root/src/tigris/suite.json.gz" ]; then
    must_hold sdist "$sdist_files" 'src/tigris/suite\.json\.gz'
    must_hold wheel "$wheel_files" 'tigris/suite\.json\.gz'
fi

step "installing the wheel into a fresh virtual environment"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
# not byte-compiled as it installs (as .ci/run): the few commands below compile what they
# import
"$work/venv/bin/python" -m pip install --quiet --no-compile "${wheel[0]}" mypy
mkdir "$work/use" && cd "$work/use"          # nowhere near the checkout
tigris="$work/venv/bin/tigris"
"$work/venv/bin/python" - "$work/venv" <<'PY'
import sys
import tigris
assert tigris.__file__.startswith(sys.argv[1]), f"tigris imported from {tigris.__file__}"
print("tigris", tigris.__version__, "from", tigris.__file__)
PY
"$tigris" --version

step "a short game"
"$tigris" play --bots random greedy --seed 1 --record game.json | tail -3

step "a hint"
"$tigris" hint game.json --move 20 --iterations 2000 --seed 1

step "a two-game tournament"
"$tigris" tournament --bots random greedy --games 2 --jobs 2 --out results
test "$(wc -l < results/games.jsonl)" -eq 2

step "the bot configurations that come with the package"
"$tigris" bots | grep -q ismcts-fast

step "mypy over the examples, against the installed package's stubs"
cp -r "$root/examples" .
"$work/venv/bin/python" -m mypy --strict examples

printf '\ndistributions: ok\n'
