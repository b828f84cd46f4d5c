// Questions that name a step of a procedure ("after decontamination, what next?", "what are the steps after X?")
// are answered by the steps the arrows out of that step lead to (dkg/qa/named_step.py). Read-only.

// name: step_boxes
// Every box of one guideline version with its pages, their titles and whether an arrow leaves it.
MATCH (n:Node {guideline: $guideline, version: $version})
RETURN n.uid AS uid, n.content AS content, coalesce(n.pages, []) AS pages,
       coalesce(n.page_titles, []) AS page_titles, EXISTS { (n)-[:NEXT_STEP]->(:Node) } AS has_next
ORDER BY uid;

// name: steps_after
// The steps right after the named boxes $uids, with the arrow's label and constraints (the route to each).
MATCH (n:Node {guideline: $guideline, version: $version})-[r:NEXT_STEP]->(c:Node)
WHERE n.uid IN $uids
RETURN DISTINCT c.uid AS uid, c.content AS content, coalesce(r.label, '') AS label,
       coalesce(r.constraints, []) AS constraints, n.uid AS after_uid, n.content AS after,
       coalesce(c.pages, []) AS pages
ORDER BY after_uid, uid;
