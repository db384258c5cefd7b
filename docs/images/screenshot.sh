#!/usr/bin/env bash
# Draws docs/images/comment.png, the README's picture of a comment: planmark's HTML preview
# (`render --format html`) of a real plan made by Terraform 1.0.3 (a fixture of this
# repository), drawn by headless Chromium with colour emoji (Debian packages `chromium` and
# `fonts-noto-color-emoji`).
# usage: docs/images/screenshot.sh [PLANMARK]   (default: target/debug/planmark)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/target/debug/planmark}
case=$root/tests/fixtures/group/for_each_replaced_and_created
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$case/plan.json" "$work/plan.json"
cp "$case/schemas.json" "$work/schemas.json"
# Relative names, so the page's title shows `plan.json`, not this machine's path.
(cd "$work" && "$bin" render --format html --schemas schemas.json plan.json -o preview.html)
# The first change opened, as a reviewer's click would: the picture shows a diff.
sed -i '0,/<details>/s//<details open>/' "$work/preview.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-device-scale-factor=1 \
  --window-size=900,"${HEIGHT:-920}" --screenshot="$root/docs/images/comment.png" \
  "file://$work/preview.html" 2>/dev/null
echo "wrote docs/images/comment.png"
