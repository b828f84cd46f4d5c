#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite against the real services.
# The tests use their own data folder (.dkg-test) and Bolt port, so a demo database is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export DKG_HOME="${DKG_TEST_HOME:-$PWD/.dkg-test}"
export DKG_NEO4J_BOLT_PORT="${DKG_TEST_BOLT_PORT:-7697}"
mkdir -p "$DKG_HOME"
report="$DKG_HOME/junit.xml"
rm -f "$report"
# pytest exits 5 when it collected no test: that is a failure here, never a silent pass.
status=0
.venv/bin/pytest --junitxml="$report" "$@" || status=$?
# Some native extensions print noise at interpreter exit; end with one plain summary line.
if [ -f "$report" ]; then
  echo  # the exit noise may end without a newline
  .venv/bin/python - "$report" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root)
total = {k: sum(int(s.get(k, 0)) for s in suites) for k in ("tests", "failures", "errors", "skipped")}
passed = total["tests"] - total["failures"] - total["errors"] - total["skipped"]
print(f"tests: {passed} passed, {total['failures'] + total['errors']} failed, {total['skipped']} skipped")
PY
fi
exit "$status"
