// Bodies of the text-to-Cypher queries (dkg/qa/queries.py). The model emits a head
//   WITH '<guideline>' AS guideline[, '<treatment>' AS treatment][, {key: $key, ...} AS facts]
// followed by one of these bodies; facts are parameters filled from the question, $version is set by the
// service. A path may pass a condition only when the question states every key of it and the value satisfies it
// (this also keeps the path search small). A question box (text ending in '?') states the condition of its YES
// arrow, and its arrows carry the branch conditions, so its own constraints are not checked on a path, except
// on the keys in its contrast_keys (set by the builder, dkg/graph/build_input.py): question boxes side by side
// that differ on a key their arrows do not branch on ("History of Ewing sarcoma: recurrence confirmed?" beside
// "History of chondrosarcoma: …"); a stated value the box contradicts keeps the path out (an unstated one does
// not). A single box's own condition only restates who reaches it (the osteosarcoma restaging box also takes
// high-grade UPS). No subquery here: one would stop Neo4j from pruning the path search as it expands. Arrows that close a loop (closes_loop, dkg/graph/loops.py) are not walked:
// the steps they lead back to are on the way already, and trails round loops grow combinatorially.

// name: next_step
MATCH (root:Node {guideline: guideline, version: $version})
WHERE NOT EXISTS { (:Node)-[l:NEXT_STEP WHERE l.closes_loop IS NULL]->(root) }
MATCH p = (root) ((a:Node)-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)
  WHERE all(x IN [r, b] WHERE all(k IN [k IN keys(facts) WHERE NOT coalesce(x.content, '') ENDS WITH '?'
    OR k IN coalesce(x.contrast_keys, [])] WHERE
    (x[k] IS NULL OR facts[k] IN x[k] OR ('any' IN x[k] AND facts[k] <> 'none'))
    AND NOT facts[k] IN coalesce(x[k + '_not'], [])
    AND (x[k + '_min'] IS NULL OR facts[k] > x[k + '_min'] OR (facts[k] = x[k + '_min'] AND NOT x[k + '_min_strict']))
    AND (x[k + '_max'] IS NULL OR facts[k] < x[k + '_max'] OR (facts[k] = x[k + '_max'] AND NOT x[k + '_max_strict']))
    AND NOT facts[k] IN coalesce(x[k + '_ne'], []))
    AND all(c IN CASE WHEN coalesce(x.content, '') ENDS WITH '?' THEN [] ELSE coalesce(x.constraints, []) END WHERE head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')) IN keys(facts))))+ (t:Action)
WITH t, facts, nodes(p) AS ns, relationships(p) AS rs
WITH t, facts, ns, rs,
     CASE WHEN size(rs[-1].constraints) > 0 THEN rs[-1].constraints
          WHEN ns[-2]:Decision AND NOT ns[-2].content ENDS WITH '?' THEN ns[-2].constraints ELSE [] END AS last
WHERE size(last) > 0
  AND all(c IN last WHERE head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')) IN keys(facts))
WITH t, facts, reduce(acc = [], x IN [n IN ns WHERE NOT n.content ENDS WITH '?'] + rs | acc + [c IN coalesce(x.constraints, []) |
       head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '='))]) AS ks
WITH t, size([k IN keys(facts) WHERE k IN ks]) AS known,
     size(reduce(u = [], k IN ks | CASE WHEN k IN keys(facts) OR k IN u THEN u ELSE u + k END)) AS unknown
ORDER BY unknown ASC, known DESC
WITH collect({t: t, known: known, unknown: unknown}) AS ranked
UNWIND [r IN ranked WHERE r.known = ranked[0].known AND r.unknown = ranked[0].unknown] AS best
WITH DISTINCT best.t AS t, best.known AS known, best.unknown AS unknown
RETURN t.uid AS uid, t.content AS content, t.options AS options, known, unknown;

// name: advise
MATCH (root:Node {guideline: guideline, version: $version})
WHERE NOT EXISTS { (:Node)-[l:NEXT_STEP WHERE l.closes_loop IS NULL]->(root) }
MATCH p = (root) ((a:Node)-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)
  WHERE all(x IN [r, b] WHERE all(k IN [k IN keys(facts) WHERE NOT coalesce(x.content, '') ENDS WITH '?'
    OR k IN coalesce(x.contrast_keys, [])] WHERE
    (x[k] IS NULL OR facts[k] IN x[k] OR ('any' IN x[k] AND facts[k] <> 'none'))
    AND NOT facts[k] IN coalesce(x[k + '_not'], [])
    AND (x[k + '_min'] IS NULL OR facts[k] > x[k + '_min'] OR (facts[k] = x[k + '_min'] AND NOT x[k + '_min_strict']))
    AND (x[k + '_max'] IS NULL OR facts[k] < x[k + '_max'] OR (facts[k] = x[k + '_max'] AND NOT x[k + '_max_strict']))
    AND NOT facts[k] IN coalesce(x[k + '_ne'], []))
    AND all(c IN CASE WHEN coalesce(x.content, '') ENDS WITH '?' THEN [] ELSE coalesce(x.constraints, []) END WHERE head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')) IN keys(facts))))+ (t:Action)
WITH t, facts, treatment, nodes(p) AS ns, relationships(p) AS rs
WITH t, facts, treatment, ns, rs,
     CASE WHEN size(rs[-1].constraints) > 0 THEN rs[-1].constraints
          WHEN ns[-2]:Decision AND NOT ns[-2].content ENDS WITH '?' THEN ns[-2].constraints ELSE [] END AS last
WHERE size(last) > 0
  AND all(c IN last WHERE head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')) IN keys(facts))
WITH t, facts, treatment, reduce(acc = [], x IN [n IN ns WHERE NOT n.content ENDS WITH '?'] + rs | acc + [c IN coalesce(x.constraints, []) |
       head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '='))]) AS ks
WITH t, treatment, size([k IN keys(facts) WHERE k IN ks]) AS known,
     size(reduce(u = [], k IN ks | CASE WHEN k IN keys(facts) OR k IN u THEN u ELSE u + k END)) AS unknown
ORDER BY unknown ASC, known DESC
WITH treatment, collect({t: t, known: known, unknown: unknown}) AS ranked
UNWIND [r IN ranked WHERE r.known = ranked[0].known AND r.unknown = ranked[0].unknown] AS best
WITH DISTINCT treatment, best.t AS t
RETURN t.uid AS uid, t.content AS content, t.options AS options, coalesce(t.option_details, []) AS option_details,
       any(o IN t.options + coalesce(t.option_details, []) WHERE toLower(o) CONTAINS treatment) AS advisable;

// name: conditions
MATCH (d:Node)-[r:NEXT_STEP]->(t:Action {guideline: guideline, version: $version})
WHERE any(o IN t.options + coalesce(t.option_details, []) WHERE toLower(o) CONTAINS treatment)
  AND (size(r.constraints) > 0 OR (d:Decision AND NOT d.content ENDS WITH '?'))
RETURN DISTINCT d.uid AS uid, d.content AS content,
       CASE WHEN size(r.constraints) > 0 THEN r.constraints ELSE d.constraints END AS constraints,
       t.uid AS step_uid, t.content AS step;

// Lenient variants, used only when the strict query finds nothing: a path may also pass conditions on keys
// the question does not state; paths using the most stated facts, then assuming the fewest unstated keys, win,
// and the assumed keys are returned.

// name: next_step_lenient
MATCH (root:Node {guideline: guideline, version: $version})
WHERE NOT EXISTS { (:Node)-[l:NEXT_STEP WHERE l.closes_loop IS NULL]->(root) }
MATCH p = (root) ((a:Node)-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)
  WHERE all(x IN [r, b] WHERE all(k IN [k IN keys(facts) WHERE NOT coalesce(x.content, '') ENDS WITH '?'
    OR k IN coalesce(x.contrast_keys, [])] WHERE
    (x[k] IS NULL OR facts[k] IN x[k] OR ('any' IN x[k] AND facts[k] <> 'none'))
    AND NOT facts[k] IN coalesce(x[k + '_not'], [])
    AND (x[k + '_min'] IS NULL OR facts[k] > x[k + '_min'] OR (facts[k] = x[k + '_min'] AND NOT x[k + '_min_strict']))
    AND (x[k + '_max'] IS NULL OR facts[k] < x[k + '_max'] OR (facts[k] = x[k + '_max'] AND NOT x[k + '_max_strict']))
    AND NOT facts[k] IN coalesce(x[k + '_ne'], []))))+ (t:Action)
WITH t, facts, nodes(p) AS ns, relationships(p) AS rs
WITH t, facts, ns, rs,
     CASE WHEN size(rs[-1].constraints) > 0 THEN rs[-1].constraints
          WHEN ns[-2]:Decision AND NOT ns[-2].content ENDS WITH '?' THEN ns[-2].constraints ELSE [] END AS last
WHERE size(last) > 0
  AND all(c IN last WHERE head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')) IN keys(facts))
WITH t, facts, reduce(acc = [], x IN [n IN ns WHERE NOT n.content ENDS WITH '?'] + rs | acc + [c IN coalesce(x.constraints, []) |
       head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '='))]) AS ks
