"use strict";
(async () => {
  const { api, el, status } = DKG;
  const $ = (id) => document.getElementById(id);
  let me = { curator: false, name: "anonymous" };
  let current = null;   // the node as read (uid, rev, typed ...)
  let typed = {};       // key -> form values being edited

  DKG.onToken(async (who) => { me = who; applyRole(); await loadVersions(); });
  await DKG.setupHeader("curator");
  const vocab = Object.fromEntries(DKG.meta.vocabulary.map((v) => [v.key, v]));
  $("add-key").append(...DKG.meta.vocabulary.map((v) => el("option", { value: v.key, text: `${v.key} — ${v.description}` })));

  async function loadVersions() {
    try {
      const rows = await api("/api/guidelines");
      const guidelines = [...new Set(rows.map((g) => g.guideline))];
      const keep = [$("guideline").value, $("picture-version").value];
      $("guideline").replaceChildren(el("option", { value: "", text: "all" }),
                                     ...guidelines.map((g) => el("option", { value: g, text: g })));
      $("picture-version").replaceChildren(el("option", { value: "", text: "(choose a version)" }),
        ...rows.map((g) => el("option", { value: `${g.guideline}|${g.version}`, text: `${g.guideline} ${g.version}` })));
      [$("guideline").value, $("picture-version").value] = keep;
      if (!$("picture-version").value) $("picture-version").value = "";
      if (!$("guideline").value) $("guideline").value = "";
    } catch (e) { status($("auth-note"), e.message, "error"); }
  }

  const pictureUrls = [];  // object URLs of the shown pictures (fetched with the token), revoked on the next load
  async function loadPictures() {
    pictureUrls.splice(0).forEach((u) => URL.revokeObjectURL(u));
    $("pictures").replaceChildren();
    const value = $("picture-version").value;
    if (!value) { status($("pictures-status"), ""); return; }
    const [guideline, version] = value.split("|");
    try {
      const list = await api(`/api/guidelines/${encodeURIComponent(guideline)}/${encodeURIComponent(version)}/pictures`);
      const figures = [];
      for (const p of list.pictures) {
        // fetched with the bearer token (an <img src> cannot send it)
        const headers = DKG.token() ? { "Authorization": "Bearer " + DKG.token() } : {};
        const response = await fetch(p.url, { headers });
        if (!response.ok) continue;
        const objectUrl = URL.createObjectURL(await response.blob());
        pictureUrls.push(objectUrl);
        figures.push(el("figure", {}, el("img", { src: objectUrl, alt: `Parser review picture of page ${p.page ?? p.name}` }),
                        el("figcaption", { class: "muted", text: p.name })));
      }
      $("pictures").replaceChildren(...figures);
      status($("pictures-status"), `${figures.length} page(s) of ${guideline} ${version}.`, "ok");
    } catch (e) { status($("pictures-status"), e.message, e.status === 404 ? "" : "error"); }
  }
  $("picture-version").addEventListener("change", loadPictures);

  function applyRole() {
    const can = !!me.curator;
    $("save").disabled = !can || !current;
    document.querySelectorAll("button.rollback").forEach((b) => { b.disabled = !can; });
    status($("auth-note"), can ? `Signed in as curator ${me.name}: changes are audited under your name.`
                               : "Read-only: enter a curator token (top right) to change constraints or roll back.", can ? "ok" : "");
  }

  $("find-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const params = new URLSearchParams({ q: $("find").value.trim(), decisions_only: $("decisions-only").checked, limit: 50 });
    if ($("guideline").value) params.set("guideline", $("guideline").value);
    try {
      const rows = await api("/api/nodes?" + params);
      $("results").replaceChildren(...(rows.length ? rows.map((r) => el("li", {},
        el("button", { type: "button", class: "secondary", "data-uid": r.uid, text: "Select", "aria-label": "Select " + r.content,
                       onclick: () => load(r.uid) }), " ",
        el("span", { class: "badge", text: `${r.guideline} ${r.version}` }), " ", r.content,
        el("span", { class: "muted", text: "  [" + (r.constraints.join(", ") || "no constraints") + "]" })))
        : [el("li", { class: "muted", text: "No node matches." })]));
    } catch (e) { $("results").replaceChildren(el("li", { class: "status error", text: e.message })); }
  });

  function numericField(key, spec, form) {
    const id = (s) => `c-${key}-${s}`;
    const num = (s, v) => el("input", { type: "number", id: id(s), step: "any", min: spec.minimum, max: spec.maximum, value: v ?? "",
      oninput: (ev) => { form[s] = ev.target.value === "" ? null : Number(ev.target.value); } });
    const strict = (s, label) => el("label", {}, el("input", { type: "checkbox", id: id(s), checked: form[s] || null,
      onchange: (ev) => { form[s] = ev.target.checked; } }), " " + label);
    return [
      el("div", { class: "row" }, el("label", { for: id("minimum"), text: "min" }), num("minimum", form.minimum), strict("min_strict", "strict (>)")),
      el("div", { class: "row" }, el("label", { for: id("maximum"), text: "max" }), num("maximum", form.maximum), strict("max_strict", "strict (<)")),
    ];
  }

  function categoricalField(key, spec, form) {
    const options = [...new Set([...spec.values, ...form.values, ...form.not_values])];
    const multi = (s, label) => {
      const select = el("select", { multiple: true, id: `c-${key}-${s}`, onchange: (ev) => {
        form[s] = [...ev.target.selectedOptions].map((o) => o.value); } },
        options.map((v) => el("option", { value: v, selected: form[s].includes(v) || null, text: v })));
      return el("div", {}, el("label", { for: `c-${key}-${s}`, text: label }), select);
    };
    const parts = [multi("values", "allowed (one = equals, several = any of)"), multi("not_values", "excluded (≠)")];
    if (spec.open) parts.push(el("div", { class: "row" }, el("label", { for: `c-${key}-other`, text: "other value" }),
      el("input", { type: "text", id: `c-${key}-other`, placeholder: "lower_case token", onchange: (ev) => {
        const v = ev.target.value.trim(); if (v && !form.values.includes(v)) { form.values.push(v); render(); } } })));
    return parts;
  }

  function render() {
    $("editor").replaceChildren(...Object.keys(typed).sort().map((key) => {
      const spec = vocab[key], form = typed[key];
      const body = spec.kind === "numeric" ? numericField(key, spec, form) : categoricalField(key, spec, form);
      return el("fieldset", { class: "active", "data-key": key },
        el("legend", { text: `${key}${spec.unit ? " (" + spec.unit + ")" : ""}` }),
        el("div", { class: "muted", text: spec.description }), ...body,
        el("button", { type: "button", class: "secondary", text: "Remove " + key, onclick: () => { delete typed[key]; render(); } }));
    }));
    if (!Object.keys(typed).length) $("editor").append(el("p", { class: "muted", text: "No constraints (an action node)." }));
  }

  $("add-btn").addEventListener("click", () => {
    const key = $("add-key").value;
    if (!typed[key]) typed[key] = { minimum: null, maximum: null, min_strict: false, max_strict: false, values: [], not_values: [] };
    render();
  });

  async function load(uid) {
    try {
      current = await api("/api/nodes/" + encodeURIComponent(uid));
      typed = current.typed ? JSON.parse(JSON.stringify(current.typed)) : {};
      $("node").replaceChildren(
        el("p", {}, el("strong", { text: current.content })),
        el("p", { class: "muted" }, `${current.uid} · ${current.guideline} ${current.version} · page(s) ${current.pages.join(", ")} · revision `,
           el("span", { id: "rev", text: String(current.rev) })),
        el("p", {}, "Constraints: ", el("code", { id: "current-constraints", text: current.constraints.join(", ") || "none" })),
        ...(current.typed_problem ? [el("p", { class: "status error", text: current.typed_problem })] : []));
      render();
      await loadHistory();
      status($("edit-status"), "");
      const version = `${current.guideline}|${current.version}`;
      if ($("picture-version").value !== version && [...$("picture-version").options].some((o) => o.value === version)) {
        $("picture-version").value = version;
        loadPictures();
      }
      applyRole();
    } catch (e) { status($("edit-status"), e.message, "error"); }
  }

  async function loadHistory() {
    const rows = await api("/api/nodes/" + encodeURIComponent(current.uid) + "/history");
    $("history").tBodies[0].replaceChildren(...rows.slice().reverse().map((h) => el("tr", { "data-change": h.id },
      el("td", { text: h.rev_after }), el("td", { text: h.at.slice(0, 19).replace("T", " ") }), el("td", { text: h.who }),
      el("td", { text: h.op }), el("td", {}, el("code", { text: h.before.join(", ") || "none" })),
      el("td", {}, el("code", { text: h.after.join(", ") || "none" })), el("td", { text: h.reason }),
      el("td", {}, el("button", { type: "button", class: "secondary rollback", disabled: !me.curator || null,
        "aria-label": "Roll back change at revision " + h.rev_after, text: "Roll back", onclick: () => rollback(h.id) })))));
    if (!rows.length) $("history").tBodies[0].append(el("tr", {}, el("td", { colspan: 8, class: "muted", text: "No changes yet." })));
  }

  async function rollback(id) {
    try {
      const rec = await api(`/api/changes/${encodeURIComponent(id)}/rollback`, { body: { reason: $("reason").value.trim() } });
      await load(current.uid);  // the status is set after the node and history are re-read
      status($("edit-status"), `Rolled back: constraints are now ${rec.after.join(", ") || "none"} (revision ${rec.rev_after}).`, "ok");
    } catch (e) { status($("edit-status"), e.message, "error"); }
  }

  $("edit-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (!current) return;
    const reason = $("reason").value.trim();
    if (!reason) { status($("edit-status"), "Give a reason: it goes into the audit trail.", "error"); $("reason").focus(); return; }
    try {
      const rec = await api("/api/nodes/" + encodeURIComponent(current.uid) + "/constraints",
                            { method: "PUT", body: { typed, reason, expected_rev: current.rev } });
      await load(current.uid);
      status($("edit-status"), `Saved revision ${rec.rev_after}: ${rec.after.join(", ") || "no constraints"}.`, "ok");
    } catch (e) { status($("edit-status"), (e.status === 409 ? "Someone changed this node: " : "") + e.message, "error"); }
  });

  applyRole();
  render();
  const preset = new URLSearchParams(location.search).get("node");
  if (preset) load(preset);
})();
