"use strict";
(async () => {
  const { api, el, status } = DKG;
  const $ = (id) => document.getElementById(id);
  let me = { curator: false };
  let pooled = null;
  const judged = new Map();   // uid -> {label, added}
  const LABELS = ["3", "2", "1", "irrelevant", "duplicate"];
  DKG.onToken((who) => { me = who; $("save-qrels").disabled = !me.curator || !pooled; });
  await DKG.setupHeader("researcher");

  // ---- benchmarks ----
  let bench = { results: {}, plots: [] };
  const fmt = (v) => typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : String(v);
  function renderBench() {
    const f = $("bench-filter").value.trim().toLowerCase();
    $("bench").replaceChildren(...Object.entries(bench.results).map(([topic, figures]) => {
      const rows = Object.entries(figures).filter(([k]) => !f || k.toLowerCase().includes(f) || topic.includes(f));
      return el("div", {}, el("h3", { text: `${topic} (${rows.length} figures)`, style: "font-size:.95rem;margin:.3rem 0" }),
        el("div", { class: "scroll", style: "max-height:14rem" }, el("table", { "aria-label": topic + " figures" },
          el("thead", {}, el("tr", {}, el("th", { text: "figure" }), el("th", { text: "value" }))),
          el("tbody", {}, rows.map(([k, v]) => el("tr", {}, el("td", {}, el("code", { text: k })), el("td", { text: fmt(v) })))))));
    }));
  }
  try {
    bench = await api("/api/benchmarks");
    renderBench();
    $("plots").replaceChildren(...bench.plots.map((p) => el("figure", { style: "margin:0;max-width:420px" },
      el("a", { href: "/api/benchmarks/plots/" + encodeURIComponent(p) },
        el("img", { src: "/api/benchmarks/plots/" + encodeURIComponent(p), alt: "Plot " + p, style: "max-width:100%;border:1px solid #d0d7de" })),
      el("figcaption", { class: "muted", text: p }))));
  } catch (e) { $("bench").textContent = e.message; }
  $("bench-filter").addEventListener("input", renderBench);

  // ---- annotation ----
  function judgeCell(uid) {
    const name = "j-" + uid;
    return el("td", {}, el("div", { class: "judge", role: "radiogroup", "aria-label": "Judgment" },
      LABELS.map((l) => el("label", {}, el("input", { type: "radio", name, value: l, checked: judged.get(uid)?.label === l || null,
        onchange: () => { judged.set(uid, { label: l, added: judged.get(uid)?.added || false }); } }), " " + l))));
  }

  function renderPool() {
    const methods = pooled.methods;
    $("pool").tHead.replaceChildren(el("tr", {}, el("th", { text: "result" }), methods.map((m) => el("th", { class: "rank", text: m })),
      el("th", { text: "judgment" })));
    $("pool").tBodies[0].replaceChildren(...pooled.results.map((r) => el("tr", { "data-uid": r.uid },
      el("td", {}, el("span", { class: "badge", text: r.kind || "node" }), " ", r.guideline ? r.guideline + " — " : "",
        r.content.length > 220 ? r.content.slice(0, 218) + "…" : r.content, r.added ? el("em", { text: " (added)" }) : null),
      methods.map((m) => el("td", { class: "rank", text: r.ranks[m] ? "#" + r.ranks[m] : "—" })),
      judgeCell(r.uid))));
  }

  $("pool-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    status($("pool-status"), "Pooling …");
    $("pool-btn").disabled = true;
    try {
      pooled = await api("/api/annotation/pool?" + new URLSearchParams({ query: $("query").value.trim(), k: $("k").value }));
      judged.clear();
      if (pooled.previous) {   // show earlier judgments of this query
        for (const r of pooled.results) { const g = pooled.previous.qrels[r.id]; if (g) judged.set(r.uid, { label: String(g), added: false }); }
      }
      renderPool();
      status($("pool-status"), `${pooled.results.length} pooled results from ${pooled.methods.join(", ")}.`, "ok");
      $("save-qrels").disabled = !me.curator;
    } catch (e) { status($("pool-status"), e.message, "error"); }
    finally { $("pool-btn").disabled = false; }
  });

  let typeahead = [];
  let timer = null;
  $("add-node").addEventListener("input", () => {
    clearTimeout(timer);
    const q = $("add-node").value.trim();
    if (q.length < 2) return;
    timer = setTimeout(async () => {
      try {
        typeahead = await api("/api/nodes?" + new URLSearchParams({ q, limit: 15 }));
        $("add-node-list").replaceChildren(...typeahead.map((n) => el("option", { value: n.content.slice(0, 120) + " ‹" + n.uid + "›" })));
      } catch (_) { /* keep the old suggestions */ }
    }, 200);
  });
  $("add-node-btn").addEventListener("click", () => {
    if (!pooled) { status($("pool-status"), "Pool a query first.", "error"); return; }
    const m = $("add-node").value.match(/‹([^›]+)›$/);
    const node = m && typeahead.find((n) => n.uid === m[1]);
    if (!node) { status($("pool-status"), "Choose a node from the suggestions.", "error"); return; }
    if (!pooled.results.some((r) => r.uid === node.uid)) {
      pooled.results.push({ id: node.uid, uid: node.uid, kind: DKG.kindOf(node.labels), content: node.content, guideline: node.guideline, ranks: {}, added: true });
    }
    judged.set(node.uid, { label: "3", added: true });
    renderPool();
    $("add-node").value = "";
  });

  async function loadVersions() {
    const rows = await api("/api/annotation/qrels");
    $("versions").replaceChildren(...(rows.length ? rows.reverse().map((v) => el("li", {}, el("code", { text: v.version }), ` — ${v.queries} judged queries · evaluate with `,
      el("code", { text: `dkg eval retrieval --sets qrels/${v.version}` }))) : [el("li", { class: "muted", text: "None yet." })]));
  }
  $("save-qrels").addEventListener("click", async () => {
    const judgments = [...judged.entries()].map(([uid, j]) => ({ uid, label: j.label, added: j.added }));
    if (!judgments.length) { status($("save-status"), "Judge at least one result.", "error"); return; }
    try {
      const res = await api("/api/annotation/qrels", { body: { query: pooled.query, judgments } });
      status($("save-status"), `Saved ${res.version} (${res.queries} queries): ${res.path}`, "ok");
      await loadVersions();
    } catch (e) { status($("save-status"), e.message, "error"); }
  });
  loadVersions().catch((e) => { $("versions").textContent = e.message; });
})();
