// Kemps replay page: a finished match played back on the table (GET /api/replays/{id},
// docs/protocol.md "Replays"). Play/pause, speed 0.25x-4x, step by event, jump to a hand, a
// timeline with markers for signals, calls, sweeps and deals, a link to the moment shown
// (`#t=41.2`: table seconds; `?hand=2&t=3.5`: seconds into hand 2), the tell of each call and the
// match's signal figures (the numbers `kemps replay --stats --json` gives on the same record).
// In a shared room (`/together/CODE`, static/together.js) the driver's moves go to everyone and a
// follower's page mirrors the driver's: `R.hook` hears every change of the moment shown, and
// `R.locked` (a follower) keeps the controls from moving it.
import { $, h, drawTable, parseCard } from "./replay-table.js";
import { joinTogether, offerTogether } from "./together.js";

const R = { data: null, gestures: {}, T: 0, idx: -1, playing: false, speed: 1, last: 0, drawn: null, near: null, hook: null, locked: false };
const changed = () => { if (R.hook) R.hook(); };
const GESTURE_S = 1.0; // a gesture plays on the person for this long (kemps.gestures.GESTURE_S)
const narrow = window.matchMedia("(max-width: 600px)");
const BUBBLE_S = 1.6; // table seconds a gesture or call stays in its seat's bubble

const fmt = (t) => `${t.toFixed(1)} s`;
const label = (g) => (R.gestures[g] ? R.gestures[g].label : g.replace(/_/g, " "));
const names = () => R.data.names;
const callWord = (kind) => {
  const r = R.data.rules;
  return { kemps: r.call_word, stop: r.stop_word, double_kemps: r.double_call_word, double_stop: r.double_stop_word }[kind] || kind;
};
const cardsShort = (list) => list.map((c) => (c ? parseCard(c).short : "?")).join(" ");

// The last event at or before table time t (-1: before the first).
function idxAt(t) {
  const ev = R.data.events;
  let lo = 0, hi = ev.length - 1, found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ev[mid].t <= t + 1e-9) { found = mid; lo = mid + 1; } else hi = mid - 1;
  }
  return found;
}
const current = () => (R.idx >= 0 ? R.data.events[R.idx] : null);
const handNow = () => (current() ? current().hand : 0);

function seek(t, idx = null) {
  R.T = Math.max(0, Math.min(t, R.data.end));
  R.idx = idx === null ? idxAt(R.T) : idx;
  render();
  changed();
}
function step(by) {
  const n = R.data.events.length;
  const i = Math.max(-1, Math.min(n - 1, R.idx + by));
  R.playing = false;
  seek(i >= 0 ? R.data.events[i].t : 0, i);
}
function seekHand(k) {
  const hd = R.data.hands.find((x) => x.hand === k);
  if (hd) seek(hd.t, hd.first);
}
function setPlaying(on) {
  if (on && R.T >= R.data.end) seek(0, -1);
  R.playing = on;
  R.last = performance.now();
  render();
  changed();
}
// Where a shared room's driver is (together.js): the page goes there, playing on from there
// at the driver's speed (a follower's index is the driver's when its replay has that event at
// that time, else the last event at or before the time: a pair's choice may differ by then).
function follow(p) {
  const ev = R.data.events;
  R.T = Math.max(0, Math.min(p.t, R.data.end));
  R.idx = p.idx >= -1 && p.idx < ev.length && (p.idx < 0 || ev[p.idx].t <= R.T + 1e-6) ? p.idx : idxAt(R.T);
  R.playing = p.playing;
  R.speed = p.speed;
  $("speed").value = String(p.speed);
  R.last = performance.now();
  render();
}

function frame(now) {
  if (R.playing) {
    R.T = Math.min(R.data.end, R.T + ((now - R.last) / 1000) * R.speed);
    const idx = idxAt(R.T);
    R.idx = Math.max(idx, R.idx);
    if (R.T >= R.data.end) { R.playing = false; R.idx = R.data.events.length - 1; if (!R.locked) changed(); }
    render();
  }
  R.last = now;
  requestAnimationFrame(frame);
}

