// Query templates of the retrieval index (dkg/retrieval/index.py). Every value is a parameter.

// name: label_nodes
MATCH (n:Node) WHERE n.rid IS NULL OR NOT n:Retrievable
SET n:Embedded:Retrievable, n.rid = n.uid;

// name: label_sections
MATCH (n:Section) WHERE n.rid IS NULL OR NOT n:Retrievable
SET n:Embedded:Retrievable, n.rid = n.uid;

// name: label_treatments
MATCH (n:Treatment) WHERE n.rid IS NULL OR NOT n:Retrievable
SET n:Embedded:Retrievable, n.rid = 'treatment:' + n.name;

// name: label_diseases
MATCH (n:Disease) WHERE n.rid IS NULL OR NOT n:Embedded
SET n:Embedded, n.rid = 'disease:' + n.name;

// name: label_versions
MATCH (n:GuidelineVersion) WHERE n.rid IS NULL OR NOT n:Embedded
SET n:Embedded, n.rid = n.uid;

// name: read_nodes
MATCH (n:Node)
OPTIONAL MATCH (g:GuidelineVersion)-[:CONTAINS]->(n)
OPTIONAL MATCH (g)-[:COVERS]->(d:Disease)
WITH n, g, d ORDER BY d.name
RETURN n.rid AS rid, n.uid AS uid, n:Decision AS decision, n.content AS content, n.constraints AS constraints,
       n.options AS options, n.guideline AS guideline, n.version AS version, n.pages AS pages,
       coalesce(n.rev, 0) AS rev, g.title AS gtitle, g.source_sha AS gsha, collect(DISTINCT d.name) AS diseases,
       n.ser_hash AS ser_hash, n.emb_minilm_hash AS minilm_hash, n.emb_lsa_hash AS lsa_hash,
       n.emb_fasttext_hash AS fasttext_hash, n.nbr_minilm_sig AS minilm_sig, n.nbr_lsa_sig AS lsa_sig,
       n.nbr_fasttext_sig AS fasttext_sig;

// name: read_next_steps
MATCH (a:Node)-[:NEXT_STEP]->(b:Node)
RETURN a.rid AS head, b.rid AS tail;

// name: read_sections
MATCH (n:Section)
RETURN n.rid AS rid, n.focus AS focus, n.qtype AS qtype, n.text AS text, n.url AS url,
       n.ser_hash AS ser_hash, n.emb_minilm_hash AS minilm_hash, n.emb_lsa_hash AS lsa_hash,
       n.emb_fasttext_hash AS fasttext_hash, n.nbr_minilm_sig AS minilm_sig, n.nbr_lsa_sig AS lsa_sig,
       n.nbr_fasttext_sig AS fasttext_sig;

// name: read_treatments
MATCH (n:Treatment)
OPTIONAL MATCH (x:Node)-[:OFFERS]->(n)
OPTIONAL MATCH (p:Decision)-[:NEXT_STEP]->(x)
WITH n, x, p ORDER BY x.guideline, p.content
RETURN n.rid AS rid, coalesce(n.display, n.name) AS display, collect(DISTINCT x.guideline) AS guidelines,
       collect(DISTINCT p.content) AS contexts,
       n.ser_hash AS ser_hash, n.emb_minilm_hash AS minilm_hash, n.emb_lsa_hash AS lsa_hash,
       n.emb_fasttext_hash AS fasttext_hash, n.nbr_minilm_sig AS minilm_sig, n.nbr_lsa_sig AS lsa_sig,
       n.nbr_fasttext_sig AS fasttext_sig;

// name: read_diseases
MATCH (n:Disease)
OPTIONAL MATCH (g:GuidelineVersion)-[:COVERS]->(n)
WITH n, g ORDER BY g.uid
RETURN n.rid AS rid, n.name AS name, collect(DISTINCT g.guideline) AS guidelines,
       n.ser_hash AS ser_hash, n.emb_minilm_hash AS minilm_hash, n.emb_lsa_hash AS lsa_hash,
       n.emb_fasttext_hash AS fasttext_hash, n.nbr_minilm_sig AS minilm_sig, n.nbr_lsa_sig AS lsa_sig,
       n.nbr_fasttext_sig AS fasttext_sig;

