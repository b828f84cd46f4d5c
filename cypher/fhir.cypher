// The FHIR export's reads (dkg/fhir/export.py): the guideline versions loaded, and one version's nodes (with
// their typed constraint properties and offered treatments) and arrows.

// name: versions
MATCH (g:GuidelineVersion)
RETURN g.guideline AS guideline, g.version AS version, coalesce(g.title, g.guideline) AS title,
       g.source_sha AS source_sha, toString(g.effective_start) AS effective_start,
       toString(g.effective_end) AS effective_end
ORDER BY guideline, version;

// name: version
MATCH (g:GuidelineVersion {guideline: $guideline, version: $version})
RETURN g.guideline AS guideline, g.version AS version, coalesce(g.title, g.guideline) AS title,
       g.source_sha AS source_sha, toString(g.effective_start) AS effective_start,
       toString(g.effective_end) AS effective_end;

// name: nodes
MATCH (:GuidelineVersion {guideline: $guideline, version: $version})-[:CONTAINS]->(n:Node)
OPTIONAL MATCH (n)-[:OFFERS]->(t:Treatment)
WITH n, t ORDER BY t.name
RETURN n.uid AS uid, n.key AS key, n.content AS content, coalesce(n.pages, []) AS pages,
       coalesce(n.constraints, []) AS constraints, n:Decision AS decision, coalesce(n.options, []) AS options,
       coalesce(n.rev, 0) AS rev, properties(n) AS props,
       [x IN collect(t) | {name: x.name, display: coalesce(x.display, x.name)}] AS treatments
ORDER BY uid;

// name: edges
MATCH (a:Node {guideline: $guideline, version: $version})-[r:NEXT_STEP]->(b:Node)
RETURN a.uid AS head, b.uid AS tail, coalesce(r.label, '') AS label, coalesce(r.constraints, []) AS constraints,
       properties(r) AS props
ORDER BY head, tail, r.key;