// ---- the table at the moment shown ----------------------------------------------------------
function scene() {
  const d = R.data, ev = d.events, cur = current();
  const state = d.states[cur ? cur.s : 0];
  const last = {}, bubbles = {}, gestures = {};
  const hand = handNow();
  for (let i = R.idx; i >= 0 && ev[i].hand === hand; i--) {
    const e = ev[i];
    if (e.seat === undefined || e.seat === null) continue;
    if (last[e.seat] === undefined && ["swapped", "grabbed", "discarded"].includes(e.type)) {
      last[e.seat] = e.type === "swapped" ? `took ${cardsShort(e.took)}, gave ${cardsShort(e.gave)}`
        : e.type === "grabbed" ? `picked up ${cardsShort(e.took)}` : `threw ${cardsShort(e.gave)}`;
    }
    if (gestures[e.seat] === undefined && e.type === "gestured" && R.T - e.t < GESTURE_S)
      gestures[e.seat] = { gesture: e.gesture, ms: Math.round((R.T - e.t) * 1000) };
    if (bubbles[e.seat] === undefined && R.T - e.t <= BUBBLE_S) {
      if (e.type === "gestured") bubbles[e.seat] = { text: label(e.gesture) + (e.signal ? " · signal" : ""), kind: e.signal ? "signal" : e.heard ? "heard" : "" };
      else if (e.type === "called") bubbles[e.seat] = { text: `${callWord(e.kind)}!`, kind: "call" };
    }
  }
  let note = "";
  if (state.phase === "huddle") note = state.hand_no === 0 ? "Before the first deal" : "Between hands";
  else if (state.phase === "over") note = "Match over";
  else if (cur && cur.type === "call_judged") note = cur.right ? "Right!" : "Wrong!";
  // The player drawn large: the one you pointed at (a click on a person), else the one across.
  const near = R.near !== null ? R.near : d.names.length / 2;
  return { names: d.names, pairs: d.pairs, state, last, bubbles, gestures, near, note };
}

function render() {
  const d = R.data, cur = current();
  const sc = scene();
  drawTable($("felt"), sc, narrow.matches, (el, s) => {
    for (const part of [el.querySelector(".person-box"), el.querySelector(".plate")]) {
      part.classList.add("lookable");
      part.title = `Watch ${d.names[s]} (drawn large)`;
      part.addEventListener("click", () => { R.near = s; render(); });
    }
  });
  const hand = handNow();
  $("clock").textContent = `${fmt(R.T)} / ${fmt(d.end)}`;
  $("scrub").value = String(R.T);
  $("play").textContent = R.playing ? "❚❚ Pause" : "▶ Play";
  $("play").setAttribute("aria-pressed", R.playing ? "true" : "false");
  const ended = R.idx === d.events.length - 1 && R.T >= d.end - 1e-6;
  const box = $("replay");
  Object.assign(box.dataset, { idx: String(R.idx), t: R.T.toFixed(3), hand: String(hand), playing: String(R.playing), ended: String(ended) });
  const told = cur && (cur.text || (cur.type === "hand_ended" ? `Hand ${cur.hand_no} ends.` : cur.type.replace(/_/g, " ")));
  $("now-text").textContent = cur ? `${fmt(cur.t)}: ${told}` : "The match is about to start.";
  if (hand && $("hand").value !== String(hand)) $("hand").value = String(hand);
  // Rounded up to the millisecond, so that the link never opens before the event shown.
  const link = `${location.pathname}#t=${(Math.ceil(R.T * 1000 - 1e-6) / 1000).toFixed(3)}`;
  $("moment-link").href = link;
  $("scores").replaceChildren(...Array.from({ length: d.pairs }, (_, p) => h("span", { class: `rp-score pair-${p}` },
    h("span", { class: "dot", "aria-hidden": "true" }), `${d.names[p]} & ${d.names[p + d.pairs]}: `,
    h("b", { text: d.rules.scoring === "points" ? String(sc.state.scores[p]) : sc.state.spelled[p] || "–" }))));
  if (R.drawn !== `${R.idx}`) {
    R.drawn = `${R.idx}`;
    renderLog(hand);
    renderTell(hand);
  }
}

