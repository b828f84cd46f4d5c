"use strict";
(async () => {
  const { api, el, status } = DKG;
  await DKG.setupHeader("clinician");
  const $ = (id) => document.getElementById(id);
  const detail = $("node-detail");
  const graph = new EvidenceGraph($("graph"), showNode);
  graph.draw();

  const samples = ["A 30-year-old with Ph-positive B-cell ALL and no substantial comorbidities: what is the recommended induction?",
                   "What is blinatumomab used for in ALL?",
                   "In renal cell carcinoma, which patients should receive partial nephrectomy?"];
  samples.forEach((q) => $("samples").append(el("button", { type: "button", class: "secondary", text: q.length > 48 ? q.slice(0, 46) + "…" : q,
    title: q, onclick: () => { $("question").value = q; $("ask-form").requestSubmit(); } })));

  async function showNode(uid) {
    detail.replaceChildren(el("span", { text: "Loading " + uid + " …" }));
    try {
      const nb = await api("/api/nodes/" + encodeURIComponent(uid) + "/neighbourhood");
      detail.replaceChildren(
        el("p", {}, el("strong", { text: DKG.kindOf(nb.labels) + ": " }), nb.content),
        el("p", {}, `${nb.guideline} ${nb.version}, page(s) ${nb.pages.join(", ") || "—"} · constraints: ${nb.constraints.join(", ") || "none"}`),
        // replaceChildren writes a null argument as the text "null": leave the paragraph out instead
        ...(nb.treatments.length ? [el("p", {}, "Treatments offered: " + nb.treatments.join("; "))] : []),
        el("div", { class: "row" },
          el("button", { type: "button", class: "secondary", text: "Expand neighbours",
            onclick: () => { graph.addNeighbourhood(nb); graph.draw(); } }),
          el("a", { href: "/curator?node=" + encodeURIComponent(uid), text: "Open in curator" })));
    } catch (e) {
      detail.textContent = e.status === 404 ? "This evidence item is not a guideline box (" + uid + ")." : e.message;
    }
  }

  // The facts a clarifying answer asks for, as a form: one field per missing fact with its allowed values.
  // Submitting re-asks the question with the facts added as "key=value", which the fact reader understands.
  const STATED = /\s*\((?:[a-z_]+=[^;()]+;?\s*)+\)\s*$/;
  function showFollowUp(question, missing) {
    const form = $("followup");
    form.hidden = !missing.length;
    form.dataset.question = question;
    $("followup-fields").replaceChildren(...missing.map((m) => {
      const id = "fact-" + m.key;
      const categorical = m.allowed.every((v) => /^[A-Za-z0-9_+-]+$/.test(v));
      const field = categorical
        ? el("select", { id, name: m.key }, el("option", { value: "", text: "— choose —" }),
             ...m.allowed.map((v) => el("option", { value: v, text: v })))
        : el("input", { id, name: m.key, type: "number", step: "any", placeholder: m.allowed.join(" / ") });
      return el("div", { class: "row" }, el("label", { for: id, text: `${m.description} (${m.allowed.join(" / ")})` }), field);
    }));
  }

  $("followup").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const form = $("followup");
    const added = [...form.querySelectorAll("select, input")].filter((f) => f.value.trim())
      .map((f) => `${f.name}=${f.value.trim()}`);
    if (!added.length) { status($("ask-status"), "Choose at least one value to ask again.", "error"); return; }
    const base = form.dataset.question || $("question").value;
    const earlier = (base.match(STATED) || [""])[0].replace(/[()\s]/g, "").split(";").filter(Boolean);
    const facts = [...earlier.filter((f) => !added.some((a) => a.split("=")[0] === f.split("=")[0])), ...added];
    $("question").value = base.replace(STATED, "") + " (" + facts.join("; ") + ")";
    $("ask-form").requestSubmit();
  });

  $("ask-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const question = $("question").value.trim();
    if (!question) { status($("ask-status"), "Type a question first.", "error"); return; }
    $("ask").disabled = true;
    status($("ask-status"), "Answering …");
    try {
      const t0 = performance.now();
      const res = await api("/api/ask", { body: { question, explain: $("explain").checked, k: 5 } });
      const a = res.answer;
      const answered = `Answered in ${Math.round(performance.now() - t0)} ms${res.cached ? " (cached)" : ""}.`;
      $("route").textContent = a.route;
      $("answer").textContent = a.answer || ("No answer: " + a.no_answer_reason);
      $("notes").textContent = res.notes.length ? "Notes: " + res.notes.join(" · ") : "";
      showFollowUp(question, a.missing_facts || []);
      $("cypher").textContent = a.cypher ? a.cypher + (Object.keys(a.cypher_params).length ? "\n// params: " + JSON.stringify(a.cypher_params) : "")
                                         : "— (no Cypher: answered by retrieval)";
      $("evidence").replaceChildren(...a.evidence.slice(0, 10).map((e) => el("li", {},
        el("span", { class: "badge", text: e.kind }), " ",
        e.guideline ? `${e.guideline} ${e.version || ""}${e.pages.length ? " p. " + e.pages.join(", ") : ""} — ` : "",
        e.source_url ? el("a", { href: e.source_url, text: "source", rel: "noopener" }) : null, " ",
        e.content.length > 260 ? e.content.slice(0, 258) + "…" : e.content,
        e.score !== null && e.score !== undefined ? el("span", { class: "muted", text: ` (score ${e.score.toFixed(3)})` }) : null)));
      graph.clear();
      a.matched_nodes.forEach((u) => graph.matched.add(u));
      const uids = [...new Set(a.evidence.map((e) => e.node_uid))].filter((u) => u.split("|").length === 3).slice(0, 8);
      if (uids.length) {
        const paths = await api("/api/paths", { body: { uids } });
        paths.forEach((p) => graph.addPath(p.path));
      }
      graph.draw();
      detail.textContent = uids.length ? "" : "The evidence has no guideline boxes (knowledge sections only).";
      // Reported only now, so "ok" means the answer AND its evidence graph are on the page.
      status($("ask-status"), answered, "ok");
    } catch (e) {
      status($("ask-status"), e.message, "error");
    } finally {
      $("ask").disabled = false;
    }
  });
})();
