// Statements of the command-line layer (dkg/cli): the demo's write/read round trip and the version listing.

// name: smoke_write
MERGE (n:SmokeTest {id: $id})
SET n.written_at = datetime();

// name: smoke_read
MATCH (n:SmokeTest {id: $id})
RETURN n.id AS id;

// name: smoke_delete
MATCH (n:SmokeTest {id: $id})
DETACH DELETE n;

// name: loaded_versions
MATCH (g:GuidelineVersion)
RETURN g.guideline AS g, g.version AS v, g.current_revision AS r
ORDER BY g, v;