function renderLog(hand) {
  const ev = R.data.events, out = [];
  for (let i = Math.max(0, R.idx); i >= 0 && out.length < 14; i--) {
    const e = ev[i];
    if (R.idx < 0 || e.hand !== hand) break;
    if (!e.text) continue;
    out.push(h("li", { class: `${i === R.idx ? "now" : ""} ${e.type === "gestured" && e.signal ? "signal" : ""}`, "data-i": i },
      h("span", { class: "t", text: fmt(e.t) }), " ", e.text));
  }
  $("log").replaceChildren(...out.reverse());
  $("log").scrollTop = $("log").scrollHeight;
}

// ---- the tell: for each call of the hand, the seconds before it -------------------------------
function renderTell(hand) {
  const th = R.data.tell.hands.find((x) => x.hand === hand);
  $("tell-hand").textContent = String(hand || 1);
  const box = $("tell");
  if (!th || !th.calls.length) {
    box.replaceChildren(h("p", { class: "muted", text: hand ? "No call in this hand (yet)." : "The first hand is not dealt yet." }));
    return;
  }
  const span = R.data.tell_strip_s || 5;
  box.replaceChildren(...th.calls.map((c, k) => {
    const seen = R.T >= c.t;
    const items = c.strip.map((s) => {
      const what = s.what === "gesture" ? label(s.gesture) : "swaps";
      const cls = s.what !== "gesture" ? "swap" : s.signal === true ? "signal" : s.signal === null ? "unknown" : "gesture";
      return h("li", { class: `si ${cls} pair-${s.seat % R.data.pairs}`, "data-t": s.t, "data-seat": s.seat, "data-what": s.what,
        "data-gesture": s.gesture || "" },
      h("span", { class: "si-dot", "aria-hidden": "true" }),
      h("span", { class: "si-text", text: `${names()[s.seat]} ${what}${s.signal === true ? " (signal)" : ""}, ${(c.t - s.t).toFixed(2)} s before` }));
    });
    return h("article", { class: `call-tell ${c.right ? "right" : "wrong"} ${seen ? "" : "ahead"}`, "data-call": k, "data-t": c.t, "data-by": c.by, "data-kind": c.kind },
      h("p", { class: "tell-text", text: c.text }),
      h("div", { class: "strip-track", "aria-hidden": "true" },
        c.strip.map((s) => h("span", { class: `tk ${s.what !== "gesture" ? "swap" : s.signal === true ? "signal" : "gesture"} pair-${s.seat % R.data.pairs}`,
          title: `${names()[s.seat]} ${s.what === "gesture" ? label(s.gesture) : "swaps"} at ${fmt(s.t)}`,
          style: `left:${Math.max(0, Math.min(100, (100 * (s.t - (c.t - span))) / span))}%` })),
        h("span", { class: `tk call pair-${c.by % R.data.pairs}`, style: "left:100%" })),
      h("div", { class: "strip", role: "group", "aria-label": `The ${span} seconds before ${names()[c.by]}'s call` },
        h("ol", { class: "strip-items" }, items),
        h("span", { class: `strip-call pair-${c.by % R.data.pairs}`, text: `${names()[c.by]}: ${callWord(c.kind)}` })),
      h("p", { class: "muted strip-scale", text: `${fmt(c.t - span)} … ${fmt(c.t)}` }));
  }));
}

// ---- the stats panel: every figure of kemps.tell.analyse's pairs and players ------------------
const num = (path, value, suffix = "") => h("span", { class: "stat", "data-stat": path, "data-value": JSON.stringify(value),
  text: value === null || value === undefined ? "–" : typeof value === "number" && !Number.isInteger(value) ? `${value.toFixed(2)}${suffix}` : `${value}${suffix}` });
const spread = (path, s) => h("span", {}, num(`${path}.median`, s.median, " s"), " (",
  h("span", { hidden: !s.n }, num(`${path}.min`, s.min), "–", num(`${path}.max`, s.max), ", "), "n=", num(`${path}.n`, s.n), ")");
// Each cell carries its column's name, shown beside it where the table folds up (phones).
function labelled(table) {
  const heads = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const tr of table.querySelectorAll("tbody tr")) [...tr.children].forEach((cell, i) => cell.setAttribute("data-label", heads[i] || ""));
  return table;
}

