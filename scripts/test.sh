#!/usr/bin/env bash
# Sets up (scripts/setup.sh), then runs the gates in order, stopping at the first that fails:
#   1. ruff check dkg tests bench   2. mypy dkg
#   3. unit tests + every module's docstring examples (pytest --doctest-modules dkg tests/unit)
#   4. end-to-end and adversarial tests against the real Neo4j, CoreNLP and tesseract (tests/e2e,
#      tests/adversarial)
# `make test` and .ci/run both run exactly this. Arguments, if any, replace steps 3-4 by one pytest run
# with those arguments (e.g. `bash scripts/test.sh tests/unit/qa -q`); the lint and type gates still run.
# The tests use their own data folder (.dkg-test) and Bolt port, so a demo database is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export DKG_HOME="${DKG_TEST_HOME:-$PWD/.dkg-test}"
export DKG_NEO4J_BOLT_PORT="${DKG_TEST_BOLT_PORT:-7697}"
mkdir -p "$DKG_HOME"

gate() { printf '\033[1m[gate]\033[0m %s\n' "$*"; }

gate "ruff check dkg tests bench"
.venv/bin/ruff check dkg tests bench
gate "mypy dkg"
.venv/bin/mypy dkg

# pytest exits 5 when it collected no test: any non-zero status is a failure here, never a silent pass.
reports=()
run_pytest() {  # run_pytest NAME ARGS...: one pytest run with its own JUnit report
  local report="$DKG_HOME/junit-$1.xml"
  shift
  rm -f "$report"
  reports+=("$report")
  local status=0
  .venv/bin/pytest --junitxml="$report" "$@" || status=$?
  return "$status"
}

summary() {  # one plain line over every report (native extensions print noise at interpreter exit)
  [ "${#reports[@]}" -gt 0 ] || return 0
  echo  # the exit noise may end without a newline
  .venv/bin/python - "${reports[@]}" <<'PY'
import os
import sys
import xml.etree.ElementTree as ET
total = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
for path in sys.argv[1:]:
    if not os.path.exists(path):
        continue
    root = ET.parse(path).getroot()
    for suite in [root] if root.tag == "testsuite" else list(root):
        for key in total:
            total[key] += int(suite.get(key, 0))
passed = total["tests"] - total["failures"] - total["errors"] - total["skipped"]
print(f"tests: {passed} passed, {total['failures'] + total['errors']} failed, {total['skipped']} skipped")
PY
}
trap summary EXIT

if [ "$#" -gt 0 ]; then
  gate "pytest $*"
  run_pytest args "$@"
  exit 0
fi
gate "unit tests and doctests: pytest --doctest-modules dkg tests/unit"
run_pytest unit --doctest-modules dkg tests/unit
gate "end-to-end and adversarial tests: pytest tests/e2e tests/adversarial"
run_pytest e2e tests/e2e tests/adversarial
