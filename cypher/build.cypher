// Query templates of the builder (dkg/graph/builder.py). Sections are named by '// name:' lines;
// every value is a parameter. Each statement handles all guideline versions of one build at once.

// name: upsert_versions
UNWIND $gvs AS gv
MERGE (g:GuidelineVersion {uid: gv.uid})
SET g.guideline = gv.guideline, g.version = gv.version, g.title = gv.title, g.source_sha = gv.source_sha,
    g.effective_start = gv.effective_start, g.effective_end = gv.effective_end,
    g.node_count = gv.node_count, g.relation_count = gv.relation_count, g.decision_count = gv.decision_count;

// name: delete_stale_nodes
UNWIND $gvs AS gv
MATCH (:GuidelineVersion {uid: gv.uid})-[:CONTAINS]->(n:Node)
WHERE NOT n.uid IN gv.uids
DETACH DELETE n;

// name: upsert_nodes
UNWIND $rows AS row
MERGE (n:Node {uid: row.uid})
  ON CREATE SET n = row.props, n.uid = row.uid, n.rev = 0
  ON MATCH SET n.rev = CASE WHEN n.constraints = row.props.constraints THEN n.rev ELSE n.rev + 1 END,
               n += $clear, n += row.props
WITH n, row
MATCH (g:GuidelineVersion {uid: row.gv})
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
UNWIND $gvs AS gv
MATCH (:GuidelineVersion {uid: gv.uid})-[:CONTAINS]->(a:Node)-[r:NEXT_STEP]->(:Node)
WHERE NOT r.key IN gv.relation_keys
DELETE r;

// name: upsert_relations
UNWIND $rows AS row
MATCH (a:Node {uid: row.head}), (b:Node {uid: row.tail})
MERGE (a)-[r:NEXT_STEP {key: row.key}]->(b)
  ON CREATE SET r = row.props, r.key = row.key
  ON MATCH SET r += $clear, r += row.props;

// name: delete_stale_offers
UNWIND $gvs AS gv
MATCH (:GuidelineVersion {uid: gv.uid})-[:CONTAINS]->(n:Node)-[o:OFFERS]->(t:Treatment)
WHERE NOT (n.uid + '|' + t.name) IN gv.offer_keys
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
DETACH DELETE t;

// Fast path for guideline versions not yet in the graph: nothing to merge with, so one statement
// creates each version with its nodes, arrows and treatment links. Arrows and offers address their
// nodes by position in the version's node list (no index lookup per relation).

// name: create_versions
UNWIND $gvs AS gv
CREATE (g:GuidelineVersion {uid: gv.uid})
SET g.guideline = gv.guideline, g.version = gv.version, g.title = gv.title, g.source_sha = gv.source_sha,
    g.effective_start = gv.effective_start, g.effective_end = gv.effective_end,
    g.node_count = gv.node_count, g.relation_count = gv.relation_count, g.decision_count = gv.decision_count
WITH g, gv
CALL (g, gv) {
  UNWIND gv.nodes AS row
  CREATE (g)-[:CONTAINS]->(n:Node)
  SET n = row.props, n.uid = row.uid, n.rev = 0
  FOREACH (_ IN CASE WHEN row.decision THEN [1] ELSE [] END | SET n:Decision)
  FOREACH (_ IN CASE WHEN row.decision THEN [] ELSE [1] END | SET n:Action)
  RETURN collect(n) AS nodes
}
CALL (nodes, gv) {
  UNWIND gv.relations AS rel
  WITH nodes[rel.head_index] AS a, nodes[rel.tail_index] AS b, rel
  CREATE (a)-[r:NEXT_STEP]->(b)
  SET r = rel.props, r.key = rel.key
}
CALL (nodes, gv) {
  UNWIND gv.offers AS offer
  MERGE (t:Treatment {name: offer.name})
    ON CREATE SET t.display = offer.display
  WITH t, nodes[offer.node_index] AS n
  CREATE (n)-[:OFFERS]->(t)
};

// The paper's LOAD CSV route (dkg/graph/load_csv.py): the server reads the constrained CSV from its
// import folder and creates the structure; the builder then sets the typed properties by UNWIND.

// name: delete_version
MATCH (g:GuidelineVersion {uid: $gv})
OPTIONAL MATCH (g)-[:CONTAINS]->(n:Node)
DETACH DELETE n, g;

// name: load_csv_structure
LOAD CSV WITH HEADERS FROM $url AS row
MATCH (g:GuidelineVersion {uid: $gv})
MERGE (h:Node {uid: $gv + '|' + row.head_key})
  ON CREATE SET h.guideline = g.guideline, h.version = g.version, h.key = row.head_key, h.rev = 0
MERGE (t:Node {uid: $gv + '|' + row.tail_key})
  ON CREATE SET t.guideline = g.guideline, t.version = g.version, t.key = row.tail_key, t.rev = 0
MERGE (g)-[:CONTAINS]->(h)
MERGE (g)-[:CONTAINS]->(t)
MERGE (h)-[r:NEXT_STEP {key: $gv + '|' + row.edge_key}]->(t);

// name: set_node_properties
UNWIND $rows AS row
MATCH (n:Node {uid: row.uid})
SET n += row.props
FOREACH (_ IN CASE WHEN row.decision THEN [1] ELSE [] END | SET n:Decision)
FOREACH (_ IN CASE WHEN row.decision THEN [] ELSE [1] END | SET n:Action);

// name: set_relation_properties
UNWIND $rows AS row
MATCH (:Node {uid: row.head})-[r:NEXT_STEP {key: row.key}]->(:Node {uid: row.tail})
SET r += row.props;

// name: version_shape
MATCH (g:GuidelineVersion {uid: $gv})-[:CONTAINS]->(n:Node)
OPTIONAL MATCH (n)-[r:NEXT_STEP]->(:Node)
RETURN count(DISTINCT n) AS nodes, count(r) AS relations;

// name: version_source_shas
// The stored input hash of each guideline version that exists (a build skips an unchanged one).
MATCH (g:GuidelineVersion)
WHERE g.uid IN $uids
RETURN g.uid AS uid, g.source_sha AS sha;

// name: version_counts
// Node, decision-node and relation counts of one built guideline version.
MATCH (n:Node {guideline: $g, version: $v})
OPTIONAL MATCH (n)-[r:NEXT_STEP]->(:Node)
WITH n, count(DISTINCT r) AS out, collect(DISTINCT endNode(r)) AS tails
RETURN count(n) AS nodes, sum(CASE WHEN n:Decision THEN 1 ELSE 0 END) AS decision,
       sum(size(tails)) AS relations;
