.PHONY: demo test setup lint neo4j-start neo4j-stop

# Sets everything up and runs the main job on the local Neo4j.
demo:
	bash scripts/setup.sh
	.venv/bin/dkg demo

# Sets everything up and runs the test suite against the real Neo4j, CoreNLP and tesseract.
test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

lint:
	.venv/bin/ruff check dkg tests bench

neo4j-start:
	.venv/bin/dkg neo4j start

neo4j-stop:
	.venv/bin/dkg neo4j stop