function renderStats() {
  const t = R.data.tell;
  const pairs = t.pairs.map((p, pi) => {
    const head = h("h3", { class: `pair-${pi}` }, h("span", { class: "dot", "aria-hidden": "true" }), ` ${p.players.join(" & ")}`);
    if (p.withheld) return h("div", { class: "stat-pair", "data-pair": pi }, head, h("p", { class: "muted", text: "This pair keeps its signals to itself (withheld for a rematch): no signal figures." }));
    if (!p.signals.length) return h("div", { class: "stat-pair", "data-pair": pi }, head, h("p", { class: "muted", text: t.signals_known ? "No agreed signal was given during a hand." : "The record holds no signal agreements." }));
    const rows = p.signals.map((s, si) => {
      const base = `pairs.${pi}.signals.${si}`;
      return h("tr", { "data-gesture": s.gesture },
        h("th", { scope: "row", text: label(s.gesture) }),
        h("td", {}, num(`${base}.uses`, s.uses)),
        h("td", {}, num(`${base}.with_four`, s.with_four), " / ", num(`${base}.fakes`, s.fakes)),
        h("td", {}, num(`${base}.partner_calls`, s.partner_calls), " (", num(`${base}.partner_right`, s.partner_right), " right)"),
        h("td", {}, num(`${base}.stopped`, s.stopped), " (", num(`${base}.stopped_right`, s.stopped_right), " right)"),
        h("td", {}, s.read_after ? h("span", {}, "after ", num(`${base}.read_after`, s.read_after), " use", s.read_after === 1 ? "" : "s") : num(`${base}.read_after`, s.read_after)),
        h("td", {}, spread(`${base}.reaction_s`, s.reaction_s)),
        h("td", {}, num(`${base}.fakes_drew.wrong_stop`, s.fakes_drew.wrong_stop), " / ", num(`${base}.fakes_drew.wrong_kemps`, s.fakes_drew.wrong_kemps), " / ", num(`${base}.fakes_drew.nothing`, s.fakes_drew.nothing)));
    });
    return h("div", { class: "stat-pair", "data-pair": pi }, head, h("div", { class: "scroll" }, labelled(h("table", { class: "stats" },
      h("thead", {}, h("tr", {}, ...["Signal", "Given", "With four / fake", "Partner called", "Stopped", "Read", "Partner's reaction", "Fakes drew: wrong stop / wrong call / nothing"].map((x) => h("th", { scope: "col", text: x })))),
      h("tbody", {}, rows)))));
  });
  $("stats-pairs").replaceChildren(...pairs);
  const rows = t.players.map((p, i) => h("tr", { class: `pair-${p.seat % R.data.pairs}` },
    h("th", { scope: "row" }, h("span", { class: "dot", "aria-hidden": "true" }), ` ${p.name}`),
    h("td", {}, num(`players.${i}.signals_given`, p.signals_given)),
    h("td", {}, num(`players.${i}.kemps.right`, p.kemps.right), " / ", num(`players.${i}.kemps.wrong`, p.kemps.wrong)),
    h("td", {}, num(`players.${i}.stop.right`, p.stop.right), " / ", num(`players.${i}.stop.wrong`, p.stop.wrong)),
    h("td", {}, spread(`players.${i}.reaction_s`, p.reaction_s))));
  $("stats-players").replaceChildren(h("div", { class: "scroll" }, labelled(h("table", { class: "stats" },
    h("thead", {}, h("tr", {}, ...["Player", "Signals given", `${R.data.rules.call_word} right / wrong`, `${R.data.rules.stop_word} right / wrong`, "Reaction to the partner's signal"].map((x) => h("th", { scope: "col", text: x })))),
    h("tbody", {}, rows)))));
}

// ---- set-up -----------------------------------------------------------------------------------
function buildTimeline() {
  const d = R.data, end = d.end || 1;
  const marks = d.hands.map((x) => ({ t: x.t, kind: "hand", i: x.first, title: `Hand ${x.hand}: ${x.dealer === null ? "the dealer" : d.names[x.dealer]} deals` }))
    .concat(d.markers.map((m) => ({ ...m, title: `${fmt(m.t)}: ${d.events[m.i].text || m.kind}` })));
  $("markers").replaceChildren(...marks.map((m) => h("span", { class: `mk ${m.kind}`, "data-kind": m.kind, "data-i": m.i, title: m.title,
    style: `left:${(100 * m.t) / end}%`, onclick: () => { if (R.locked) return; R.playing = false; seek(m.t, m.i); } })));
  const scrub = $("scrub");
  scrub.max = String(end);
  scrub.addEventListener("input", () => { if (!R.locked) seek(Number(scrub.value)); });
  $("hand").replaceChildren(...d.hands.map((x) => h("option", { value: x.hand, text: `${x.hand} (${x.dealer === null ? "the dealer" : d.names[x.dealer]} deals)` })));
  $("hand").addEventListener("change", () => { if (R.locked) return; R.playing = false; seekHand(Number($("hand").value)); });
}

