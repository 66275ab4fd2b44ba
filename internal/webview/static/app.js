// The live view's page: it reads frames from /events (Server-Sent Events)
// and draws them. No framework and no build step: plain DOM and a canvas.
"use strict";

const $ = (sel) => document.querySelector(sel);
const CONTROL_HEADER = { "X-Kubecache-Webview": "1", "Content-Type": "application/json" };
const STATES = ["Listing", "StreamingList", "Watching", "BackingOff", "Stopped"];
const TIMELINE_WINDOW = 30000; // milliseconds of history the timeline shows
const MAX_POINTS = 4000;

const view = {
  points: [],        // timeline points {at, kind, type, key, rv}
  transitions: [],   // newest first
  state: null,
  elapsed: 0,
  changed: new Map(), // key -> time it changed (ms, page clock)
  storeCount: -1,
  tableDirty: true,
  lastTable: -Infinity,
  coalesced: 0,
};

// --- the stream ---

function connect() {
  const es = new EventSource("/events");
  es.addEventListener("frame", (e) => render(JSON.parse(e.data)));
  es.onopen = () => { document.body.dataset.connected = "true"; $("#conn-text").textContent = "live"; };
  es.onerror = () => { document.body.dataset.connected = "false"; $("#conn-text").textContent = "reconnecting"; };
}

function render(f) {
  if (f.controls) drawControls(f.controls);
  $("#name").textContent = f.name || "an informer";
  view.elapsed = f.elapsed;
  $("#elapsed").textContent = (f.elapsed / 1000).toFixed(1) + "s";
  // The first frame brings history: log it, and animate only its newest
  // transition.
  const ts = f.transitions || [];
  ts.forEach((t, i) => fire(t, f.seq > 1 || i === ts.length - 1));
  drawState(f.state);
  for (const p of f.points || []) view.points.push(p);
  if (view.points.length > MAX_POINTS) view.points.splice(0, view.points.length - MAX_POINTS);
  view.coalesced += f.coalesced || 0;
  drawTimeline();
  drawCounts(f.counts);
  drawStore(f.store);
  drawHandlers(f.handlers || []);
}

// --- the state machine ---

function drawState(s) {
  if (!s) return;
  view.state = s;
  document.body.dataset.state = s.kind;
  for (const name of STATES) {
    const n = document.getElementById("n-" + name);
    if (n) n.classList.toggle("lit", name === s.kind);
  }
  const el = $("#state");
  el.textContent = s.kind;
  el.dataset.state = s.kind;
  $("#state-text").textContent = s.text;
  if (s.kind === "BackingOff" && s.delay > 0) {
    const done = Math.min(1, (view.elapsed - s.since) / s.delay);
    $("#backoff-bar span").style.width = (done * 100).toFixed(0) + "%";
  }
}

function fire(t, animate) {
  view.transitions.unshift(t);
  view.transitions.length = Math.min(view.transitions.length, 40);
  const edge = document.getElementById("e-" + t.from + "-" + t.to);
  if (edge && animate) {
    edge.classList.remove("fire");
    void edge.getBoundingClientRect(); // restart the animation
    edge.classList.add("fire");
    clearTimeout(edge.fireTimer);
    edge.fireTimer = setTimeout(() => edge.classList.remove("fire"), 2500);
  }
  const label = $("#edge-label");
  label.textContent = t.from + " → " + t.to + (t.reason ? ":  " + t.reason : "");
  const log = $("#transitions");
  const li = document.createElement("li");
  const at = document.createElement("span");
  at.textContent = "+" + (t.at / 1000).toFixed(2) + "s ";
  const move = document.createElement("b");
  move.textContent = t.from + " → " + t.to;
  const why = document.createElement("span");
  why.className = "why";
  why.textContent = t.reason ? "  " + t.reason : "";
  li.title = t.text;
  li.append(at, move, why);
  if (!animate) li.className = "old";
  log.prepend(li);
  while (log.children.length > 8) log.lastChild.remove();
}

// --- the controls ---

function drawControls(c) {
  const faults = $("#faults");
  faults.textContent = "";
  for (const f of c.faults || []) {
    const b = document.createElement("button");
    b.dataset.fault = f.id;
    b.title = f.help || "";
    b.textContent = f.label;
    const small = document.createElement("small");
    small.textContent = f.help || "";
    b.append(small);
    b.addEventListener("click", () => press(f));
    faults.append(b);
  }
  if (!(c.faults || []).length) faults.innerHTML = "<p class=\"muted\">No fault controls.</p>";
  const sliders = $("#sliders");
  sliders.textContent = "";
  for (const s of c.sliders || []) {
    const wrap = document.createElement("div");
    wrap.className = "slider";
    const label = document.createElement("label");
    const name = document.createElement("span");
    name.textContent = s.label;
    const value = document.createElement("b");
    value.textContent = s.value + " " + s.unit;
    label.append(name, value);
    const input = document.createElement("input");
    Object.assign(input, { type: "range", min: s.min, max: s.max, step: s.step || "any", value: s.value });
    input.dataset.slider = s.id;
    input.addEventListener("input", () => { value.textContent = input.value + " " + s.unit; });
    input.addEventListener("change", () => setSlider(s, Number(input.value)));
    wrap.append(label, input);
    sliders.append(wrap);
  }
}

