// Query templates of guideline revision (dkg/graph/revision.py).

// name: snapshot_nodes
MATCH (n:Node {guideline: $guideline, version: $version})
RETURN n.uid AS uid, n.key AS key, n.content AS content, n.constraints AS constraints, n.rev AS rev,
       n.pages AS pages;

// name: snapshot_relations
MATCH (a:Node {guideline: $guideline, version: $version})-[r:NEXT_STEP]->(b:Node)
RETURN a.key AS head, b.key AS tail, r.label AS label, r.constraints AS constraints;
