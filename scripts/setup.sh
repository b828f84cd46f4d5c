#!/usr/bin/env bash
# Sets up everything the platform needs on a fresh Debian machine; safe to re-run (each step is skipped
# when already done). Used by `make demo` and `make test` (and so by .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# 1. System packages (Debian): Java 17 JDK, Maven, tesseract OCR, Chromium.
need_apt=()
command -v java >/dev/null 2>&1 && command -v javac >/dev/null 2>&1 || need_apt+=(openjdk-17-jdk-headless)
command -v mvn >/dev/null 2>&1 || need_apt+=(maven)
command -v tesseract >/dev/null 2>&1 || need_apt+=(tesseract-ocr tesseract-ocr-eng)
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)   # browser tests of the web app (no browser download)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] && ! command -v sudo >/dev/null 2>&1; then
    echo "missing system packages: ${need_apt[*]}; install them with apt-get (as root) and re-run" >&2
    exit 1
  fi
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  log "installing Debian packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# 2. Python virtual environment with the package and all its extras at the versions pinned in
#    requirements/constraints.txt (re-installed when pyproject.toml or the constraints file changes).
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  log "creating .venv"
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.dkg-installed
constraints=requirements/constraints.txt
want="$(cat pyproject.toml "$constraints" | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # torch from PyPI is the CUDA build (its wheels and the venv take about 7 GB); fail before pip does,
  # with the reason, instead of leaving a half-installed venv after "No space left on device".
  need_kb=$((8 * 1024 * 1024))
  free_kb="$(df -Pk . | awk 'NR==2 {print $4}')"
  if [ "${free_kb:-0}" -lt "$need_kb" ] && [ ! -f "$stamp" ]; then
    echo "setup needs about 8 GB free for the Python environment (torch is large); $(df -Ph . | awk 'NR==2 {print $4}') free under $(pwd). Free some space and re-run." >&2
    exit 1
  fi
  log "installing Python packages (first time: several minutes, torch is large)"
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -c "$constraints" -e '.[all,dev]'
  echo "$want" > "$stamp"
fi

# 3. Java artefacts from Maven Central (cached under ~/.cache/dkg; nothing is downloaded when present).
log "Java components: Neo4j, Stanford CoreNLP (first time: about 600 MB)"
.venv/bin/dkg install

# 4. Build outputs derived deterministically from committed sources (skipped when up to date).
log "rendering guideline PDFs (digital and scanned)"
.venv/bin/dkg corpus render
log "done"
