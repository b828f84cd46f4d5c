// Schema of the platform's graph. Every statement is idempotent (IF NOT EXISTS, or IF EXISTS to retire);
// applied by `dkg neo4j schema` and before every build. Statements end with ';'.

// Smoke-test nodes written by `dkg demo --smoke`.
CREATE CONSTRAINT smoke_id IF NOT EXISTS FOR (n:SmokeTest) REQUIRE n.id IS UNIQUE;

// Decision knowledge graph: one :Node per box (see dkg/graph/model.py).
CREATE CONSTRAINT node_uid IF NOT EXISTS FOR (n:Node) REQUIRE n.uid IS UNIQUE;
CREATE INDEX node_guideline_version IF NOT EXISTS FOR (n:Node) ON (n.guideline, n.version);
// Retired: no query looked nodes up by key or searched the full-text index, and keeping the full-text
// index current halved build throughput (bench/builder_bench.py).
DROP INDEX node_key IF EXISTS;
DROP INDEX node_content IF EXISTS;
CREATE CONSTRAINT guideline_version_uid IF NOT EXISTS FOR (g:GuidelineVersion) REQUIRE g.uid IS UNIQUE;
CREATE INDEX guideline_version_code IF NOT EXISTS FOR (g:GuidelineVersion) ON (g.guideline);
CREATE CONSTRAINT treatment_name IF NOT EXISTS FOR (t:Treatment) REQUIRE t.name IS UNIQUE;

// Curation audit trail.
CREATE CONSTRAINT change_id IF NOT EXISTS FOR (c:Change) REQUIRE c.id IS UNIQUE;
CREATE INDEX change_node_uid IF NOT EXISTS FOR (c:Change) ON (c.node_uid);
