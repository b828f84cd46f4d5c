// Schema of the retrieval layer (dkg/retrieval). Every statement is idempotent (IF NOT EXISTS, or IF EXISTS to retire).

// Static knowledge layer: MedQuAD CancerGov diseases and their answer sections.
CREATE CONSTRAINT disease_name IF NOT EXISTS FOR (d:Disease) REQUIRE d.name IS UNIQUE;
CREATE CONSTRAINT section_uid IF NOT EXISTS FOR (s:Section) REQUIRE s.uid IS UNIQUE;
// Retired: the full-text index was never queried (BM25 runs in dkg/retrieval/lexical.py).
DROP INDEX section_text IF EXISTS;

// Every embedded node carries a retrieval id `rid` (uid, or 'treatment:'/'disease:' + name).
CREATE INDEX embedded_rid IF NOT EXISTS FOR (n:Embedded) ON (n.rid);
CREATE CONSTRAINT retrieval_index_name IF NOT EXISTS FOR (m:RetrievalIndex) REQUIRE m.name IS UNIQUE;

// Seed search: cosine vector indexes over the retrievable nodes, one per embedding option.
CREATE VECTOR INDEX retrieval_minilm IF NOT EXISTS FOR (n:Retrievable) ON (n.emb_minilm)
  OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX retrieval_lsa IF NOT EXISTS FOR (n:Retrievable) ON (n.emb_lsa)
  OPTIONS {indexConfig: {`vector.dimensions`: 256, `vector.similarity_function`: 'cosine'}};
CREATE VECTOR INDEX retrieval_fasttext IF NOT EXISTS FOR (n:Retrievable) ON (n.emb_fasttext)
  OPTIONS {indexConfig: {`vector.dimensions`: 128, `vector.similarity_function`: 'cosine'}};