function openAt() {
  const q = new URLSearchParams(location.search);
  const hs = new URLSearchParams(location.hash.replace(/^#/, ""));
  const hand = Number(q.get("hand") || hs.get("hand"));
  const t = Number(q.get("t") ?? hs.get("t"));
  const hd = R.data.hands.find((x) => x.hand === hand);
  if (hd) {
    if (Number.isFinite(t) && (q.has("t") || hs.has("t"))) seek(hd.t + t);
    else seek(hd.t, hd.first);
  } else if (Number.isFinite(t) && (q.has("t") || hs.has("t"))) seek(t);
  else if (R.data.hands.length) seekHand(R.data.hands[0].hand); // the first deal
  else seek(0, -1);
}

async function boot() {
  let m = location.pathname.match(/\/replay\/(\d+)/);
  const shared = location.pathname.match(/\/together\/([A-Za-z0-9]{1,16})$/);
  const status = $("status");
  let room = null;
  if (shared) {
    status.textContent = "Joining the shared replay…";
    try { room = await joinTogether(shared[1]); } catch (e) { status.textContent = e.message; return; }
    m = [null, String(room.match_id)];
  }
  if (!m) { status.textContent = "No match named in the address (/replay/ID)."; return; }
  try {
    const [res, presets] = await Promise.all([fetch(`/api/replays/${m[1]}`), fetch("/api/presets").catch(() => null)]);
    const body = await res.json();
    if (!res.ok) throw new Error(body.message || `The server said ${res.status}.`);
    R.data = body;
    if (presets && presets.ok) R.gestures = (await presets.json()).gestures || {};
  } catch (e) { status.textContent = `Could not load the replay: ${e.message}`; return; }
  const d = R.data;
  document.title = `Kemps — replay of ${d.room} #${d.match_no}`;
  $("title").textContent = `Replay: room ${d.room}, match ${d.match_no}`;
  const when = d.finished_at ? new Date(d.finished_at * 1000).toLocaleString() : "";
  $("subtitle").textContent = `${d.rules.name}, ${d.pairs} pairs, ${d.hands.length} hand${d.hands.length === 1 ? "" : "s"}, ${fmt(d.end)} of play${when ? `; finished ${when}` : ""}. Every hand is shown face up.`;
  $("download").href = `/api/replays/${d.id}/record`;
  $("withheld").textContent = d.signals_withheld.length ? `(signals withheld by ${d.signals_withheld.map((p) => `${d.names[p]} & ${d.names[p + d.pairs]}`).join(", ")})` : "";
  status.hidden = true;
  $("replay").hidden = false;
  buildTimeline();
  renderStats();
  $("play").addEventListener("click", () => { if (!R.locked) setPlaying(!R.playing); });
  $("back").addEventListener("click", () => { if (!R.locked) step(-1); });
  $("fwd").addEventListener("click", () => { if (!R.locked) step(1); });
  $("speed").addEventListener("change", () => { if (R.locked) return; R.speed = Number($("speed").value); changed(); });
  document.addEventListener("keydown", (ev) => {
    if (R.locked || (ev.target.closest && ev.target.closest("select, input, textarea"))) return;
    if (ev.key === " ") { ev.preventDefault(); setPlaying(!R.playing); } else if (ev.key === "ArrowRight") step(1); else if (ev.key === "ArrowLeft") step(-1);
  });
  window.addEventListener("hashchange", () => { if (!R.locked) openAt(); });
  narrow.addEventListener("change", () => render());
  if (room) room.attach({ R, openAt, follow, seek, render });
  else { openAt(); offerTogether(d.id); }
  requestAnimationFrame(frame);
}

boot();
