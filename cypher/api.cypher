// Read-only query templates of the HTTP API (dkg/api). Every value is a parameter.

// name: snapshot
OPTIONAL MATCH (c:Change)
WITH count(c) AS changes, max(c.rev_after) AS max_rev
OPTIONAL MATCH (g:GuidelineVersion)
RETURN changes, max_rev, count(g) AS versions,
       collect(g.uid + '@' + coalesce(toString(g.current_revision), '')) AS version_uids;

// name: guidelines
MATCH (g:GuidelineVersion)
OPTIONAL MATCH (g)-[:CONTAINS]->(n:Node)
WITH g, count(n) AS nodes, count(CASE WHEN n:Decision THEN 1 END) AS decisions
RETURN g.uid AS uid, g.guideline AS guideline, g.version AS version, coalesce(g.title, '') AS title,
       toString(g.effective_start) AS effective_start, toString(g.effective_end) AS effective_end,
       nodes, decisions
ORDER BY g.guideline, g.version;

// name: neighbourhood
MATCH (n:Node {uid: $uid})
OPTIONAL MATCH (p:Node)-[r_in:NEXT_STEP]->(n)
WITH n, collect(CASE WHEN p IS NULL THEN NULL ELSE {uid: p.uid, content: p.content, labels: labels(p),
                                                      label: coalesce(r_in.label, '')} END) AS parents
OPTIONAL MATCH (n)-[r_out:NEXT_STEP]->(c:Node)
WITH n, parents, collect(CASE WHEN c IS NULL THEN NULL ELSE {uid: c.uid, content: c.content, labels: labels(c),
                                                               label: coalesce(r_out.label, '')} END) AS children
OPTIONAL MATCH (n)-[:OFFERS]->(t:Treatment)
RETURN n.uid AS uid, n.content AS content, labels(n) AS labels, coalesce(n.constraints, []) AS constraints,
       n.rev AS rev, n.guideline AS guideline, n.version AS version, coalesce(n.pages, []) AS pages,
       parents[..$limit] AS parents, children[..$limit] AS children,
       collect(DISTINCT coalesce(t.display, t.name))[..$limit] AS treatments;

// name: root_paths
UNWIND $uids AS target
MATCH (n:Node {uid: target})
OPTIONAL MATCH p = SHORTEST 1 (r:Node)-[:NEXT_STEP]->{0,40}(n)
  WHERE NOT EXISTS { MATCH (:Node)-[:NEXT_STEP]->(r) }
RETURN target AS uid,
       CASE WHEN p IS NULL THEN [{uid: n.uid, content: n.content, labels: labels(n)}]
            ELSE [x IN nodes(p) | {uid: x.uid, content: x.content, labels: labels(x)}] END AS path;

// name: search_nodes
MATCH (n:Node)
WHERE ($guideline IS NULL OR n.guideline = $guideline)
  AND ($version IS NULL OR n.version = $version)
  AND ($decisions_only = false OR n:Decision)
  AND toLower(n.content) CONTAINS toLower($text)
RETURN n.uid AS uid, n.content AS content, labels(n) AS labels, coalesce(n.constraints, []) AS constraints,
       n.rev AS rev, n.guideline AS guideline, n.version AS version, coalesce(n.pages, []) AS pages
ORDER BY n.guideline, n.version, size(n.content)
LIMIT $limit;

// name: known_result_ids
UNWIND $ids AS id
RETURN id, EXISTS { MATCH (r:Embedded {rid: id}) WHERE r:Retrievable } OR EXISTS { MATCH (n:Node {uid: id}) } AS known;

// name: fingerprint_nodes
// The adversarial suite's view of the whole graph (dkg/api/adversarial.py): it must not change under attack.
MATCH (n)
RETURN elementId(n) AS id, labels(n) AS labels, properties(n) AS props
ORDER BY id;

// name: fingerprint_relationships
MATCH (a)-[r]->(b)
RETURN elementId(r) AS id, type(r) AS type, elementId(a) AS a, elementId(b) AS b, properties(r) AS props
ORDER BY id;
