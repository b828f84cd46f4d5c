.PHONY: demo test setup lint typecheck unit neo4j-start neo4j-stop

# Sets everything up and runs the main job on the local Neo4j.
demo:
	bash scripts/setup.sh
	.venv/bin/dkg demo

# Sets everything up, then the gates: ruff, mypy, unit tests + doctests, e2e tests against the real
# Neo4j, CoreNLP and tesseract (scripts/test.sh; .ci/run runs exactly this).
test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

lint:
	.venv/bin/ruff check dkg tests bench

typecheck:
	.venv/bin/mypy dkg

# Unit tests and every module's docstring examples; no services needed.
unit:
	.venv/bin/pytest -q --doctest-modules dkg tests/unit

neo4j-start:
	.venv/bin/dkg neo4j start

neo4j-stop:
	.venv/bin/dkg neo4j stop