async function press(f) {
  const out = $("#fault-result");
  out.textContent = f.label + "…";
  try {
    const r = await fetch("/api/fault/" + encodeURIComponent(f.id), { method: "POST", headers: CONTROL_HEADER });
    const body = await r.json();
    out.textContent = r.ok ? f.label + ": done — watch the state machine" : f.label + ": " + body.error;
  } catch (e) {
    out.textContent = f.label + ": " + e;
  }
}

async function setSlider(s, v) {
  const out = $("#fault-result");
  try {
    const r = await fetch("/api/slider/" + encodeURIComponent(s.id), { method: "POST", headers: CONTROL_HEADER, body: JSON.stringify({ value: v }) });
    const body = await r.json();
    out.textContent = r.ok ? s.label + " set to " + v + " " + s.unit : s.label + ": " + body.error;
  } catch (e) {
    out.textContent = s.label + ": " + e;
  }
}

// --- counters ---

function drawCounts(c) {
  if (!c) return;
  const rows = [["added", c.added], ["modified", c.modified], ["deleted", c.deleted], ["initial", c.initial],
    ["bookmarks", c.bookmarks], ["skipped", c.skipped], ["lists", c.lists], ["relists", c.relists], ["back-offs", c.backoffs]];
  const dl = $("#counts");
  if (dl.children.length !== rows.length) {
    dl.textContent = "";
    for (const [k] of rows) {
      const d = document.createElement("div");
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.dataset.count = k;
      d.append(dt, dd);
      dl.append(d);
    }
  }
  rows.forEach(([k, v], i) => { dl.children[i].lastChild.textContent = v; });
}

// --- the resourceVersion timeline ---

const COLORS = { ADDED: "#34d399", MODIFIED: "#60a5fa", DELETED: "#f87171", initial: "#94a3b8", bookmark: "#fbbf24",
  list: "#a78bfa", relist: "#f87171", replace: "#a78bfa", watch: "#38bdf8", "watch-end": "#64748b" };

function drawTimeline() {
  const canvas = $("#rv-canvas");
  const w = canvas.clientWidth || canvas.width, h = canvas.height;
  if (canvas.width !== w) canvas.width = w;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, w, h);
  // The newest TIMELINE_WINDOW, or, early on, everything since the start
  // spread over at least ten seconds.
  const start = Math.max(0, view.elapsed - TIMELINE_WINDOW);
  const span = Math.max(view.elapsed - start, 10000), end = start + span;
  const pad = { l: 64, r: 10, t: 14, b: 22 };
  const visible = view.points.filter((p) => p.at >= start);
  const rvs = visible.map((p) => Number(p.rv)).filter((n) => Number.isFinite(n) && n > 0);
  let lo = Math.min(...rvs), hi = Math.max(...rvs);
  if (!rvs.length) { lo = 0; hi = 1; }
  if (hi === lo) { hi = lo + 1; }
  const x = (t) => pad.l + ((t - start) / span) * (w - pad.l - pad.r);
  const y = (rv) => h - pad.b - ((rv - lo) / (hi - lo)) * (h - pad.t - pad.b);
  // axes
  ctx.strokeStyle = "#24324f"; ctx.fillStyle = "#8b9bb7"; ctx.font = "11px ui-monospace, monospace"; ctx.lineWidth = 1;
  ctx.beginPath(); ctx.moveTo(pad.l, pad.t); ctx.lineTo(pad.l, h - pad.b); ctx.lineTo(w - pad.r, h - pad.b); ctx.stroke();
  ctx.textAlign = "right";
  ctx.fillText("rv " + hi, pad.l - 6, pad.t + 8);
  ctx.fillText("rv " + lo, pad.l - 6, h - pad.b);
  ctx.textAlign = "center";
  for (let s = Math.ceil(start / 5000) * 5000; s <= end; s += 5000) {
    if (s < 0) continue;
    ctx.fillText("+" + (s / 1000) + "s", x(s), h - 6);
  }
  let lastPageLabel = -Infinity;
  for (const p of visible) {
    const px = x(p.at);
    const rv = Number(p.rv);
    const py = Number.isFinite(rv) && rv > 0 ? y(rv) : h - pad.b - 4;
    switch (p.kind) {
      case "list": case "relist": {
        ctx.strokeStyle = COLORS[p.kind]; ctx.lineWidth = 2;
        ctx.beginPath(); ctx.moveTo(px, pad.t); ctx.lineTo(px, h - pad.b); ctx.stroke();
        ctx.fillStyle = COLORS[p.kind]; ctx.textAlign = "left";
        ctx.fillText(p.kind + " rv=" + (p.rv === "" ? '""' : p.rv), px + 4, pad.t + 10);
        break;
      }
      case "page":
        ctx.fillStyle = COLORS.list;
        ctx.beginPath(); ctx.moveTo(px, h - pad.b - 2); ctx.lineTo(px - 5, h - pad.b - 11); ctx.lineTo(px + 5, h - pad.b - 11); ctx.fill();
        // Pages of one list come close together: label one in 70px.
        if (px - lastPageLabel > 70) {
          ctx.textAlign = "left"; ctx.fillText(p.items + " items", px + 6, h - pad.b - 4);
          lastPageLabel = px;
        }
        break;
      case "replace":
        ctx.fillStyle = COLORS.replace; ctx.fillRect(px - 5, py - 5, 10, 10);
        break;
      case "bookmark":
        ctx.save(); ctx.translate(px, py); ctx.rotate(Math.PI / 4);
        ctx.fillStyle = COLORS.bookmark; ctx.fillRect(-5, -5, 10, 10); ctx.restore();
        break;
      case "watch": case "watch-end":
        ctx.strokeStyle = COLORS[p.kind]; ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(px, h - pad.b); ctx.lineTo(px, h - pad.b - 10); ctx.stroke();
        break;
      default:
        ctx.fillStyle = p.kind === "initial" ? COLORS.initial : (COLORS[p.type] || COLORS.MODIFIED);
        ctx.beginPath(); ctx.arc(px, py, 3.2, 0, 2 * Math.PI); ctx.fill();
    }
  }
  $("#coalesced").textContent = view.coalesced ? view.coalesced + " events sampled out of the drawing (bursts are drawn by their last points)" : "";
}