// name: read_versions
MATCH (n:GuidelineVersion)
OPTIONAL MATCH (n)-[:COVERS]->(d:Disease)
WITH n, d ORDER BY d.name
RETURN n.rid AS rid, n.guideline AS guideline, n.version AS version, n.title AS title,
       n.source_sha AS gsha, collect(DISTINCT d.name) AS diseases,
       n.ser_hash AS ser_hash, n.emb_minilm_hash AS minilm_hash, n.emb_lsa_hash AS lsa_hash,
       n.emb_fasttext_hash AS fasttext_hash, n.nbr_minilm_sig AS minilm_sig, n.nbr_lsa_sig AS lsa_sig,
       n.nbr_fasttext_sig AS fasttext_sig;

// name: read_links
MATCH (a:Embedded)-[:OFFERS|HAS_SECTION|DESCRIBED_IN|COVERS]->(b:Embedded)
RETURN a.rid AS head, b.rid AS tail;

// name: write_serialisations
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.ser_text = row.text, n.ser_hash = row.hash, n.ser_format = row.format, n.ser_snapshot = row.snapshot,
    n.ser_path = row.path;

// name: write_minilm
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.emb_minilm = row.vector, n.emb_minilm_hash = row.hash;

// name: write_lsa
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.emb_lsa = row.vector, n.emb_lsa_hash = row.hash;

// name: write_fasttext
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.emb_fasttext = row.vector, n.emb_fasttext_hash = row.hash;

// name: read_minilm
UNWIND $rids AS rid
MATCH (n:Embedded {rid: rid})
RETURN n.rid AS rid, n.emb_minilm AS vector;

// name: read_lsa
UNWIND $rids AS rid
MATCH (n:Embedded {rid: rid})
RETURN n.rid AS rid, n.emb_lsa AS vector;

// name: read_fasttext
UNWIND $rids AS rid
MATCH (n:Embedded {rid: rid})
RETURN n.rid AS rid, n.emb_fasttext AS vector;

// name: write_nbr_minilm
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.nbr_minilm = row.vector, n.nbr_minilm_sig = row.sig;

// name: write_nbr_lsa
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.nbr_lsa = row.vector, n.nbr_lsa_sig = row.sig;

// name: write_nbr_fasttext
UNWIND $rows AS row
MATCH (n:Embedded {rid: row.rid})
SET n.nbr_fasttext = row.vector, n.nbr_fasttext_sig = row.sig;

// name: read_meta
MATCH (m:RetrievalIndex {name: $name})
RETURN m.fingerprint AS fingerprint, m.hops AS hops, m.models AS models, m.lsa_model AS lsa_model,
       m.fasttext_model AS fasttext_model, m.indexed_at AS indexed_at;

// name: write_meta
MERGE (m:RetrievalIndex {name: $name})
SET m.fingerprint = $fingerprint, m.hops = $hops, m.models = $models, m.lsa_model = $lsa_model,
    m.fasttext_model = $fasttext_model, m.indexed_at = toString(datetime());

// name: fingerprint_versions
MATCH (g:GuidelineVersion)
WITH g ORDER BY g.uid
RETURN collect(g.uid + '@' + coalesce(g.source_sha, '')) AS versions;

// name: fingerprint_knowledge
OPTIONAL MATCH (m:RetrievalIndex {name: 'knowledge'})
RETURN m.sha AS sha;

// name: fingerprint_revs
MATCH (n:Node)
RETURN count(n) AS nodes, sum(coalesce(n.rev, 0)) AS revs, sum(size(coalesce(n.content, ''))) AS chars;

// name: count_sections
MATCH (n:Section) RETURN count(n) AS n;

// name: count_treatments
MATCH (n:Treatment) RETURN count(n) AS n;

// name: count_diseases
MATCH (n:Disease) RETURN count(n) AS n;

// name: count_next_step
MATCH ()-[r:NEXT_STEP]->() RETURN count(r) AS n;

// name: count_offers
MATCH ()-[r:OFFERS]->() RETURN count(r) AS n;

// name: count_described_in
MATCH ()-[r:DESCRIBED_IN]->() RETURN count(r) AS n;

// name: count_embedded_missing
MATCH (n:Retrievable) WHERE n.emb_minilm IS NULL RETURN count(n) AS n;
