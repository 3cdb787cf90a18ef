#!/usr/bin/env bash
# Copies the playground's element files from the release build (dist/) into
# src/alp/ and builds the book into book/. Run `scripts/build` (or
# scripts/serve) first, and scripts/setup for mdbook 0.5.4.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dist="${DIST:-$here/../../dist}"
three="${LESSON_THREE:-$here/../lesson-three}"
files="element.js element-style.js doubles.js agent-loop-playground.js agent-loop-playground_bg.wasm"

for f in $files; do
  [ -f "$dist/$f" ] || { echo "build.sh: $dist/$f is missing: run \`scripts/build\` first" >&2; exit 1; }
done
command -v mdbook >/dev/null || { echo "build.sh: mdbook is not installed: run scripts/setup" >&2; exit 1; }

mkdir -p "$here/src/alp"
for f in $files; do cp "$dist/$f" "$here/src/alp/"; done
# Lesson two's texts (its pack), fetched from beside element.js when a
# chapter shows one of its scenarios.
[ -d "$dist/data" ] || { echo "build.sh: $dist/data is missing: run \`scripts/build\` first" >&2; exit 1; }
mkdir -p "$here/src/alp/data"
cp "$dist"/data/*.json "$here/src/alp/data/"
# Lesson three, the author's way: its program pack (recorded by
# agent-loop-cli record), fetched by the chapter that names it in program-src.
mkdir -p "$here/src/lessons"
cp "$three/lesson-three.pack.json" "$here/src/lessons/"
mdbook build "$here" "$@"
echo "built $here/book/ (serve it over HTTP, e.g. \`mdbook serve $here\` or \`python3 -m http.server -d $here/book\`)"
