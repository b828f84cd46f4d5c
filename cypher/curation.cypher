// Query templates of curation (dkg/graph/curation.py). Every value is a parameter.

// name: node_by_uid
MATCH (n:Node {uid: $uid})
RETURN n.uid AS uid, n.content AS content, n.constraints AS constraints, n.rev AS rev,
       n.guideline AS guideline, n.version AS version, n.pages AS pages, labels(n) AS labels;

// name: find_nodes
MATCH (n:Node)
WHERE ($guideline IS NULL OR n.guideline = $guideline)
  AND ($version IS NULL OR n.version = $version)
  AND ($page IS NULL OR $page IN n.pages)
  AND toLower(n.content) CONTAINS toLower($text)
RETURN n.uid AS uid, n.content AS content, n.constraints AS constraints, n.rev AS rev,
       n.guideline AS guideline, n.version AS version, n.pages AS pages, labels(n) AS labels
ORDER BY n.guideline, n.version, n.content
LIMIT 50;

// name: lock_node
// A write to the node takes its write lock, held to the end of the transaction: a revision read after it is
// the latest committed one and no other change can commit in between (compare-and-set on n.rev).
MATCH (n:Node {uid: $uid})
SET n._lock = true
REMOVE n._lock
RETURN n.rev AS rev;

// name: apply_change
// Run after lock_node in the same transaction, so the revision check cannot race another change.
MATCH (n:Node {uid: $uid})
WHERE n.rev = $expected_rev
SET n += $props, n.rev = n.rev + 1
FOREACH (_ IN CASE WHEN size(n.constraints) > 0 THEN [1] ELSE [] END | SET n:Decision REMOVE n:Action)
FOREACH (_ IN CASE WHEN size(n.constraints) = 0 THEN [1] ELSE [] END | SET n:Action REMOVE n:Decision)
CREATE (c:Change {id: $change.id, node_uid: n.uid, at: datetime($change.at), who: $change.who,
                  reason: $change.reason, op: $change.op, before: $change.before, after: $change.after,
                  before_content: $change.before_content, after_content: $change.after_content,
                  rev_before: $expected_rev, rev_after: n.rev, rolls_back: $change.rolls_back})
CREATE (c)-[:CHANGED]->(n)
RETURN n.rev AS rev, c.id AS id, toString(c.at) AS at;

// name: history
MATCH (c:Change {node_uid: $uid})
RETURN c.id AS id, toString(c.at) AS at, c.who AS who, c.reason AS reason, c.op AS op, c.before AS before,
       c.after AS after, c.before_content AS before_content, c.after_content AS after_content,
       c.rev_before AS rev_before, c.rev_after AS rev_after, c.rolls_back AS rolls_back
ORDER BY c.rev_after;

// name: change_by_id
MATCH (c:Change {id: $id})
RETURN c.id AS id, c.node_uid AS node_uid, c.before AS before, c.after AS after,
       c.before_content AS before_content, c.after_content AS after_content,
       c.rev_before AS rev_before, c.rev_after AS rev_after, c.op AS op;

// name: latest_change
MATCH (c:Change {node_uid: $uid})
RETURN c.id AS id, toString(c.at) AS at, c.who AS who, c.rev_after AS rev_after
ORDER BY c.rev_after DESC
LIMIT 1;

// name: mark_revision
MATCH (g:GuidelineVersion {uid: $gv_uid})
SET g.applied_revisions = coalesce(g.applied_revisions, []) + $to_version, g.current_revision = $to_version;
