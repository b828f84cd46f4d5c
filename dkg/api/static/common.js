// Shared by every page: header (navigation, token, disclaimer), fetch helpers.
"use strict";

const DKG = (() => {
  const TOKEN_KEY = "dkgToken";
  const token = () => sessionStorage.getItem(TOKEN_KEY) || "";

  async function api(path, options = {}) {
    const headers = Object.assign({ "Accept": "application/json" }, options.headers || {});
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    if (token()) headers["Authorization"] = "Bearer " + token();
    const response = await fetch(path, {
      method: options.method || (options.body !== undefined ? "POST" : "GET"),
      headers, body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
    });
    let data = null;
    try { data = await response.json(); } catch (_) { /* non-JSON body */ }
    if (!response.ok) {
      const message = (data && data.error && data.error.message) || response.statusText;
      const err = new Error(message);
      err.status = response.status;
      throw err;
    }
    return data;
  }

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function status(target, message, kind = "") {
    target.textContent = message;
    target.className = "status " + kind;
  }

  function kindOf(labels) {
    if (!labels) return "Other";
    if (labels.includes("Decision")) return "Decision";
    if (labels.includes("Action")) return "Action";
    return labels.find((l) => !["Node", "Embedded", "Retrievable"].includes(l)) || "Other";
  }

  const listeners = [];
  function onToken(fn) { listeners.push(fn); }

  async function whoami() {
    try { return await api("/api/whoami"); } catch (e) { return { name: "anonymous", curator: false, error: e.message }; }
  }

  async function setupHeader(page) {
    const header = document.querySelector("header");
    const nav = el("nav", { "aria-label": "Pages" },
      ["clinician", "curator", "review", "researcher"].map((p) =>
        el("a", { href: "/" + p, "aria-current": p === page ? "page" : null, text: p[0].toUpperCase() + p.slice(1) })));
    const input = el("input", { type: "password", id: "token", autocomplete: "off", value: token(),
                                placeholder: "bearer token" });
    const who = el("span", { id: "who", class: "badge", "aria-live": "polite" });
    const refreshWho = async () => {
      const me = await whoami();
      who.textContent = me.error ? "token refused" : (me.curator ? `curator: ${me.name}` : `reader: ${me.name}`);
      listeners.forEach((fn) => fn(me));
    };
    const save = el("button", { type: "button", class: "secondary", onclick: () => {
      if (input.value) sessionStorage.setItem(TOKEN_KEY, input.value.trim()); else sessionStorage.removeItem(TOKEN_KEY);
      refreshWho();
    }, text: "Use token" });
    header.append(el("h1", { text: "Decision Knowledge Graph" }), nav,
      el("div", { class: "token" }, el("label", { for: "token", text: "Access token" }), input, save, who));
    const disclaimer = document.getElementById("disclaimer");
    try {
      const meta = await api("/api/meta");
      disclaimer.textContent = meta.disclaimer;
      DKG.meta = meta;
    } catch (e) {
      disclaimer.textContent += " (server: " + e.message + ")";
    }
    await refreshWho();
  }

  return { api, el, status, kindOf, setupHeader, onToken, token, meta: null };
})();