WITH t, size([k IN keys(facts) WHERE k IN ks]) AS known,
     reduce(u = [], k IN ks | CASE WHEN k IN keys(facts) OR k IN u THEN u ELSE u + k END) AS unknown
ORDER BY known DESC, size(unknown) ASC
WITH collect({t: t, known: known, unknown: unknown}) AS ranked
UNWIND [r IN ranked WHERE r.known = ranked[0].known AND size(r.unknown) = size(ranked[0].unknown)] AS best
WITH best.t AS t, best.known AS known, collect(best.unknown) AS assumed
RETURN t.uid AS uid, t.content AS content, t.options AS options, known, assumed[0] AS assumed;

// name: advise_lenient
MATCH (root:Node {guideline: guideline, version: $version})
WHERE NOT EXISTS { (:Node)-[l:NEXT_STEP WHERE l.closes_loop IS NULL]->(root) }
MATCH p = (root) ((a:Node)-[r:NEXT_STEP WHERE r.closes_loop IS NULL]->(b:Node)
  WHERE all(x IN [r, b] WHERE all(k IN [k IN keys(facts) WHERE NOT coalesce(x.content, '') ENDS WITH '?'
    OR k IN coalesce(x.contrast_keys, [])] WHERE
    (x[k] IS NULL OR facts[k] IN x[k] OR ('any' IN x[k] AND facts[k] <> 'none'))
    AND NOT facts[k] IN coalesce(x[k + '_not'], [])
    AND (x[k + '_min'] IS NULL OR facts[k] > x[k + '_min'] OR (facts[k] = x[k + '_min'] AND NOT x[k + '_min_strict']))
    AND (x[k + '_max'] IS NULL OR facts[k] < x[k + '_max'] OR (facts[k] = x[k + '_max'] AND NOT x[k + '_max_strict']))
    AND NOT facts[k] IN coalesce(x[k + '_ne'], []))))+ (t:Action)
