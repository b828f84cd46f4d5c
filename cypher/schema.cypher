// Schema of the platform's graph. Every statement is idempotent (IF NOT EXISTS);
// applied by `dkg neo4j schema` and before every build. Statements end with ';'.

// Smoke-test nodes written by `dkg demo --smoke`.
CREATE CONSTRAINT smoke_id IF NOT EXISTS FOR (n:SmokeTest) REQUIRE n.id IS UNIQUE;
