// Query templates of the builder (dkg/graph/builder.py). Sections are named by '// name:' lines;
// every value is a parameter.

// name: upsert_version
MERGE (g:GuidelineVersion {uid: $gv.uid})
SET g.guideline = $gv.guideline, g.version = $gv.version, g.title = $gv.title, g.source_sha = $gv.source_sha,
    g.node_count = $gv.node_count, g.relation_count = $gv.relation_count, g.decision_count = $gv.decision_count;

// name: delete_stale_nodes
MATCH (g:GuidelineVersion {uid: $gv_uid})-[:CONTAINS]->(n:Node)
WHERE NOT n.uid IN $uids
DETACH DELETE n;

// name: upsert_nodes
UNWIND $rows AS row
MERGE (n:Node {uid: row.uid})
  ON CREATE SET n.rev = 0
SET n.rev = CASE WHEN n.constraints IS NULL OR n.constraints = row.props.constraints THEN n.rev ELSE n.rev + 1 END
SET n += row.props
WITH n, row
MATCH (g:GuidelineVersion {uid: $gv_uid})
MERGE (g)-[:CONTAINS]->(n);

// name: label_decisions
UNWIND $uids AS uid
MATCH (n:Node {uid: uid})
SET n:Decision
REMOVE n:Action;

// name: label_actions
UNWIND $uids AS uid
MATCH (n:Node {uid: uid})
SET n:Action
REMOVE n:Decision;

// name: delete_stale_relations
MATCH (a:Node)-[r:NEXT_STEP]->(:Node)
WHERE a.guideline = $guideline AND a.version = $version AND NOT r.key IN $keys
DELETE r;

// name: upsert_relations
UNWIND $rows AS row
MATCH (a:Node {uid: row.head}), (b:Node {uid: row.tail})
MERGE (a)-[r:NEXT_STEP {key: row.key}]->(b)
SET r += row.props;

// name: delete_stale_offers
MATCH (n:Node)-[o:OFFERS]->(t:Treatment)
WHERE n.guideline = $guideline AND n.version = $version AND NOT (n.uid + '|' + t.name) IN $keys
DELETE o;

// name: upsert_offers
UNWIND $rows AS row
MATCH (n:Node {uid: row.uid})
MERGE (t:Treatment {name: row.name})
  ON CREATE SET t.display = row.display
MERGE (n)-[:OFFERS]->(t);

// name: delete_orphan_treatments
MATCH (t:Treatment)
WHERE NOT (t)<-[:OFFERS]-()
DELETE t;