WITH t, facts, treatment, nodes(p) AS ns, relationships(p) AS rs
WITH t, facts, treatment, ns, rs,
     CASE WHEN size(rs[-1].constraints) > 0 THEN rs[-1].constraints
          WHEN ns[-2]:Decision AND NOT ns[-2].content ENDS WITH '?' THEN ns[-2].constraints ELSE [] END AS last
WHERE size(last) > 0
  AND all(c IN last WHERE head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '=')) IN keys(facts))
WITH t, facts, treatment, reduce(acc = [], x IN [n IN ns WHERE NOT n.content ENDS WITH '?'] + rs | acc + [c IN coalesce(x.constraints, []) |
       head(split(replace(replace(replace(replace(c, '!=', '='), '<', '='), '>', '='), ' in ', '='), '='))]) AS ks
WITH t, treatment, size([k IN keys(facts) WHERE k IN ks]) AS known,
     reduce(u = [], k IN ks | CASE WHEN k IN keys(facts) OR k IN u THEN u ELSE u + k END) AS unknown
ORDER BY known DESC, size(unknown) ASC
WITH treatment, collect({t: t, known: known, unknown: unknown}) AS ranked
UNWIND [r IN ranked WHERE r.known = ranked[0].known AND size(r.unknown) = size(ranked[0].unknown)] AS best
WITH treatment, best.t AS t, collect(best.unknown) AS assumed
RETURN t.uid AS uid, t.content AS content, t.options AS options, coalesce(t.option_details, []) AS option_details,
       assumed[0] AS assumed,
       any(o IN t.options + coalesce(t.option_details, []) WHERE toLower(o) CONTAINS treatment) AS advisable;

