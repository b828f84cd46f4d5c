#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs the whole test suite against the real services.
# The tests use their own data folder (.dkg-test) and Bolt port, so a demo database is never touched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export DKG_HOME="${DKG_TEST_HOME:-$PWD/.dkg-test}"
export DKG_NEO4J_BOLT_PORT="${DKG_TEST_BOLT_PORT:-7697}"
# pytest exits 5 when it collected no test: that is a failure here, never a silent pass.
.venv/bin/pytest "$@"
