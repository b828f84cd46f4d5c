"use strict";
(async () => {
  const { api, el, status } = DKG;
  const $ = (id) => document.getElementById(id);
  let me = { curator: false, name: "anonymous" };
  let draft = null;       // the draft as read: {guideline, version, items, pending, pictures}
  const pictureUrls = []; // object URLs of the pictures (fetched with the token), revoked on reload

  DKG.onToken(async (who) => { me = who; await loadDrafts(); });
  await DKG.setupHeader("review");

  const path = () => `/api/drafts/${encodeURIComponent(draft.guideline)}/${encodeURIComponent(draft.version)}`;

  async function loadDrafts() {
    if (!me.curator) {
      status($("auth-note"), "Drafts are unvetted and hidden from clinicians: enter a curator token (top right) to review them.");
      $("draft").replaceChildren(el("option", { value: "", text: "(enter a curator token)" }));
      render(null);
      return;
    }
    status($("auth-note"), `Signed in as curator ${me.name}: every review is audited under your name.`, "ok");
    try {
      const rows = await api("/api/drafts");
      const keep = $("draft").value;
      $("draft").replaceChildren(...(rows.length
        ? rows.map((r) => el("option", { value: `${r.guideline}|${r.version}`,
                                         text: `${r.guideline} ${r.version} — ${r.pending} of ${r.items} pending` }))
        : [el("option", { value: "", text: "(no draft: `dkg onboard` creates one)" })]));
      if (keep && rows.some((r) => `${r.guideline}|${r.version}` === keep)) $("draft").value = keep;
      await loadDraft();
    } catch (e) { status($("auth-note"), e.message, "error"); }
  }

  async function loadDraft() {
    const value = $("draft").value;
    if (!value) { render(null); return; }
    const [guideline, version] = value.split("|");
    try {
      draft = await api(`/api/drafts/${encodeURIComponent(guideline)}/${encodeURIComponent(version)}`);
      render(draft);
      await loadPictures(draft.pictures);
      await loadHistory();
    } catch (e) { status($("item-status"), e.message, "error"); }
  }

  async function loadPictures(urls) {
    pictureUrls.splice(0).forEach((u) => URL.revokeObjectURL(u));
    $("pictures-card").hidden = !urls.length;
    const figures = [];
    for (const url of urls) {
      // fetched with the bearer token (an <img src> cannot send it)
      const response = await fetch(url, { headers: { "Authorization": "Bearer " + DKG.token() } });
      if (!response.ok) continue;
      const objectUrl = URL.createObjectURL(await response.blob());
      pictureUrls.push(objectUrl);
      const name = url.split("/").pop();
      figures.push(el("figure", {}, el("img", { src: objectUrl, alt: "Parser review picture " + name }),
                      el("figcaption", { class: "muted", text: name })));
    }
    $("pictures").replaceChildren(...figures);
  }

  async function loadHistory() {
    const rows = await api(path() + "/history");
    $("history").tBodies[0].replaceChildren(...rows.map((r) => el("tr", {},
      el("td", { text: r.at.slice(0, 19).replace("T", " ") }), el("td", { text: r.who }), el("td", { text: r.action }),
      el("td", { text: r.item || "" }), el("td", { text: r.reason }), el("td", { text: r.after.slice(0, 120) }))));
  }

  function render(d) {
    const boxes = d ? Object.fromEntries(d.items.filter((i) => i.kind === "node").map((i) => [i.item, i.content])) : {};
    const rows = { node: [], edge: [], key: [] };
    for (const it of d ? d.items : []) {
      const state = el("td", {}, el("span", { class: "state-" + it.status, text: it.status }));
      const actions = el("td", { class: "actions" }, actionButtons(it));
      let cells;
      if (it.kind === "node") cells = [el("td", { text: it.content }), el("td", { text: it.constraints.join("; ") }), el("td", { text: it.page })];
      else if (it.kind === "edge") cells = [el("td", { text: `${it.head} → ${it.tail}  (${(boxes[it.head] || "").slice(0, 40)} → ${(boxes[it.tail] || "").slice(0, 40)})` }),
                                           el("td", { text: it.content }), el("td", { text: it.constraints.join("; ") })];
      else cells = [el("td", {}, el("code", { text: it.content })), el("td", {}, el("code", { text: JSON.stringify(it.entry) }))];
      rows[it.kind].push(el("tr", { "data-item": it.item, class: it.status === "rejected" ? "rejected" : null },
                            el("td", { text: it.item }), state, cells, actions));
    }
    $("nodes").tBodies[0].replaceChildren(...rows.node);
    $("edges").tBodies[0].replaceChildren(...rows.edge);
    $("keys").tBodies[0].replaceChildren(...rows.key);
    renderTitles(d);
    renderAdders(d);
    $("draft-summary").textContent = d ? `${d.items.length} items, ${d.pending} pending` : "";
    $("publish").disabled = !d || !me.curator || d.pending > 0;
    $("discard").disabled = !d || !me.curator;
    $("publish-help").textContent = !d ? "Select a draft." : d.pending > 0
      ? `${d.pending} item(s) still pending: accept, edit or reject each before publishing.` : "Every item is reviewed.";
    if (!d) { $("pictures-card").hidden = true; $("history").tBodies[0].replaceChildren(); }
  }

  function renderAdders(d) {
    const boxes = d ? d.items.filter((i) => i.kind === "node" && i.status !== "rejected") : [];
    const options = () => boxes.map((b) => el("option", { value: b.item, text: `${b.item}: ${b.content.slice(0, 60)}` }));
    $("new-arrow-head").replaceChildren(...options());
    $("new-arrow-tail").replaceChildren(...options());
    $("new-box-page").replaceChildren(...(d ? d.pages || [] : []).map((p) => el("option", { value: p, text: p })));
    for (const id of ["new-box-add", "new-arrow-add", "new-key-add"]) $(id).disabled = !d || !me.curator;
  }

  async function addItem(body, what) {
    body.reason = $("reason").value.trim();
    try {
      const it = await api(path() + "/items", { body });
      status($("item-status"), `${it.item}: ${what} added.`, "ok");
    } catch (e) { status($("item-status"), `${what}: ${e.message}`, "error"); return; }
    await loadDrafts();
  }

  const split = (text) => text.split(";").map((c) => c.trim()).filter(Boolean);
  $("new-box-add").addEventListener("click", () => addItem({ kind: "node", text: $("new-box-text").value,
    page: $("new-box-page").value, constraints: split($("new-box-constraints").value) }, "box"));
  $("new-arrow-add").addEventListener("click", () => addItem({ kind: "edge", head: $("new-arrow-head").value,
    tail: $("new-arrow-tail").value, label: $("new-arrow-label").value, constraints: split($("new-arrow-constraints").value) }, "arrow"));
  $("new-key-add").addEventListener("click", () => {
    let entry;
    try { entry = JSON.parse($("new-key-entry").value); } catch (e) { status($("item-status"), "the entry is not valid JSON: " + e.message, "error"); return; }
    addItem({ kind: "key", name: $("new-key-name").value.trim(), entry }, "key");
  });

  function renderTitles(d) {
    const pages = d ? (d.pages || []) : [];
    $("titles-card").hidden = !pages.length;
    $("titles").tBodies[0].replaceChildren(...pages.map((page) => {
      const input = el("input", { type: "text", class: "grow", value: (d.page_titles || {})[page] || "", maxlength: 300,
                                  placeholder: "(no title read)", "aria-label": "Title of page " + page });
      const save = el("button", { type: "button", class: "secondary", "aria-label": "Save the title of page " + page,
                                  disabled: !me.curator, text: "Save", onclick: () => saveTitle(page, input.value) });
      return el("tr", { "data-page": page }, el("td", { text: page }), el("td", {}, input), el("td", { class: "actions" }, save));
    }));
  }

  async function saveTitle(page, title) {
    try {
      await api(`${path()}/pages/${encodeURIComponent(page)}/title`, { body: { title, reason: $("reason").value.trim() } });
      status($("title-status"), `page ${page}: ${title.trim() ? "title saved" : "title removed"}.`, "ok");
    } catch (e) { status($("title-status"), `page ${page}: ${e.message}`, "error"); }
    await loadDrafts();
  }

  function actionButtons(it) {
    const label = (verb) => `${verb} ${it.item}`;
    return [
      el("button", { type: "button", class: "secondary", "aria-label": label("Accept"), disabled: !me.curator,
                     onclick: () => send(it, { action: "accept" }), text: "Accept" }),
      el("button", { type: "button", class: "secondary", "aria-label": label("Edit"), disabled: !me.curator,
                     onclick: (ev) => openEditor(it, ev.target.closest("tr")), text: "Edit" }),
      el("button", { type: "button", class: "secondary", "aria-label": label("Reject"), disabled: !me.curator,
                     onclick: () => send(it, { action: "reject" }), text: "Reject" }),
    ];
  }

  function openEditor(it, row) {
    const fields = [];
    let text = null, constraints = null, entry = null;
    if (it.kind !== "key") {
      text = el("input", { type: "text", class: "grow", value: it.content, maxlength: 2000,
                           "aria-label": (it.kind === "node" ? "Box text of " : "Arrow label of ") + it.item });
      constraints = el("input", { type: "text", class: "grow", value: it.constraints.join("; "), maxlength: 2000,
                                  placeholder: "e.g. heart_rate<60; pulse_present=yes", "aria-label": "Constraints of " + it.item });
      fields.push(el("label", { text: it.kind === "node" ? "Text" : "Label" }), text, el("label", { text: "Constraints (;-separated)" }), constraints);
    } else {
      entry = el("textarea", { rows: 3, cols: 60, "aria-label": "Vocabulary entry of " + it.item });
      entry.value = JSON.stringify(it.entry);
      fields.push(el("label", { text: "Entry (JSON: kind, description, unit, range, synonyms)" }), entry);
    }
    const save = el("button", { type: "button", text: "Save edit", onclick: () => {
      const body = { action: "edit" };
      if (text) body.content = text.value;
      if (constraints) body.constraints = constraints.value.split(";").map((c) => c.trim()).filter(Boolean);
      if (entry) {
        try { body.entry = JSON.parse(entry.value); } catch (e) { status($("item-status"), "the entry is not valid JSON: " + e.message, "error"); return; }
      }
      send(it, body);
    } });
    const cancel = el("button", { type: "button", class: "secondary", text: "Cancel", onclick: () => editor.remove() });
    const editor = el("tr", { class: "editor" }, el("td", { colspan: 6 }, el("div", { class: "row" }, fields, save, cancel)));
    row.after(editor);
    (text || entry).focus();
  }

  async function send(it, body) {
    body.expected_rev = it.rev;
    body.reason = $("reason").value.trim();
    try {
      await api(`${path()}/items/${encodeURIComponent(it.item)}/review`, { body });
      status($("item-status"), `${it.item}: ${body.action === "accept" ? "accepted" : body.action + "ed"}.`, "ok");
    } catch (e) {
      status($("item-status"), `${it.item}: ${e.message}` + (e.status === 409 ? " (reloaded)" : ""), "error");
    }
    await loadDrafts();
  }

  $("draft").addEventListener("change", loadDraft);
  $("reload").addEventListener("click", loadDrafts);
  $("publish").addEventListener("click", async () => {
    if (!draft) return;
    try {
      const r = await api(path() + "/publish", { body: { reason: $("reason").value.trim() } });
      status($("publish-status"), `Published ${r.guideline} ${r.version}: ${r.counts.nodes} nodes, ${r.counts.relations} relations. ${r.note}.`, "ok");
      draft = null;
      await loadDrafts();
    } catch (e) { status($("publish-status"), e.message, "error"); }
  });
  $("discard").addEventListener("click", async () => {
    if (!draft || !window.confirm(`Discard the draft ${draft.guideline} ${draft.version} and all its review decisions?`)) return;
    try {
      const r = await api(path() + "/discard", { body: { reason: $("reason").value.trim() } });
      status($("publish-status"), `Discarded the draft of ${r.guideline} ${r.version}: ${r.items} item(s) deleted.`, "ok");
      draft = null;
      await loadDrafts();
    } catch (e) { status($("publish-status"), e.message, "error"); }
  });
})();
