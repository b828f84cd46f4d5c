// Position in the pathway (dkg/qa/pathway.py). A question about a relapse, a response or a subtype places the
// patient inside the flowchart: the walk may start at the node in front of a test of such a stated fact, as
// well as at the guideline's roots; the ranking of cypher/qa.cypher then prefers the path using most facts.

// name: roots
MATCH (root:Node {guideline: $guideline, version: $version})
WHERE NOT EXISTS { (:Node)-[l:NEXT_STEP WHERE l.closes_loop IS NULL]->(root) }
RETURN root.uid AS uid;

// name: start_page_titles
// The pages of the start nodes $uids and the flowchart titles printed on them (onboarded guidelines keep them).
MATCH (n:Node {guideline: $guideline, version: $version})
WHERE n.uid IN $uids AND n.page_titles IS NOT NULL
RETURN n.uid AS uid, coalesce(n.pages, []) AS pages, n.page_titles AS page_titles;

// name: position_starts
// $tests: [{k: key, v: value, course: bool}]; a test is an arrow whose typed property lists the value (or, for a
// course fact, excludes others and not this one: 'response!=progression' tests a stable response), or a
// (non-question) decision that lists it; the walk starts in front of the tested node's own decision so that its
// conditions are checked
MATCH (a:Node {guideline: $guideline, version: $version})-[r:NEXT_STEP]->(b:Node)
WHERE any(t IN $tests WHERE t.v IN coalesce(r[t.k], [])
          OR (t.course AND r[t.k + '_not'] IS NOT NULL AND NOT t.v IN r[t.k + '_not'])
          OR (t.course AND r[t.k + '_ne'] IS NOT NULL AND NOT t.v IN r[t.k + '_ne'])
          OR (b:Decision AND NOT b.content ENDS WITH '?' AND t.v IN coalesce(b[t.k], [])))
OPTIONAL MATCH (p:Node)-[:NEXT_STEP]->(a)
WHERE a:Decision AND NOT a.content ENDS WITH '?'
RETURN DISTINCT coalesce(p.uid, a.uid) AS uid;

// name: walk_edges
// Every arrow of one guideline version with the conditions crossing it checks on the way into the pathway
// (dkg/qa/way_in.py): the arrow's own, and the entered box's when it is a decision; a question box's own
// condition counts unless its arrows branch on that key (as in the walk). Arrows closing a loop are left out.
MATCH (a:Node {guideline: $guideline, version: $version})-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)
OPTIONAL MATCH (b)-[o:NEXT_STEP]->(:Node)
WITH a, r, b, reduce(ks = [], c IN collect(o.constraints) | ks + c) AS branching
RETURN a.uid AS a, b.uid AS b, r.constraints AS arrow, b:Action AS action, b.content AS content,
       CASE WHEN NOT b:Decision THEN []
            WHEN NOT b.content ENDS WITH '?' THEN b.constraints
            ELSE [c IN coalesce(b.constraints, []) WHERE NOT any(x IN branching WHERE
                   head(split(replace(replace(replace(replace(x, '!=', '='), '<', '='), '>', '='), ' in ', '='), '='))
                   = head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')))]
       END AS box;

// name: next_conditions
// The conditions right after an answer node: its arrows' and the following (non-question) decisions' constraints;
// a question box after it contributes its arrows' constraints.
MATCH (t:Node {uid: $uid})-[r:NEXT_STEP]->(b:Node)
OPTIONAL MATCH (b)-[q:NEXT_STEP]->(:Node) WHERE b.content ENDS WITH '?'
RETURN r.constraints AS arrow,
       CASE WHEN b:Decision AND NOT b.content ENDS WITH '?' THEN b.constraints ELSE [] END AS decision,
       coalesce(q.constraints, []) AS question;
