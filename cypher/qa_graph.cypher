// Graph look-ups of the QA stage outside the generated queries: the dataset generator's view of one guideline
// version (dkg/qa/dataset.py) and the text-to-Cypher service's version and treatment look-ups (dkg/qa/service.py).

// name: version_nodes
MATCH (n:Node {guideline: $g, version: $v})
RETURN n.uid AS uid, n.content AS content, n:Decision AS decision, n.constraints AS constraints,
       n.options AS options, coalesce(n.option_details, []) AS option_details;

// name: version_edges
MATCH (a:Node {guideline: $g, version: $v})-[r:NEXT_STEP]->(b:Node)
RETURN a.uid AS head, b.uid AS tail, r.constraints AS constraints;

// name: loaded_versions_of
MATCH (g:GuidelineVersion {guideline: $g})
RETURN g.version AS v;

// name: treatment_options
MATCH (t:Action {guideline: $g, version: $v})
UNWIND t.options + coalesce(t.option_details, []) AS o
RETURN DISTINCT toLower(o) AS o;

// name: node_pages
// The pages of the nodes $uids and the flowchart titles printed on them (for an answer's evidence).
MATCH (n:Node)
WHERE n.uid IN $uids
RETURN n.uid AS uid, coalesce(n.pages, []) AS pages, coalesce(n.page_titles, []) AS page_titles;
