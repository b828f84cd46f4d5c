// Query templates of onboarding (dkg/graph/drafts.py): drafts, review, publish / unpublish. Every value is a
// parameter. Draft labels (:DraftVersion, :DraftItem, :ReviewAction) appear in this file only.

// Draft properties are named unlike a published node's (draft_uid, of_guideline, text, conditions ... instead of
// uid, guideline, content, constraints), so not even a query without labels can read a draft as guideline content.

// name: version_state
// Whether a guideline version is published (a :GuidelineVersion) and whether a draft of it exists.
OPTIONAL MATCH (g:GuidelineVersion {uid: $uid})
OPTIONAL MATCH (d:DraftVersion {draft_uid: $uid})
RETURN g IS NOT NULL AS published, d IS NOT NULL AS draft;

// name: create_draft
// One statement: the draft, all its review items and the audit record of its creation.
CREATE (d:DraftVersion)
SET d = $draft, d.created_at = datetime($action.at)
WITH d
CALL (d) {
  UNWIND $items AS row
  CREATE (d)-[:HAS_ITEM]->(i:DraftItem)
  SET i = row, i.draft_uid = d.draft_uid + '#' + row.item, i.rev = 0
}
CREATE (a:ReviewAction {id: $action.id, version_uid: d.draft_uid, at: datetime($action.at), who: $action.who,
                        action: $action.action, item: '', kind: 'draft', reason: $action.reason,
                        before: '', after: $action.after})
RETURN d.draft_uid AS uid;

// name: draft_info
MATCH (d:DraftVersion {draft_uid: $uid})
RETURN d.draft_uid AS uid, d.of_guideline AS guideline, d.of_version AS version, d.draft_title AS title,
       d.pdf_source AS source, d.key_domains AS domains, d.page_titles AS page_titles,
       toString(d.effective_start) AS effective_start,
       toString(d.effective_end) AS effective_end,
       toString(d.created_at) AS created_at;

// name: draft_items
MATCH (:DraftVersion {draft_uid: $uid})-[:HAS_ITEM]->(i:DraftItem)
RETURN i.item AS item, i.kind AS kind, i.status AS status, i.text AS content, i.conditions AS constraints,
       i.head AS head, i.tail AS tail, i.page AS page, i.entry AS entry, i.order AS order, i.rev AS rev
ORDER BY i.order;

// name: review_item
// Takes the item's write lock (SET), so of two reviews based on one revision exactly one commits.
MATCH (:DraftVersion {draft_uid: $uid})-[:HAS_ITEM]->(i:DraftItem {item: $item})
WHERE i.rev = $expected_rev
SET i.status = $status, i.text = $content, i.conditions = $constraints, i.entry = $entry, i.rev = i.rev + 1
CREATE (a:ReviewAction {id: $action.id, version_uid: $uid, at: datetime($action.at), who: $action.who,
                        action: $action.action, item: i.item, kind: i.kind, reason: $action.reason,
                        before: $action.before, after: $action.after})
RETURN i.rev AS rev;

// name: review_page_title
// The flowchart titles of a draft's pages (JSON page → title), changed only when they are still the ones the
// reviewer read ($expected), with the audit record; no row when they changed meanwhile.
MATCH (d:DraftVersion {draft_uid: $uid})
WHERE coalesce(d.page_titles, '{}') = $expected
SET d.page_titles = $titles
CREATE (a:ReviewAction {id: $action.id, version_uid: $uid, at: datetime($action.at), who: $action.who,
                        action: $action.action, item: $page, kind: 'page title', reason: $action.reason,
                        before: $action.before, after: $action.after})
RETURN d.draft_uid AS uid;

// name: add_item
// A reviewer's new item (an arrow the parser missed, a key the extractor did not propose), with its audit record;
// refused (no row) when the id is taken.
MATCH (d:DraftVersion {draft_uid: $uid})
WHERE NOT EXISTS { (d)-[:HAS_ITEM]->(:DraftItem {item: $row.item}) }
CREATE (d)-[:HAS_ITEM]->(i:DraftItem)
SET i = $row, i.draft_uid = d.draft_uid + '#' + $row.item, i.rev = 1
CREATE (a:ReviewAction {id: $action.id, version_uid: $uid, at: datetime($action.at), who: $action.who,
                        action: $action.action, item: i.item, kind: i.kind, reason: $action.reason,
                        before: '', after: $action.after})
RETURN i.rev AS rev;

// name: record_action
CREATE (a:ReviewAction {id: $action.id, version_uid: $uid, at: datetime($action.at), who: $action.who,
                        action: $action.action, item: '', kind: 'version', reason: $action.reason,
                        before: $action.before, after: $action.after})
RETURN a.id AS id;

// name: delete_draft
MATCH (d:DraftVersion {draft_uid: $uid})
OPTIONAL MATCH (d)-[:HAS_ITEM]->(i:DraftItem)
DETACH DELETE i, d;

// name: discard_draft
MATCH (d:DraftVersion {draft_uid: $uid})
OPTIONAL MATCH (d)-[:HAS_ITEM]->(i:DraftItem)
WITH d, collect(i) AS items
FOREACH (i IN items | DETACH DELETE i)
DETACH DELETE d
RETURN size(items) AS items;

// name: review_history
MATCH (a:ReviewAction {version_uid: $uid})
RETURN a.id AS id, toString(a.at) AS at, a.who AS who, a.action AS action, a.item AS item, a.kind AS kind,
       a.reason AS reason, a.before AS before, a.after AS after
ORDER BY a.at, a.id;

// name: mark_published
MATCH (g:GuidelineVersion {uid: $uid})
SET g.onboarded = true, g.source = $source, g.published_at = datetime($at), g.published_by = $who;

// name: published_nodes
MATCH (:GuidelineVersion {uid: $uid})-[:CONTAINS]->(n:Node)
RETURN n.key AS key, n.content AS content, n.constraints AS constraints, n.pages AS pages,
       n.page_titles AS page_titles
ORDER BY n.key;

// name: published_edges
MATCH (:GuidelineVersion {uid: $uid})-[:CONTAINS]->(a:Node)-[r:NEXT_STEP]->(b:Node)
RETURN a.key AS head, b.key AS tail, r.label AS label, r.constraints AS constraints
ORDER BY a.key, b.key, r.key;

// name: published_node_pages
// Each published node with its pages (scoring hand-written questions against the page gold).
MATCH (:GuidelineVersion {uid: $uid})-[:CONTAINS]->(n:Node)
RETURN n.uid AS uid, n.content AS content, n.pages AS pages;

// name: published_info
MATCH (g:GuidelineVersion {uid: $uid})
RETURN g.title AS title, g.source AS source, coalesce(g.onboarded, false) AS onboarded,
       toString(g.effective_start) AS effective_start, toString(g.effective_end) AS effective_end;

// name: delete_published
MATCH (g:GuidelineVersion {uid: $uid})
OPTIONAL MATCH (g)-[:CONTAINS]->(n:Node)
DETACH DELETE n, g;

// name: delete_orphan_treatments
MATCH (t:Treatment)
WHERE NOT (t)<-[:OFFERS]-()
DETACH DELETE t;

// name: drafts
MATCH (d:DraftVersion)
OPTIONAL MATCH (d)-[:HAS_ITEM]->(i:DraftItem)
RETURN d.of_guideline AS guideline, d.of_version AS version, count(i) AS items,
       sum(CASE WHEN i.status = 'pending' THEN 1 ELSE 0 END) AS pending
ORDER BY guideline, version;
