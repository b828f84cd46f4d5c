// Position in the pathway (dkg/qa/pathway.py). A question about a relapse, a response or a subtype places the
// patient inside the flowchart: the walk may start at the node in front of a test of such a stated fact, as
// well as at the guideline's roots; the ranking of cypher/qa.cypher then prefers the path using most facts.

// name: roots
MATCH (root:Node {guideline: $guideline, version: $version})
WHERE NOT EXISTS { (:Node)-[:NEXT_STEP]->(root) }
RETURN root.uid AS uid;

// name: position_starts
// $tests: [{k: key, v: value}]; a test is an arrow whose typed property lists the value, or a (non-question)
// decision that lists it
// decision; the walk starts in front of the tested node's own decision so that its conditions are checked
MATCH (a:Node {guideline: $guideline, version: $version})-[r:NEXT_STEP]->(b:Node)
WHERE any(t IN $tests WHERE t.v IN coalesce(r[t.k], [])
          OR (b:Decision AND NOT b.content ENDS WITH '?' AND t.v IN coalesce(b[t.k], [])))
OPTIONAL MATCH (p:Node)-[:NEXT_STEP]->(a)
WHERE a:Decision AND NOT a.content ENDS WITH '?'
RETURN DISTINCT coalesce(p.uid, a.uid) AS uid;

// name: reachable_starts
// The starts a root reaches along a path on which every condition on a stated key holds for $facts (the facts
// that are not about the course so far); a question box's own condition counts unless its arrows branch on
// that key (as in the walk), so a relapse page is entered only from the histology the question states.
UNWIND $starts AS s
MATCH (start:Node {uid: s})
WHERE NOT EXISTS { (:Node)-[:NEXT_STEP]->(start) }
   OR EXISTS {
     MATCH (root:Node {guideline: $guideline, version: $version})
     WHERE NOT EXISTS { (:Node)-[:NEXT_STEP]->(root) }
     MATCH (root) ((a:Node)-[r:NEXT_STEP]->(b:Node)
       WHERE (NOT b.content ENDS WITH '?' OR b = start OR all(k IN keys($facts) WHERE b[k] IS NULL OR $facts[k] IN b[k]
                OR EXISTS { (b)-[o:NEXT_STEP]->() WHERE o[k] IS NOT NULL OR o[k + '_not'] IS NOT NULL }))
       AND all(x IN CASE WHEN b = start OR b.content ENDS WITH '?' THEN [r] ELSE [r, b] END
       WHERE all(k IN keys($facts) WHERE
       (x[k] IS NULL OR $facts[k] IN x[k] OR ('any' IN x[k] AND $facts[k] <> 'none'))
       AND NOT $facts[k] IN coalesce(x[k + '_not'], [])
       AND (x[k + '_min'] IS NULL OR $facts[k] > x[k + '_min'] OR ($facts[k] = x[k + '_min'] AND NOT x[k + '_min_strict']))
       AND (x[k + '_max'] IS NULL OR $facts[k] < x[k + '_max'] OR ($facts[k] = x[k + '_max'] AND NOT x[k + '_max_strict']))
       AND NOT $facts[k] IN coalesce(x[k + '_ne'], []))))+ (start)
   }
RETURN start.uid AS uid;

// name: next_conditions
// The conditions right after an answer node: its arrows' and the following (non-question) decisions' constraints;
// a question box after it contributes its arrows' constraints.
MATCH (t:Node {uid: $uid})-[r:NEXT_STEP]->(b:Node)
OPTIONAL MATCH (b)-[q:NEXT_STEP]->(:Node) WHERE b.content ENDS WITH '?'
RETURN r.constraints AS arrow,
       CASE WHEN b:Decision AND NOT b.content ENDS WITH '?' THEN b.constraints ELSE [] END AS decision,
       coalesce(q.constraints, []) AS question;
