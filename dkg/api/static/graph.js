// The evidence graph: root-to-answer paths drawn as a layered SVG (no library). Nodes are focusable buttons;
// selecting one shows its details, and "expand" adds its neighbours.
"use strict";

class EvidenceGraph {
  constructor(svg, onSelect) {
    this.svg = svg;
    this.onSelect = onSelect;
    this.nodes = new Map();   // uid -> {uid, content, kind}
    this.edges = new Map();   // "a>b" -> {from, to, label}
    this.matched = new Set();
    this.selected = null;
  }

  clear() { this.nodes.clear(); this.edges.clear(); this.matched.clear(); this.selected = null; this.draw(); }

  addNode(n) {
    if (!this.nodes.has(n.uid)) this.nodes.set(n.uid, { uid: n.uid, content: n.content || n.uid, kind: DKG.kindOf(n.labels) });
  }

  addEdge(from, to, label) {
    const key = from + ">" + to;
    if (!this.edges.has(key)) this.edges.set(key, { from, to, label: label || "" });
  }

  addPath(path) {
    path.forEach((n, i) => { this.addNode(n); if (i > 0) this.addEdge(path[i - 1].uid, n.uid); });
  }

  addNeighbourhood(nb) {
    this.addNode(nb);
    (nb.parents || []).forEach((p) => { this.addNode(p); this.addEdge(p.uid, nb.uid, p.label); });
    (nb.children || []).forEach((c) => { this.addNode(c); this.addEdge(nb.uid, c.uid, c.label); });
  }

  layers() {
    const depth = new Map([...this.nodes.keys()].map((u) => [u, 0]));
    for (let round = 0; round < this.nodes.size; round++) {  // longest-path layering of a DAG
      let changed = false;
      for (const e of this.edges.values()) {
        if (depth.get(e.to) < depth.get(e.from) + 1 && depth.get(e.from) + 1 <= this.nodes.size) {
          depth.set(e.to, depth.get(e.from) + 1); changed = true;
        }
      }
      if (!changed) break;
    }
    const layers = [];
    for (const [uid, d] of depth) (layers[d] = layers[d] || []).push(uid);
    return layers.filter(Boolean);
  }

  static wrap(text, width, lines) {
    const words = text.replace(/\s+/g, " ").trim().split(" ");
    const out = [""];
    for (const w of words) {
      const line = out[out.length - 1];
      if ((line + " " + w).trim().length <= width) out[out.length - 1] = (line + " " + w).trim();
      else if (out.length < lines) out.push(w);
      else { out[out.length - 1] = line.slice(0, width - 1) + "…"; break; }
    }
    return out;
  }

  draw() {
    const NS = "http://www.w3.org/2000/svg";
    const W = 190, H = 54, GX = 18, GY = 34;
    const svg = this.svg;
    svg.replaceChildren();
    const defs = document.createElementNS(NS, "defs");
    defs.innerHTML = '<marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" ' +
      'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8c959f"/></marker>';
    svg.append(defs);
    if (!this.nodes.size) {
      svg.setAttribute("viewBox", "0 0 600 60");
      const t = document.createElementNS(NS, "text");
      t.setAttribute("x", 10); t.setAttribute("y", 35); t.textContent = "No evidence path yet.";
      svg.append(t);
      return;
    }
    const layers = this.layers();
    const widest = Math.max(...layers.map((l) => l.length));
    const width = widest * (W + GX) + GX, height = layers.length * (H + GY) + GY;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.style.height = Math.min(560, Math.max(160, height)) + "px";
    const pos = new Map();
    layers.forEach((layer, d) => {
      const offset = (width - layer.length * (W + GX) + GX) / 2;
      layer.forEach((uid, i) => pos.set(uid, { x: offset + i * (W + GX), y: GY / 2 + d * (H + GY) }));
    });
    for (const e of this.edges.values()) {
      const a = pos.get(e.from), b = pos.get(e.to);
      if (!a || !b) continue;
      const x1 = a.x + W / 2, y1 = a.y + H, x2 = b.x + W / 2, y2 = b.y;
      const path = document.createElementNS(NS, "path");
      path.setAttribute("class", "edge");
      path.setAttribute("d", `M${x1},${y1} C${x1},${(y1 + y2) / 2} ${x2},${(y1 + y2) / 2} ${x2},${y2}`);
      svg.append(path);
      if (e.label) {
        const t = document.createElementNS(NS, "text");
        t.setAttribute("class", "edge-label");
        t.setAttribute("x", (x1 + x2) / 2 + 4); t.setAttribute("y", (y1 + y2) / 2);
        t.textContent = e.label.length > 28 ? e.label.slice(0, 27) + "…" : e.label;
        svg.append(t);
      }
    }
    for (const [uid, n] of this.nodes) {
      const p = pos.get(uid);
      const g = document.createElementNS(NS, "g");
      const classes = ["node", n.kind === "Decision" || n.kind === "Action" ? n.kind : "Other"];
      if (this.matched.has(uid)) classes.push("matched");
      if (this.selected === uid) classes.push("selected");
      g.setAttribute("class", classes.join(" "));
      g.setAttribute("transform", `translate(${p.x},${p.y})`);
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("data-uid", uid);
      g.setAttribute("aria-label", `${n.kind}: ${n.content}`);
      const title = document.createElementNS(NS, "title");
      title.textContent = `${n.kind}: ${n.content}\n${uid}`;
      const rect = document.createElementNS(NS, "rect");
      rect.setAttribute("width", W); rect.setAttribute("height", H);
      g.append(title, rect);
      EvidenceGraph.wrap(n.content, 31, 3).forEach((line, i) => {
        const t = document.createElementNS(NS, "text");
        t.setAttribute("x", 6); t.setAttribute("y", 15 + i * 14); t.textContent = line;
        g.append(t);
      });
      const select = () => { this.selected = uid; this.draw(); this.onSelect(uid); };
      g.addEventListener("click", select);
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(); } });
      svg.append(g);
    }
  }
}
