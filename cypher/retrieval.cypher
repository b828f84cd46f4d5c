// Query templates of the GRAG retriever (dkg/retrieval/grag.py). Every value is a parameter. The
// placeholders {emb}, {nbr}, {index} and {hops} are filled from a fixed table of embedding models and a
// validated integer (dkg/retrieval/grag.py::_template), never from user text.

// name: seeds
CALL db.index.vector.queryNodes('{index}', $m, $q) YIELD node, score
RETURN node.rid AS rid, 2.0 * score - 1.0 AS cos,
       2.0 * vector.similarity.cosine($q, coalesce(node.{nbr}, node.{emb})) - 1.0 AS gcos;

// name: expand
UNWIND $seeds AS sid
MATCH (s:Embedded {rid: sid})
MATCH p = (s)-[:NEXT_STEP|OFFERS|HAS_SECTION|DESCRIBED_IN|COVERS*1..{hops}]-(m:Retrievable)
WHERE m <> s
WITH sid, m, p ORDER BY length(p)
WITH sid, m, head(collect(p)) AS p
LIMIT $limit
RETURN sid AS seed, m.rid AS rid, length(p) AS hop, [x IN nodes(p) | x.rid] AS via,
       2.0 * vector.similarity.cosine($q, m.{emb}) - 1.0 AS cos;

// name: brute_force
MATCH (n:Retrievable)
WITH n, vector.similarity.cosine($q, n.{emb}) AS score
ORDER BY score DESC LIMIT $m
RETURN n.rid AS rid, 2.0 * score - 1.0 AS cos,
       2.0 * vector.similarity.cosine($q, coalesce(n.{nbr}, n.{emb})) - 1.0 AS gcos;

// name: details
UNWIND $rids AS rid
MATCH (n:Embedded {rid: rid})
RETURN n.rid AS rid, [l IN labels(n) WHERE l IN ['Decision', 'Action', 'Section', 'Treatment', 'Disease',
       'GuidelineVersion']][0] AS kind, n.ser_text AS ser_text, n.ser_path AS path, n.content AS content,
       n.text AS text, n.question AS question, n.url AS url, n.guideline AS guideline, n.version AS version,
       n.pages AS pages, coalesce(n.display, n.name) AS name, n.focus AS focus, n.qtype AS qtype;

// name: all_serialisations
MATCH (n:Retrievable)
RETURN n.rid AS rid, n.ser_text AS ser_text ORDER BY rid;

// name: index_state
SHOW INDEXES YIELD name, state, populationPercent
WHERE name IN $names
RETURN name, state, populationPercent;

// name: node_types
// The type the query-intent term compares with (dkg/retrieval/intent.py).
MATCH (n:Retrievable)
RETURN n.rid AS rid, CASE WHEN n:Section THEN n.qtype WHEN n:Treatment THEN 'treatment'
       WHEN n:Decision OR n:Action THEN 'recommendation' END AS qtype;

// name: disease_names
// The knowledge layer's diseases, which the query-understanding step resolves mentions onto.
MATCH (d:Disease)
RETURN d.name AS name ORDER BY name;

// name: node_diseases
// rid → diseases each retrievable node belongs to: a section its disease, a guideline box the diseases its
// guideline version covers. (Treatment nodes belong to no disease: they are shared across guidelines.)
MATCH (d:Disease)-[:HAS_SECTION]->(s:Retrievable)
RETURN s.rid AS rid, collect(DISTINCT d.name) AS diseases
UNION
MATCH (g:GuidelineVersion)-[:COVERS]->(d:Disease)
MATCH (g)-[:CONTAINS]->(n:Retrievable)
RETURN n.rid AS rid, collect(DISTINCT d.name) AS diseases;

// name: disease_sections
// The sections of the resolved diseases, scored like seeds (q·v and q·g).
MATCH (d:Disease)-[:HAS_SECTION]->(s:Retrievable)
WHERE d.name IN $names AND s.{emb} IS NOT NULL
RETURN DISTINCT s.rid AS rid, 2.0 * vector.similarity.cosine($q, s.{emb}) - 1.0 AS cos,
       2.0 * vector.similarity.cosine($q, coalesce(s.{nbr}, s.{emb})) - 1.0 AS gcos;
