// Query templates of the static knowledge layer (dkg/retrieval/knowledge.py). Every value is a parameter.

// name: guideline_versions
MATCH (g:GuidelineVersion) RETURN g.uid AS uid;

// name: treatment_names
MATCH (t:Treatment) RETURN t.name AS name ORDER BY name;

// name: knowledge_meta
MATCH (m:RetrievalIndex {name: 'knowledge'}) RETURN m.sha AS sha;

// name: set_knowledge_meta
MERGE (m:RetrievalIndex {name: 'knowledge'}) SET m.sha = $sha, m.loaded_at = datetime();

// name: delete_stale_sections
MATCH (s:Section) WHERE NOT s.uid IN $uids DETACH DELETE s;

// name: upsert_diseases
UNWIND $rows AS row
MERGE (d:Disease {name: row.name})
SET d.uid = row.uid;

// name: upsert_sections
UNWIND $rows AS row
MERGE (s:Section {uid: row.uid})
SET s += row.props
WITH s, row
MATCH (d:Disease {name: row.focus})
OPTIONAL MATCH (other:Disease)-[old:HAS_SECTION]->(s) WHERE other <> d
DELETE old
MERGE (d)-[:HAS_SECTION]->(s);

// name: delete_covers
MATCH (:GuidelineVersion)-[r:COVERS]->(:Disease) DELETE r;

// name: upsert_covers
UNWIND $rows AS row
MATCH (g:GuidelineVersion {uid: row.gv}), (d:Disease {name: row.name})
MERGE (g)-[:COVERS]->(d);

// name: delete_described_in
MATCH (:Treatment)-[r:DESCRIBED_IN]->(:Section) DELETE r;

// name: upsert_described_in
UNWIND $rows AS row
MATCH (t:Treatment {name: row.name}), (s:Section {uid: row.uid})
MERGE (t)-[:DESCRIBED_IN]->(s);

// name: delete_orphan_diseases
MATCH (d:Disease) WHERE NOT (d)-[:HAS_SECTION]->() AND NOT ()-[:COVERS]->(d) DETACH DELETE d;