// --- the store ---

function drawStore(s) {
  if (!s) return;
  $("#store-count").textContent = s.count;
  const synced = $("#store-synced");
  synced.textContent = s.synced ? "synced" : "not synced";
  synced.className = s.synced ? "yes" : "no";
  $("#store-rv").textContent = s.lastSync || "—";
  // How stale: the last word from the server that moved the resume point.
  const heard = view.points.findLast((p) => p.kind === "event" || p.kind === "bookmark" || p.kind === "replace");
  $("#store-fresh").textContent = heard ? "heard from the server " + ago(view.elapsed - heard.at) : "heard from the server —";
  const now = performance.now();
  for (const k of s.changed || []) { view.changed.set(k, now); view.tableDirty = true; }
  if (s.count !== view.storeCount) { view.storeCount = s.count; view.tableDirty = true; }
  if (view.tableDirty && now - view.lastTable > 500) loadTable();
}

async function loadTable() {
  view.tableDirty = false;
  view.lastTable = performance.now();
  const filter = $("#filter").value;
  const r = await fetch("/api/objects?limit=300&filter=" + encodeURIComponent(filter));
  if (!r.ok) return;
  const ans = await r.json();
  const body = $("#objects tbody");
  const now = performance.now();
  const rows = ans.rows.map((o) => {
    const tr = document.createElement("tr");
    const key = (o.namespace ? o.namespace + "/" : "") + o.name;
    tr.dataset.key = key;
    const when = view.changed.get(key);
    if (when !== undefined && now - when < 2000) tr.className = "changed";
    for (const v of [o.namespace, o.name, o.rv]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.append(td);
    }
    return tr;
  });
  body.replaceChildren(...rows);
  body.dataset.total = ans.total;
  $("#objects-more").textContent = ans.total > ans.rows.length ? "showing " + ans.rows.length + " of " + ans.total : ans.total + " shown";
  for (const [k, t] of view.changed) if (now - t > 5000) view.changed.delete(k);
}

// --- the handlers ---

function drawHandlers(hs) {
  const body = $("#handler-table tbody");
  const rows = hs.map((h) => {
    const tr = document.createElement("tr");
    tr.dataset.handler = h.name;
    const cells = [h.name, h.synced ? "yes" : "no", String(h.queued), fmtMs(h.oldestMs), (h.perSecond < 0 ? "…" : h.perSecond.toFixed(1)), String(h.delivered)];
    cells.forEach((v, i) => {
      const td = document.createElement("td");
      td.textContent = v;
      if (i === 1) td.className = h.synced ? "yes" : "no";
      if (i === 2 && h.queued > 0) {
        const bar = document.createElement("span");
        bar.className = "bar";
        bar.style.width = Math.min(80, 4 + Math.log2(1 + h.queued) * 8) + "px";
        td.append(bar);
      }
      tr.append(td);
    });
    return tr;
  });
  body.replaceChildren(...rows);
}

function ago(v) {
  return v < 1000 ? "under a second ago" : (v / 1000).toFixed(1) + "s ago";
}

function fmtMs(v) {
  if (!v) return "0";
  return v < 1000 ? v.toFixed(0) + "ms" : (v / 1000).toFixed(1) + "s";
}

$("#filter").addEventListener("input", () => { view.tableDirty = true; loadTable(); });
connect();
