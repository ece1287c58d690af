// Kemps — the browser client. Plain JavaScript, no build step.
// Everything shown comes from what the server sent this seat: the room's public state, this seat's
// `view` (kemps.views.SeatView) and the events of each `update` (docs/protocol.md).
"use strict";

// ---- cards ------------------------------------------------------------------------------------
const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAME = { "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
  "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };

function parseCard(text) {
  const [rs, deck] = text.split(".");
  const rank = rs[0], suit = rs[1];
  return { text, rank: rank === "T" ? "10" : rank, suit, red: suit === "H" || suit === "D",
    name: `${RANK_NAME[rank]} of ${SUIT_NAME[suit]}${deck ? ` (deck ${deck})` : ""}`,
    short: `${rank === "T" ? "10" : rank}${SUIT[suit]}` };
}
const cardShort = (t) => (t ? parseCard(t).short : "?");
const cardsShort = (list) => list.map(cardShort).join(" ");

function cardFace(text, tag = "div", attrs = {}) {
  const c = parseCard(text);
  const { class: extra, ...rest } = attrs;
  return h(tag, { ...rest, class: `card face ${c.red ? "red" : "black"} ${extra || ""}`, "data-card": text },
  h("span", { class: "corner", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })),
  h("span", { class: "pip", "aria-hidden": "true", text: SUIT[c.suit] }),
  h("span", { class: "corner low", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })));
}

// ---- rule options: the schema comes from the server (GET /api/presets "options", kemps.rules) ----
const optionSchema = () => S.options || {};
const OPTION_LABEL = {
  decks: "Decks", heard_signals: "Heard signals (a cough, a word)", table_chat: "Table chat",
  table_talk: "Table talk", fake_signals: "Fake signals", dealer: "Dealer", start: "Start of play",
  start_countdown_s: "Start countdown (s)", multi_swap: "Swap several cards at once",
  hold_limit_s: "Hold a fifth card (s, 0 = atomic swaps)",
  immune_while_holding: "Immune while holding five", sweep: "Who sweeps a stalled middle",
  sweep_countdown_s: "Stall countdown (s)", idle_sweep_s: "Idle sweep after (s, 0 = off)",
  stock_exhausted: "When the stock runs out", stop_target: "Stop call names a",
  stop_scope: "Stop call on", right_kemps_letters: "Right call letters (3+ pairs)",
  wrong_call_ends_round: "A wrong call ends the hand", double_calls: "Double calls",
  double_right: "Right double call scores", double_wrong: "Wrong double call scores",
  scoring: "Scoring", word: "Word", target: "Target (letters that lose / points that win; 0 = word)",
  hands: "Hands (0 = no limit)", call_word: "Call word", stop_word: "Stop word",
  objection_s: "An objection lapses after (s)", double_stop_on: "Double Stop claims",
};
const pretty = (v) => (v === true ? "yes" : v === false ? "no" : String(v).replace(/_/g, " "));

// ---- state ------------------------------------------------------------------------------------
const S = {
  presets: null, options: null, maxPairs: 6, gestures: {}, botLevels: ["simple"],
  code: null, seat: null, token: null, room: null, view: null,
  ws: null, wsWanted: false, retry: 0, clock: { t: 0, at: performance.now() },
  last: {}, bubbleTimers: {}, selHand: [], selMid: [], result: null, log: [],
  draft: null, draftDirty: false, flash: {}, handNo: -1, createOptions: {},
};
const pairsOf = () => (S.view ? S.view.names.length / 2 : S.room ? S.room.rules.pairs : 2);
const dealerName = (s) => (s === null || s === undefined ? "The dealer" : nameOf(s));
const nameOf = (s) => (S.view ? S.view.names[s] : S.room ? S.room.seats[s].name : `Seat ${s + 1}`) || `Seat ${s + 1}`;
const pairName = (p) => `Pair ${p + 1}`;
const pairMembers = (p) => `${nameOf(p)} & ${nameOf(p + pairsOf())}`;
const rules = () => (S.room ? S.room.rules : {});
// While the table is paused (storage unavailable) its clock stands still, here as on the server.
const tableNow = () => (S.paused ? S.clock.t : S.clock.t + (performance.now() - S.clock.at) / 1000);
const isHost = () => S.seat !== null && S.room && S.seat === S.room.host_seat;
const gestureLabel = (g) => (S.gestures[g] ? S.gestures[g].label : g.replace(/_/g, " "));
const gestureShort = (g) => g.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());

function setClock(t) { if (typeof t === "number") S.clock = { t, at: performance.now() }; }

// The banner shown while the server cannot store moves: the table waits, nothing is lost.
function showPaused(paused, text) {
  if (paused && !S.paused) S.clock = { t: tableNow(), at: performance.now() };
  S.paused = paused;
  let b = $("paused-banner");
  if (!b) {
    b = document.createElement("div");
    b.id = "paused-banner";
    b.className = "paused-banner";
    b.setAttribute("role", "status");
    document.body.prepend(b);
  }
  b.textContent = text || "The table is paused: the server cannot store moves right now. Nothing is lost; play resumes by itself.";
  b.hidden = !paused;
}

function tokenKey(code) { return `kemps.seat.${code}`; }
function loadToken(code) {
  try { return JSON.parse(localStorage.getItem(tokenKey(code)) || "null"); } catch { return null; }
}
function saveToken(code, seat, token) { localStorage.setItem(tokenKey(code), JSON.stringify({ seat, token })); }
function forgetToken(code) { localStorage.removeItem(tokenKey(code)); }

// ---- small UI helpers -------------------------------------------------------------------------
let toastTimer = null;
function toast(text, kind = "error") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (S.token) headers.Authorization = `Bearer ${S.token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const msg = (data && data.message) || `The server said ${res.status}.`;
    throw new Error(msg);
  }
  return data;
}

function logLine(text, cls = "") {
  S.log.push({ text, cls });
  if (S.log.length > 80) S.log.splice(0, S.log.length - 80);
  const ol = $("log");
  ol.append(h("li", { class: cls, text }));
  while (ol.children.length > 80) ol.firstChild.remove();
  ol.scrollTop = ol.scrollHeight;
}

let audio = null;
function beep(name) {
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const o = audio.createOscillator(), g = audio.createGain();
    let f = 300;
    for (const ch of name) f += ch.charCodeAt(0);
    o.frequency.value = 200 + (f % 500);
    g.gain.setValueAtTime(0.05, audio.currentTime);
    g.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    o.connect(g).connect(audio.destination);
    o.start(); o.stop(audio.currentTime + 0.26);
  } catch { /* no sound: the caption says it */ }
}

// ---- routing ------------------------------------------------------------------------------------
async function boot() {
  try {
    const p = await api("GET", "/api/presets");
    S.presets = p.presets; S.gestures = p.gestures; S.botLevels = p.bot_levels || ["simple"];
    S.options = p.options || {}; S.maxPairs = p.max_pairs || 6;
    const levelSelect = $("bot-level");
    if (levelSelect && !levelSelect.options.length) {
      for (const level of S.botLevels) levelSelect.append(new Option(level, level));
      levelSelect.value = S.botLevels.includes("club") ? "club" : S.botLevels[0];
    }
    S.botSpeeds = p.bot_speeds || [];
    const speedSelect = $("bot-speed");
    if (speedSelect && !speedSelect.options.length) {
      for (const speed of S.botSpeeds) speedSelect.append(new Option(speed, speed));
      speedSelect.addEventListener("change", () => hostCall("POST", "bots", { speed: speedSelect.value }));
    }
  } catch (e) { toast(`Could not reach the server: ${e.message}`); }
  wireStatic();
  const m = location.pathname.match(/^\/room\/([A-Za-z0-9]+)/);
  if (m) openRoom(m[1].toUpperCase());
  else showHome();
  setInterval(tick, 250);
}

function showScreen(id) {
  for (const s of ["home", "lobby", "game"]) $(s).hidden = s !== id;
  document.body.dataset.screen = id;
}

function showHome() {
  S.code = null;
  $("roombar").hidden = true;
  showScreen("home");
  fillPresetSelect($("create-preset"), "pagat");
  fillPairs($("create-pairs"), 2);
  $("create-name").value = localStorage.getItem("kemps.name") || "";
  renderCreateOptions();
  const q = new URLSearchParams(location.search).get("code");
  if (q) $("join-code").value = q;
}

function fillPresetSelect(sel, current) {
  sel.innerHTML = "";
  const names = Object.keys(S.presets || { pagat: 1 });
  if (current && !names.includes(current)) sel.append(h("option", { value: current, text: `${current} (changed)` }));
  for (const n of names) sel.append(h("option", { value: n, text: n }));
  sel.value = current;
}
function fillPairs(sel, current) {
  sel.innerHTML = "";
  for (let p = 2; p <= S.maxPairs; p++) sel.append(h("option", { value: p, text: `${p} pairs (${2 * p} players)` }));
  sel.value = String(current);
}

// The options editor: every option of the rule set, its value shown; editable when `onChange`.
function optionsEditor(container, values, onChange, changed) {
  container.innerHTML = "";
  const schema = optionSchema();
  // In the schema's order, which groups the options as players talk about a table.
  const keys = Object.keys(schema).filter((k) => k in values);
  let group = null;
  for (const key of keys) {
    const value = values[key], info = schema[key];
    if (key === "name" || key === "pairs" || !info) continue;
    if (info.group !== group) {
      group = info.group;
      container.append(h("h4", { class: "opt-group", text: group }));
    }
    const id = `${container.id}-${key}`;
    let input;
    if (info.kind === "choice" || info.kind === "bool") {
      const choices = info.kind === "choice" ? info.choices : [true, false];
      input = h("select", { id });
      for (const c of choices) input.append(h("option", { value: JSON.stringify(c), text: pretty(c) }));
      input.value = JSON.stringify(value);
    } else {
      const num = info.kind === "seconds" || info.kind === "int";
      input = h("input", { id, type: num ? "number" : "text", value: String(value),
        min: num ? String(info.min) : null, max: num ? String(info.max) : null,
        step: info.kind === "seconds" ? "0.5" : num ? "1" : null, maxlength: num ? null : String(info.max_length || 40) });
    }
    input.title = `${info.description} (${info.seed})`;
    if (!onChange) input.disabled = true;
    else input.addEventListener("change", () => {
      let v;
      if (info.kind === "choice" || info.kind === "bool") v = JSON.parse(input.value);
      else if (info.kind === "seconds") v = Number(input.value);
      else if (info.kind === "int") v = Math.round(Number(input.value));
      else v = key === "word" ? input.value.trim().toUpperCase() : input.value.trim();
      onChange(key, v);
    });
    container.append(h("div", { class: `opt ${changed && key in changed ? "changed" : ""}` },
      h("label", { for: id, text: OPTION_LABEL[key] || pretty(key) }), input,
      h("small", { class: "opt-help", text: info.description })));
  }
}

function renderCreateOptions() {
  const preset = $("create-preset").value;
  const base = (S.presets && S.presets[preset]) ? S.presets[preset].rules : {};
  const values = { ...base, ...S.createOptions };
  optionsEditor($("create-options-grid"), values, (k, v) => {
    if (JSON.stringify(base[k]) === JSON.stringify(v)) delete S.createOptions[k];
    else S.createOptions[k] = v;
    renderCreateOptions();
  }, S.createOptions);
  const note = S.presets && S.presets[preset] ? S.presets[preset].note : "";
  $("create-note").textContent = note || "";
  const n = Object.keys(S.createOptions).length;
  const bits = [`word ${values.word}`, values.scoring === "points" ? `points to ${values.target}` :
    values.target ? `${values.target} letters lose` : "whole word loses",
  values.multi_swap ? "multi-swap" : "one card at a time", values.heard_signals ? "heard signals" : "silent signals"];
  $("create-summary").textContent = `— ${bits.join(", ")}${n ? `; ${n} changed` : ""}`;
}

function wireStatic() {
  $("create-preset").addEventListener("change", () => { S.createOptions = {}; renderCreateOptions(); });
  $("create-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("create-name").value.trim();
    if (!name) { toast("Type your name first."); return; }
    localStorage.setItem("kemps.name", name);
    try {
      const r = await api("POST", "/api/rooms", { name, preset: $("create-preset").value,
        pairs: Number($("create-pairs").value), options: S.createOptions });
      saveToken(r.code, r.seat, r.token);
      history.pushState({}, "", `/room/${r.code}`);
      openRoom(r.code);
    } catch (e) { toast(e.message); }
  });
  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = $("join-code").value.trim().toUpperCase();
    if (!code) return;
    history.pushState({}, "", `/room/${code}`);
    openRoom(code);
  });
  $("copy-link").addEventListener("click", async () => {
    const link = `${location.origin}/room/${S.code}`;
    try { await navigator.clipboard.writeText(link); toast(`Copied ${link}`, "info"); }
    catch { toast(`Share this link: ${link}`, "info"); }
  });
  $("lobby-name").addEventListener("change", () => localStorage.setItem("kemps.name", $("lobby-name").value.trim()));
  $("fill-bots").addEventListener("click", () => hostCall("POST", "bots", { fill: true, level: botLevel() }));
  $("start-match").addEventListener("click", () => hostCall("POST", "start"));
  $("rematch").addEventListener("click", () => hostCall("POST", "start"));
  $("spectators-allowed").addEventListener("change", () => hostCall("PUT", "spectators", { allowed: $("spectators-allowed").checked }));
  $("lobby-preset").addEventListener("change", () => putRules({ preset: $("lobby-preset").value, pairs: rules().pairs }));
  $("lobby-pairs-select").addEventListener("change", () => {
    putRules({ ...rulesBody(), pairs: Number($("lobby-pairs-select").value) });
  });
  $("agree-signals").addEventListener("click", () => {
    if (!S.draft || !S.draft.length) { toast("Pick at least one gesture."); return; }
    sendAction({ type: "agree_signals", signals: S.draft });
    S.draftDirty = false;
  });
  $("ready").addEventListener("click", () => send({ type: "ready" }));
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("chat-text").value.trim();
    if (text) sendAction({ type: "chat", text });
    $("chat-text").value = "";
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") { S.selHand = []; S.selMid = []; $("picker").hidden = true; renderCards(); }
  });
  window.addEventListener("popstate", () => location.reload());
}

function rulesBody() {
  const r = { ...rules() };
  const preset = S.presets && S.presets[r.name] ? r.name : "pagat";
  const pairs = r.pairs;
  delete r.name; delete r.pairs;
  return { preset, pairs, options: r };
}
async function putRules(body) {
  try { S.room = await api("PUT", `/api/rooms/${S.code}/rules`, body); render(); }
  catch (e) { toast(e.message); render(); }
}
async function hostCall(method, what, body) {
  try {
    const room = await api(method, `/api/rooms/${S.code}/${what}`, body);
    if (room && room.code) { S.room = room; render(); }
  } catch (e) { toast(e.message); }
}

// ---- the room and its socket ------------------------------------------------------------------
async function openRoom(code) {
  S.code = code;
  const stored = loadToken(code);
  S.token = stored ? stored.token : null;
  S.seat = stored ? stored.seat : null;
  $("roombar").hidden = false;
  $("room-code").textContent = code;
  document.title = `Kemps — room ${code}`;
  try { S.room = await api("GET", `/api/rooms/${code}`); }
  catch (e) { toast(e.message); history.replaceState({}, "", "/"); showHome(); return; }
  setClock(S.room.now);
  $("lobby-name").value = localStorage.getItem("kemps.name") || "";
  render();
  connect();
}

function connect() {
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  S.wsWanted = true;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = S.token ? `?token=${encodeURIComponent(S.token)}` : "";
  const ws = new WebSocket(`${proto}://${location.host}/ws/${S.code}${q}`);
  S.ws = ws;
  setConn("connecting…");
  ws.onopen = () => { S.retry = 0; setConn("connected", "ok"); };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    if (S.ws !== ws || !S.wsWanted) return;
    // Closed by the server for good (the error message before it says why): no spectators, no
    // such room, this seat opened elsewhere (reconnecting would close that one), archived.
    const final = { 4403: "no spectators", 4404: "no such room", 4409: "open in another window", 4410: "archived" };
    if (final[ev.code]) { S.wsWanted = false; setConn(final[ev.code], "bad"); return; }
    setConn(ev.code === 4429 ? "too many connections; trying again soon…" : "reconnecting…", "bad");
    S.retry = Math.min(S.retry + 1, 5);
    setTimeout(() => { if (S.ws === ws) connect(); }, ev.code === 4429 ? 15000 : 500 * S.retry);
  };
}
function setConn(text, cls = "") { const c = $("conn"); c.textContent = text; c.className = `conn ${cls}`; }

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify(msg));
  else toast("Not connected; trying again…");
}
let actionId = 0;
function sendAction(action) { send({ type: "action", id: ++actionId, action }); }

// The server's `state` at a match start is sent before the first deal is scheduled, so its
// `deal_at` is null: ask for the room again (once a second at most) to show the countdown.
let refetchAt = 0;
function refetchRoomIfNoDeal() {
  const r = S.room, v = S.view;
  if (!r || !v || r.status !== "playing" || v.phase !== "huddle" || (r.deal_at !== null && r.deal_at !== undefined)) return;
  if (performance.now() - refetchAt < 1000) return;
  refetchAt = performance.now();
  setTimeout(async () => {
    try {
      const room = await api("GET", `/api/rooms/${S.code}`);
      if (S.room && S.room.deal_at === null && room.match_no === S.room.match_no) { S.room = room; setClock(room.now); render(); }
    } catch { /* the next room message will do */ }
  }, 150);
}

function onMessage(m) {
  try { handleMessage(m); } finally { refetchRoomIfNoDeal(); }
}

function handleMessage(m) {
  switch (m.type) {
    case "state":
      if (S.token && m.seat === null) { forgetToken(S.code); S.token = null; }
      S.seat = m.seat;
      S.room = m.room; setClock(m.room.now);
      showPaused(!!m.room.paused);
      S.view = m.view || null;
      if (S.view && S.view.hand_no !== S.handNo) { S.handNo = S.view.hand_no; S.last = {}; }
      render();
      break;
    case "update":
      if (S.view && typeof m.version === "number" && m.version > S.view.version + 1) send({ type: "sync" });
      S.view = m.view;
      onEvents(m.events || []);
      render();
      break;
    case "room":
      S.room = m.room; setClock(m.room.now);
      showPaused(!!m.room.paused);
      render();
      break;
    case "paused":
      showPaused(true, m.message);
      render();
      break;
    case "resumed":
      showPaused(false);
      render();
      break;
    case "rejected":
      toast(m.message || m.code);
      S.selHand = []; S.selMid = [];
      render();
      break;
    case "error":
      if (m.code === "storage_unavailable") { showPaused(true, m.message); break; }
      if (m.code !== "not_seated" || S.token) toast(m.message || m.code);
      break;
    default: break;
  }
}

// ---- events: what each player just did --------------------------------------------------------
function setLast(seat, text) { S.last[seat] = text; }

function onEvents(events) {
  for (const e of events) {
    if (typeof e.t === "number") setClock(e.t);
    const who = e.seat !== undefined && e.seat !== null ? nameOf(e.seat) : e.seat === null ? "The dealer" : "";
    switch (e.type) {
      case "hand_dealt":
        S.last = {}; S.result = null; S.selHand = []; S.selMid = []; S.handNo = e.hand_no;
        logLine(`Hand ${e.hand_no}: ${dealerName(e.dealer)} deals.`, "sep");
        break;
      case "play_opened": logLine("Play is open: go!"); break;
      case "swapped":
        setLast(e.seat, `took ${cardsShort(e.took)} · gave ${cardsShort(e.gave)}`);
        for (const s of e.slots) S.flash[s] = performance.now();
        logLine(`${who} took ${cardsShort(e.took)} and gave ${cardsShort(e.gave)}.`);
        break;
      case "grabbed":
        setLast(e.seat, `picked up ${cardsShort(e.took)}`);
        logLine(`${who} picked up ${cardsShort(e.took)}.`);
        break;
      case "discarded":
        setLast(e.seat, `laid down ${cardsShort(e.gave)}`);
        for (const s of e.slots) S.flash[s] = performance.now();
        logLine(`${who} laid down ${cardsShort(e.gave)}.`);
        break;
      case "hold_expired":
        setLast(e.seat, `put back ${cardsShort(e.returned)}`);
        logLine(`${who} held too long and put back ${cardsShort(e.returned)}.`);
        break;
      case "stall_proposed":
        if (e.seat !== null) setLast(e.seat, e.auto ? "calls a stall (idle)" : e.deadline === null ? "wants a fresh middle" : "calls a stall");
        logLine(e.deadline === null ? `${who} wants a fresh middle (${e.agreed} agreed).`
          : `${who} says the middle has stalled${e.auto ? " (nothing moved)" : ""}.`);
        break;
      case "objected": setLast(e.seat, "objects!"); logLine(`${who} objects.`); break;
      case "objection_lapsed": setLast(e.seat, "objection lapsed"); logLine(`${who}'s objection lapses.`); break;
      case "stall_resumed": logLine("The stall countdown starts again."); break;
      case "stall_cancelled": logLine("The middle changed: no fresh middle yet."); break;
      case "swept": logLine(`The middle is swept; new cards: ${cardsShort(e.middle.filter(Boolean))}.`); break;
      case "stock_reshuffled": logLine("The stock ran out: the swept cards are reshuffled."); break;
      case "gestured":
        bubble(e.seat, gestureLabel(e.gesture), e.heard ? "heard" : "seen");
        logLine(`${who} ${gestureLabel(e.gesture)}.`, e.heard ? "heard" : "seen");
        if (e.heard) beep(e.gesture);
        break;
      case "chatted":
        bubble(e.seat, `“${e.text}”`, "chat");
        logLine(`${who}: ${e.text}`, "chat");
        break;
      case "signals_agreed":
        logLine(`${who} agreed your pair's signals: ${e.signals.map(gestureLabel).join(", ")}.`, "secret");
        break;
      case "called": {
        const what = callText(e);
        setLast(e.seat, `called ${callText(e, true)}`);
        bubble(e.seat, `${callText({ kind: e.kind })}!`, "call");
        S.result = S.result || { calls: [], scored: [] };
        S.result.calls.push({ ...e, text: what });
        logLine(`${who} calls ${what}!`, "call");
        break;
      }
      case "call_void": logLine(`The call is void: ${nameOf(e.held_by)} is holding five cards.`); break;
      case "revealed":
        logLine(`${who} shows ${cardsShort(e.cards)}.`);
        break;
      case "call_judged": {
        S.result = S.result || { calls: [], scored: [] };
        const c = [...S.result.calls].reverse().find((x) => x.seat === e.seat && x.kind === e.kind && x.right === undefined);
        if (c) c.right = e.right;
        logLine(`${who}'s call is ${e.right ? "RIGHT" : "WRONG"}.`, e.right ? "right" : "wrong");
        break;
      }
      case "scored": {
        S.result = S.result || { calls: [], scored: [] };
        S.result.scored.push(e);
        const word = S.view ? S.view.spelled[e.pair] : "";
        logLine(e.unit === "letter" ? `${pairName(e.pair)} (${pairMembers(e.pair)}) take${e.amount > 1 ? ` ${e.amount} letters` : " a letter"}: ${word}.`
          : `${pairName(e.pair)} score${e.amount > 1 ? ` ${e.amount} points` : " a point"} (${e.total}).`);
        break;
      }
      case "table_talk_ruled": logLine(`${pairName(e.pair)} used table talk and lose the match.`, "wrong"); break;
      case "hand_ended":
        S.result = S.result || { calls: [], scored: [] };
        S.result.reason = e.reason; S.result.hand = e.hand_no; S.result.decided = e.decided;
        logLine(e.reason === "real_deal" ? "The stock ran out: a real deal, no letters." : `Hand ${e.hand_no} is over.`, "sep");
        break;
      case "match_ended": logLine("The match is over.", "sep"); break;
      default: break;
    }
  }
}

function callText(e, brief = false) {
  const r = S.view || rules();
  const cw = r.call_word || "Kemps", sw = r.stop_word || "Stop Kemps";
  const base = { kemps: cw, stop: sw, double_kemps: `Double ${cw}`, double_stop: `Double ${sw}` }[e.kind] || e.kind;
  if (e.kind === "kemps" || e.kind === "double_kemps") return base;
  if (e.on_seat !== null && e.on_seat !== undefined) return `${base} on ${nameOf(e.on_seat)}`;
  if (e.on_pair !== null && e.on_pair !== undefined) return `${base} on ${pairName(e.on_pair)}${brief ? "" : ` (${pairMembers(e.on_pair)})`}`;
  return base;
}

function bubble(seat, text, kind) {
  const b = document.querySelector(`#seats .seat[data-seat="${seat}"] .bubble`);
  if (!b) return;
  const plate = b.closest(".seat");
  b.textContent = text;
  b.className = `bubble show ${kind}`;
  plate.classList.remove("gesturing", "g-seen", "g-heard");
  void plate.offsetWidth; // restart the animation
  if (kind === "seen" || kind === "heard") plate.classList.add("gesturing", kind === "heard" ? "g-heard" : "g-seen");
  clearTimeout(S.bubbleTimers[seat]);
  S.bubbleTimers[seat] = setTimeout(() => {
    b.className = "bubble"; b.textContent = "";
    plate.classList.remove("gesturing", "g-seen", "g-heard");
  }, 4000);
}

// ---- rendering --------------------------------------------------------------------------------
let renderQueued = false;
function render() {
  if (!S.code) return;
  const room = S.room;
  if (!room) return;
  if (room.status === "lobby" || !S.view) { showScreen("lobby"); renderLobby(); }
  else { showScreen("game"); renderGame(); }
}
function queueRender() { if (!renderQueued) { renderQueued = true; requestAnimationFrame(() => { renderQueued = false; render(); }); } }

// Seat positions around an oval: `bottom` at the bottom, then clockwise (the next seat sits on
// the bottom player's left, i.e. screen left), partners straight across.
function seatPos(seat, bottom, n, rx = 41, ry = 38) {
  const k = (seat - bottom + n) % n;
  const a = (Math.PI / 2) + (k * 2 * Math.PI) / n;
  return { x: 50 + rx * Math.cos(a), y: 50 + ry * Math.sin(a) };
}
// On a narrow (phone) table the others sit on the upper arc, left to right over the top (still in
// clockwise order, partner at the top), so the middle has the lower half to itself.
function seatPosNarrow(seat, bottom, n) {
  const k = (seat - bottom + n) % n;
  if (k === 0) return { x: 50, y: 92 };
  const a = Math.PI + ((k - 1) * Math.PI) / (n - 2);
  if (n > 4) return { x: 50 + 37 * Math.cos(a), y: 45 + 36 * Math.sin(a) };
  return { x: 50 + 32 * Math.cos(a), y: 40 + 29 * Math.sin(a) };
}
const narrowQuery = window.matchMedia("(max-width: 600px)");
narrowQuery.addEventListener("change", () => render());

function renderLobby() {
  const room = S.room, n = room.seats.length, pairs = room.rules.pairs;
  const speedSelect = $("bot-speed");
  if (speedSelect && room.bot_speed && speedSelect.value !== room.bot_speed) speedSelect.value = room.bot_speed;
  const bottom = S.seat !== null ? S.seat : 0;
  const mt = $("lobby-table");
  mt.innerHTML = "";
  mt.style.setProperty("--n", n);
  mt.classList.toggle("packed", n > 10);
  mt.append(h("div", { class: "mini-felt", "aria-hidden": "true" }));
  for (const seat of room.seats) {
    const pos = seatPos(seat.seat, bottom, n, 40, 36);
    const mine = seat.seat === S.seat;
    const box = h("div", { class: `lseat pair-${seat.pair} ${seat.kind} ${mine ? "mine" : ""}`,
      style: `left:${pos.x}%;top:${pos.y}%`, "data-seat": seat.seat });
    box.append(h("div", { class: "lseat-head" }, h("span", { class: "dot", "aria-hidden": "true" }),
      `Seat ${seat.seat + 1} · ${pairName(seat.pair)}`));
    if (seat.kind === "open") {
      box.append(h("div", { class: "lseat-name muted", text: "open" }));
      if (S.seat === null && room.status === "lobby")
        box.append(h("button", { type: "button", class: "small primary", "aria-label": `Sit at seat ${seat.seat + 1} (${pairName(seat.pair)})`,
          onclick: () => takeSeat(seat.seat), text: "Sit here" }));
      if (isHost() && room.status === "lobby")
        box.append(h("button", { type: "button", class: "small", "aria-label": `Add a bot at seat ${seat.seat + 1}`,
          onclick: () => hostCall("POST", "bots", { seat: seat.seat, level: botLevel() }), text: "Add bot" }));
    } else {
      box.append(h("div", { class: "lseat-name" }, seat.name, mine ? " (you)" : ""));
      box.append(h("div", { class: "lseat-sub muted", text: (seat.kind === "bot" ? `${seat.level} bot` :
        seat.connected ? "here" : "away") + (seat.seat === room.host_seat ? " · host" : "") }));
      if (room.status === "lobby" && ((isHost() && !mine) || mine))
        box.append(h("button", { type: "button", class: "small", "aria-label": mine ? "Leave your seat" : `Remove ${seat.name} from seat ${seat.seat + 1}`,
          onclick: () => clearSeat(seat.seat), text: mine ? "Leave" : "Remove" }));
    }
    mt.append(box);
  }
  const pl = $("lobby-pairs");
  pl.innerHTML = "";
  for (let p = 0; p < pairs; p++) {
    const a = room.seats[p], b = room.seats[p + pairs];
    pl.append(h("li", { class: `pair-${p}` }, h("span", { class: "dot", "aria-hidden": "true" }),
      `${pairName(p)}: seat ${p + 1} (${a.name || "open"}) and seat ${p + pairs + 1} (${b.name || "open"}), opposite`));
  }
  const host = isHost();
  document.querySelectorAll("#lobby .host-only").forEach((e) => { e.hidden = !host || room.status !== "lobby"; });
  const open = room.seats.filter((s) => s.kind === "open").length;
  $("start-match").disabled = open > 0;
  $("fill-bots").disabled = open === 0;
  const sp = room.spectators || { allowed: true, watching: 0, max: 0 };
  $("spectators-allowed").checked = sp.allowed;
  $("spectators-allowed").disabled = !host;
  $("spectators-count").textContent = sp.allowed ? `${sp.watching} watching (at most ${sp.max})` :
    host ? "only seated players can open the table" : "the host allows no spectators";
  const hostName = room.seats[room.host_seat] ? room.seats[room.host_seat].name : "the host";
  $("lobby-wait").textContent = room.status !== "lobby" ? "The match is on; loading the table…" :
    host ? (open ? `${open} open seat${open > 1 ? "s" : ""}: wait for friends (share the link) or fill them with bots.` : "Every seat is filled: start when you are ready.")
      : S.seat === null ? "Type your name and pick an open seat." : `Waiting for ${hostName} to start the match.`;
  $("lobby-name").closest("label").hidden = S.seat !== null;
  // rules
  const r = room.rules;
  fillPresetSelect($("lobby-preset"), r.name);
  fillPairs($("lobby-pairs-select"), r.pairs);
  $("lobby-preset").disabled = !host; $("lobby-pairs-select").disabled = !host;
  const base = S.presets && S.presets[r.name] ? S.presets[r.name].rules : null;
  const changed = {};
  if (!base) for (const k of Object.keys(r)) {
    const p = S.presets && S.presets.pagat ? S.presets.pagat.rules[k] : undefined;
    if (JSON.stringify(p) !== JSON.stringify(r[k])) changed[k] = true;
  }
  optionsEditor($("lobby-options"), r, host && room.status === "lobby" ? (k, v) => {
    const body = rulesBody(); body.options[k] = v; putRules(body);
  } : null, changed);
}

async function takeSeat(seat) {
  const name = ($("lobby-name").value || "").trim();
  if (!name) { toast("Type your name first."); $("lobby-name").focus(); return; }
  localStorage.setItem("kemps.name", name);
  try {
    const r = await api("POST", `/api/rooms/${S.code}/seats`, { seat, name });
    saveToken(S.code, r.seat, r.token);
    S.token = r.token; S.seat = r.seat; S.room = r.room;
    render();
    connect();
  } catch (e) { toast(e.message); }
}
async function clearSeat(seat) {
  try {
    S.room = await api("DELETE", `/api/rooms/${S.code}/seats/${seat}`);
    if (seat === S.seat) { forgetToken(S.code); S.token = null; S.seat = null; connect(); }
    render();
  } catch (e) { toast(e.message); }
}

// -- the table --
function renderGame() {
  const v = S.view, room = S.room, r = room.rules, n = v.names.length;
  const me = v.seat;
  const bottom = me !== null ? me : 0;
  const seatsEl = $("seats");
  const narrow = narrowQuery.matches;
  if (seatsEl.dataset.layout !== `${n}:${bottom}:${narrow}`) {
    seatsEl.dataset.layout = `${n}:${bottom}:${narrow}`;
    $("felt").classList.toggle("crowded", narrow && n > 4);
    $("felt").classList.toggle("packed", n > 12);
    seatsEl.innerHTML = "";
    for (let s = 0; s < n; s++) {
      const pos = narrow && n <= 12 ? seatPosNarrow(s, bottom, n) : seatPos(s, bottom, n, narrow ? 44 : 41, narrow ? 44 : 38);
      const k = (s - bottom + n) % n;
      const side = k === 0 ? "bottom" : pos.y < 25 ? "top" : pos.x < 50 ? "left" : "right";
      seatsEl.append(h("div", { class: `seat pair-${s % (n / 2)} side-${side}`, "data-seat": s, style: `left:${pos.x}%;top:${pos.y}%` },
        h("div", { class: "plate" },
          h("span", { class: "dot", "aria-hidden": "true" }),
          h("span", { class: "seat-name" })),
        h("div", { class: "tags" }),
        h("div", { class: "seat-cards" }),
        h("div", { class: "last" }),
        h("div", { class: "bubble", role: "status" })));
    }
  }
  for (const el of seatsEl.children) {
    const s = Number(el.dataset.seat);
    const seatInfo = room.seats[s] || {};
    const tags = [];
    if (s === me) tags.push("you");
    else if (me !== null && s === v.partner) tags.push("partner");
    if (s === v.dealer) tags.push("dealer");
    if (seatInfo.kind === "human" && !seatInfo.connected && s !== me) tags.push("away");
    if (v.phase === "huddle" && seatInfo.ready) tags.push("ready");
    if (v.holding.includes(s)) tags.push("holding five");
    el.querySelector(".seat-name").textContent = v.names[s];
    const tagEl = el.querySelector(".tags");
    tagEl.innerHTML = "";
    for (const t of tags) tagEl.append(h("span", { class: `tag tag-${t.replace(/ /g, "-")}`, text: t }));
    el.classList.toggle("me", s === me);
    el.classList.toggle("partner", me !== null && s === v.partner);
    el.classList.toggle("dealer", s === v.dealer);
    const cards = el.querySelector(".seat-cards");
    cards.innerHTML = "";
    const shown = v.revealed[String(s)];
    if (shown) {
      cards.classList.add("revealed");
      for (const c of shown) cards.append(cardFace(c, "div", { class: "mini", role: "img", "aria-label": parseCard(c).name }));
      cards.setAttribute("aria-label", `${v.names[s]} shows ${shown.map((c) => parseCard(c).name).join(", ")}`);
    } else {
      cards.classList.remove("revealed");
      if (s !== me) for (let i = 0; i < v.hand_counts[s]; i++) cards.append(h("div", { class: "card back mini", "aria-hidden": "true" }));
      cards.setAttribute("aria-label", s === me ? "" : `${v.names[s]} holds ${v.hand_counts[s]} cards`);
    }
    el.querySelector(".last").textContent = S.last[s] || "";
    el.setAttribute("aria-label", `${v.names[s]}, ${pairName(s % (n / 2))}${tags.length ? `, ${tags.join(", ")}` : ""}`);
  }
  renderCards();
  renderCenter();
  renderActions();
  renderGestures();
  renderScores();
  renderHuddle();
  renderResult();
  renderMatchEnd();
  $("chat-form").hidden = !(r.table_chat && me !== null);
}

function focusKey() {
  const a = document.activeElement;
  if (!a || !a.dataset || !a.dataset.zone) return null;
  return { zone: a.dataset.zone, card: a.dataset.card, index: a.dataset.index };
}
function restoreFocus(k) {
  if (!k) return;
  let el = document.querySelector(`[data-zone="${k.zone}"][data-card="${CSS.escape(k.card || "")}"]`);
  if (!el) el = document.querySelector(`[data-zone="${k.zone}"][data-index="${k.index}"]`);
  if (el) el.focus();
}

function renderCards() {
  const v = S.view;
  if (!v) return;
  const fk = focusKey();
  const inHand = v.phase === "dealt" || v.phase === "play";
  const me = v.seat;
  // prune selections to cards still there
  S.selHand = S.selHand.filter((c) => v.hand.includes(c));
  S.selMid = S.selMid.filter((c) => v.middle.includes(c));
  const hand = $("hand");
  hand.innerHTML = "";
  $("me").hidden = me === null;
  v.hand.forEach((c, i) => {
    const sel = S.selHand.includes(c);
    const b = cardFace(c, "button", { type: "button", class: `big ${sel ? "selected" : ""}`,
      "aria-label": `${parseCard(c).name}, your hand`, "aria-pressed": sel ? "true" : "false",
      "data-zone": "hand", "data-index": i, draggable: inHand ? "true" : null });
    b.disabled = !inHand;
    b.addEventListener("click", () => clickCard("hand", c));
    wireDrag(b, "hand", c);
    hand.append(b);
  });
  const mid = $("middle");
  mid.innerHTML = "";
  const now = performance.now();
  v.middle.forEach((c, i) => {
    let el;
    if (c) {
      const sel = S.selMid.includes(c);
      const fresh = S.flash[i] && now - S.flash[i] < 900;
      el = cardFace(c, "button", { type: "button", class: `big ${sel ? "selected" : ""} ${fresh ? "fresh" : ""}`,
        "aria-label": `${parseCard(c).name}, in the middle`, "aria-pressed": sel ? "true" : "false",
        "data-zone": "middle", "data-index": i, draggable: inHand && me !== null ? "true" : null });
      el.disabled = !inHand || me === null;
      el.addEventListener("click", () => clickCard("middle", c));
      wireDrag(el, "middle", c);
    } else {
      const down = v.middle_face_down || (inHand && v.hand_no > 0 && v.phase === "dealt");
      el = h("div", { class: `card big ${inHand && (down || v.middle_face_down) ? "back" : "slot"}`, role: "img",
        "aria-label": inHand ? (v.middle_face_down ? "a face-down card" : "an empty place") : "no card", "data-index": i });
    }
    mid.append(el);
  });
  restoreFocus(fk);
  // hint
  const r = rules();
  let hint = "";
  if (me !== null && v.phase === "play") {
    if (v.holding.includes(me)) hint = "You hold five: pick the card(s) to lay down, then press Lay down.";
    else if (S.selHand.length || S.selMid.length)
      hint = `${[S.selHand.length ? `Yours: ${S.selHand.map(cardShort).join(" ")}.` : "",
                  S.selMid.length ? `From the middle: ${S.selMid.map(cardShort).join(" ")}.` : ""].filter(Boolean).join(" ")} ${r.multi_swap ? "The swap goes when both sides have as many cards." : (S.selHand.length ? "Now pick a card in the middle." : "Now pick one of your cards.")} Esc clears.`;
    else hint = r.multi_swap ? "To swap, pick your card(s), then as many in the middle — or drag one onto another."
      : "To swap, pick one of your cards, then one in the middle — or drag one onto another.";
  }
  $("hint").textContent = hint;
}

function wireDrag(el, zone, card) {
  el.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", `${zone}:${card}`); ev.dataTransfer.effectAllowed = "move"; });
  el.addEventListener("dragover", (ev) => { ev.preventDefault(); el.classList.add("drop"); });
  el.addEventListener("dragleave", () => el.classList.remove("drop"));
  el.addEventListener("drop", (ev) => {
    ev.preventDefault(); el.classList.remove("drop");
    const [fromZone, ...rest] = (ev.dataTransfer.getData("text/plain") || "").split(":");
    const from = rest.join(":");
    if (!from || fromZone === zone) return;
    const take = zone === "middle" ? card : from, give = zone === "hand" ? card : from;
    S.selHand = []; S.selMid = [];
    sendAction({ type: "swap", take: [take], give: [give] });
  });
}

function clickCard(zone, card) {
  const v = S.view, r = rules();
  if (!v || v.seat === null) return;
  const mine = zone === "hand" ? "selHand" : "selMid";
  const other = zone === "hand" ? "selMid" : "selHand";
  const holding = v.holding.includes(v.seat);
  if (S[mine].includes(card)) S[mine] = S[mine].filter((c) => c !== card);
  else if (r.multi_swap || holding) S[mine] = [...S[mine], card];
  else S[mine] = [card];
  if (!holding && S[other].length && S[mine].length === S[other].length) {
    const take = S.selMid, give = S.selHand;
    S.selHand = []; S.selMid = [];
    sendAction({ type: "swap", take, give });
  }
  renderCards();
  renderActions();
}

function renderCenter() {
  const v = S.view, room = S.room;
  let note = "";
  if (v.phase === "huddle") {
    note = v.hand_no === 0 ? "The first hand is about to be dealt" : "Between hands";
  } else if (v.phase === "dealt") {
    if (v.middle_face_down && v.opens_at !== null) note = "Get ready…";
    else if (v.dealer === null && v.opens_at !== null) note = "The dealer says Go in a moment…";
    else if (room.rules.start === "on_go") note = v.seat === v.dealer ? "Say Go when everyone is ready" : `Waiting for ${dealerName(v.dealer)} to say Go`;
  } else if (v.phase === "over") note = "Match over";
  $("center-note").textContent = note;
  $("center-note").hidden = !note;
  $("middle").hidden = v.phase === "huddle" || v.phase === "over";
  $("stock").textContent = v.phase === "huddle" || v.phase === "over" ? "" : `Stock: ${v.stock_count} card${v.stock_count === 1 ? "" : "s"}`;
  updateTimers();
}

function updateTimers() {
  const v = S.view, room = S.room;
  if (!v || !room) return;
  const now = tableNow();
  let stall = "";
  if (v.phase === "play") {
    if (v.stall_deadline !== null) stall = v.objectors.length ? `Stall paused: ${v.objectors.map((s) => v.names[s]).join(", ")} objected` : `Stalled: sweep in ${Math.max(0, v.stall_deadline - now).toFixed(0)} s`;
    else if (v.agreed.length) stall = `${v.agreed.length} of ${v.names.length} want a fresh middle`;
  }
  $("stall").textContent = stall;
  if (v.phase === "dealt" && v.opens_at !== null) $("center-note").textContent = v.middle_face_down
    ? `Cards turn in ${Math.max(0, Math.ceil(v.opens_at - now))}…` : `The dealer says Go in ${Math.max(0, Math.ceil(v.opens_at - now))} s…`;
  let dc = "";
  if (room.status === "playing" && v.phase === "huddle") {
    if (room.deal_at !== null && room.deal_at !== undefined) {
      const left = Math.max(0, Math.ceil(room.deal_at - now));
      dc = `${v.hand_no === 0 ? "First deal" : `Hand ${v.hand_no + 1}`} in ${left} s`;
      if ($("center-note").textContent && !$("center-note").hidden) $("center-note").textContent = dc;
    } else dc = "Waiting for the deal";
  }
  $("deal-countdown").textContent = dc;
}

function tick() {
  if (S.view && S.room && !$("game").hidden) updateTimers();
}

function renderActions() {
  const v = S.view, r = rules();
  const bar = $("actions");
  bar.innerHTML = "";
  const me = v.seat;
  if (me === null) return;
  const inHand = v.phase === "dealt" || v.phase === "play";
  const btn = (label, cls, on, opts = {}) => {
    const b = h("button", { type: "button", class: cls, onclick: on, "aria-label": opts.aria || null, title: opts.title || null, text: label });
    b.disabled = !!opts.disabled;
    bar.append(b);
    return b;
  };
  if (r.start === "on_go" && v.phase === "dealt" && me === v.dealer)
    btn("Go!", "primary go", () => sendAction({ type: "go" }), { aria: "Go: start play" });
  // A dealer who is not playing (S2 tournament row 7) is the table; the host may act for it.
  const hostDeals = v.dealer === null && isHost();
  if (hostDeals && r.start === "on_go" && v.phase === "dealt")
    btn("Go! (as dealer)", "primary go", () => sendAction({ type: "go", as_dealer: true }), { aria: "Go: start play, as the dealer",
      title: "This table's dealer does not play: the table says Go by itself in a moment. As host you may say it now for everyone." });
  if (!inHand) return;
  const holding = v.holding.includes(me);
  if (r.hold_limit_s > 0) {
    if (holding) btn("Lay down", "", () => { sendAction({ type: "discard", give: S.selHand }); S.selHand = []; }, { disabled: !S.selHand.length, aria: "Lay down the selected cards" });
    else btn("Pick up", "", () => { sendAction({ type: "grab", take: S.selMid }); S.selMid = []; }, { disabled: !(S.selMid.length && !S.selHand.length), aria: "Pick up the selected middle cards" });
  }
  if (hostDeals && v.phase === "play")
    btn("Sweep (as dealer)", "", () => sendAction({ type: "stall", as_dealer: true }), { aria: "Sweep the middle, as the dealer",
      title: "This table's dealer does not play: it sweeps a middle nobody wants by itself. As host you may sweep now, for everyone: use it fairly." });
  if (r.sweep === "dealer_only") {
    if (me === v.dealer) btn("Sweep", "", () => sendAction({ type: "stall" }), { aria: "Sweep the middle (stall)" });
  } else if (r.sweep === "all_agree") {
    btn(`Fresh middle${v.agreed.length ? ` (${v.agreed.length}/${v.names.length})` : ""}`, "", () => sendAction({ type: "stall" }),
      { disabled: v.agreed.includes(me), aria: "Stall: agree to a fresh middle" });
  } else {
    btn("Stall", "", () => sendAction({ type: "stall" }), { disabled: v.stall_deadline !== null, aria: "Stall: the middle has stalled" });
    btn("Object", "", () => sendAction({ type: "object" }), { disabled: v.stall_deadline === null || v.objectors.includes(me), aria: "Object to the stall", title: `Hold the countdown until you take a card (lapses after ${r.objection_s} s; once a stall)` });
  }
  btn(`${v.call_word}!`, "call", () => call("kemps"), { aria: `${v.call_word}: call on your partner` });
  btn(`${v.stop_word}!`, "call stop", () => call("stop"), { aria: `${v.stop_word}: call on an opponent` });
  if (r.double_calls) {
    btn(`Double ${v.call_word}!`, "call", () => call("double_kemps"), { aria: `Double ${v.call_word}` });
    btn(`Double ${v.stop_word}!`, "call stop", () => call("double_stop"), { aria: `Double ${v.stop_word}` });
  }
}

// Whom a Stop call can be on: the view lists it, from the engine's own rule (kemps.scoring).
function stopTargets(kind) {
  const v = S.view;
  const legal = v.legal || {};
  const listed = kind === "stop" ? legal.stop : legal.double_stop;
  return (listed || []).map((t) => (t.on_seat !== null
    ? { label: v.names[t.on_seat], action: { on_seat: t.on_seat } }
    : { label: `${pairName(t.on_pair)}: ${pairMembers(t.on_pair)}`, action: { on_pair: t.on_pair } }));
}

function call(kind) {
  const picker = $("picker");
  if (kind === "kemps" || kind === "double_kemps") { sendAction({ type: "call", kind }); return; }
  const targets = stopTargets(kind);
  if (targets.length === 1) { sendAction({ type: "call", kind, ...targets[0].action }); return; }
  const v = S.view;
  const word = kind === "stop" ? v.stop_word : `Double ${v.stop_word}`;
  picker.innerHTML = "";
  picker.append(h("span", { class: "picker-q", text: `${word} on:` }));
  for (const t of targets)
    picker.append(h("button", { type: "button", class: "call stop", "aria-label": `${word} on ${t.label}`,
      onclick: () => { picker.hidden = true; sendAction({ type: "call", kind, ...t.action }); }, text: t.label }));
  picker.append(h("button", { type: "button", onclick: () => { picker.hidden = true; }, text: "Cancel" }));
  picker.hidden = false;
  picker.querySelector("button").focus();
}

function allowedGestures() {
  const r = rules();
  return Object.entries(S.gestures).filter(([, g]) => g.kind === "seen" || r.heard_signals).map(([n]) => n);
}

function renderGestures() {
  const v = S.view, box = $("gestures");
  const me = v.seat;
  const key = `${me}:${rules().heard_signals}:${v.signals.join(",")}:${v.phase === "over"}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.innerHTML = "";
  if (me === null || v.phase === "over") return;
  box.append(h("span", { class: "gestures-title", text: "Gestures:" }));
  // Your pair's signals come last, apart, so that a stray click on the first button does not
  // draw your partner's Kemps.
  const allowed = allowedGestures();
  const ordered = [...allowed.filter((g) => !v.signals.includes(g)),
                   ...allowed.filter((g) => v.signals.includes(g))];
  let labelled = false;
  for (const g of ordered) {
    const secret = v.signals.includes(g);
    if (secret && !labelled) {
      labelled = true;
      box.append(h("span", { class: "gestures-title", text: "Your signal:" }));
    }
    const kind = S.gestures[g].kind;
    box.append(h("button", { type: "button", class: `gesture ${kind} ${secret ? "secret" : ""}`, "data-gesture": g,
      "aria-label": `Gesture: ${gestureLabel(g)}${secret ? " (your pair's signal)" : ""}`,
      title: secret ? "Your pair's secret signal" : gestureLabel(g),
      onclick: () => sendAction({ type: "gesture", gesture: g }) }, kind === "heard" ? "♪ " : "", gestureShort(g), secret ? " ★" : ""));
  }
}

function renderScores() {
  const v = S.view, r = rules(), pairs = v.names.length / 2;
  const ol = $("scores");
  ol.innerHTML = "";
  const lose = r.target || v.word.length;
  for (let p = 0; p < pairs; p++) {
    const mine = v.pair === p;
    const li = h("li", { class: `pair-${p} ${mine ? "mine" : ""}` },
      h("span", { class: "dot", "aria-hidden": "true" }),
      h("span", { class: "who" }, h("b", { text: pairName(p) }), ` ${pairMembers(p)}${mine ? " (you)" : ""}`));
    if (v.scoring === "letters") {
      const word = h("span", { class: "word", "aria-label": `${pairName(p)} letters: ${v.spelled[p] || "none"}` });
      for (let i = 0; i < lose; i++) word.append(h("span", { class: i < v.scores[p] ? "got" : "", "aria-hidden": "true", text: v.word[i] }));
      li.append(word, h("span", { class: "spelled", "data-pair": p, text: v.spelled[p] || "—" }));
    } else {
      li.append(h("span", { class: "spelled points", "data-pair": p, text: `${v.scores[p]} pt${v.scores[p] === 1 ? "" : "s"}` }));
    }
    ol.append(li);
  }
  const goal = v.scoring === "letters" ? `${v.word.slice(0, lose).split("").join("-")} loses` : r.target ? `${r.target} points win` : "";
  $("score-title").textContent = `Score${goal ? ` — ${goal}` : ""}${r.hands ? `, ${r.hands} hands` : ""}`;
}

function renderHuddle() {
  const v = S.view, room = S.room, me = v.seat;
  const show = me !== null && room.status === "playing" && v.phase === "huddle";
  $("huddle").hidden = !show;
  if (!show) { S.draft = null; S.draftDirty = false; return; }
  if (!S.draftDirty) S.draft = [...v.signals];
  $("huddle-partner").textContent = v.names[v.partner];
  const box = $("signal-choices");
  const key = `${allowedGestures().join(",")}|${S.draft.join(",")}`;
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.innerHTML = "";
    for (const g of allowedGestures()) {
      const id = `sig-${g}`;
      const checked = S.draft.includes(g);
      const input = h("input", { type: "checkbox", id, value: g, checked });
      input.disabled = !checked && S.draft.length >= 3;
      input.addEventListener("change", () => {
        S.draftDirty = true;
        S.draft = input.checked ? [...S.draft, g].slice(0, 3) : S.draft.filter((x) => x !== g);
        renderHuddle();
        const again = $(id); if (again) again.focus();
      });
      box.append(h("label", { for: id, class: `sig ${S.gestures[g].kind} ${checked ? "on" : ""}` }, input,
        S.gestures[g].kind === "heard" ? "♪ " : "", gestureShort(g)));
    }
  }
  $("signals-now").textContent = v.signals.length ? `Agreed: ${v.signals.map(gestureLabel).join("; ")}.` : "No signals agreed yet.";
  const same = S.draft.length && S.draft.join(",") === v.signals.join(",");
  $("agree-signals").disabled = !S.draft.length || same;
  $("agree-signals").textContent = v.signals.length ? (same ? "Signals agreed ✓" : "Change to these signals") : "Agree these signals";
  const ready = room.seats[me] && room.seats[me].ready;
  $("ready").disabled = !!ready;
  $("ready").textContent = ready ? "Ready ✓" : "Ready";
}

function renderResult() {
  const v = S.view;
  const show = (v.phase === "huddle" || v.phase === "over") && v.hand_no > 0;
  $("result").hidden = !show;
  if (!show) return;
  const body = $("result-body");
  body.innerHTML = "";
  const res = S.result;
  $("result-title").textContent = `Hand ${v.hand_no}`;
  if (res && res.reason === "real_deal") body.append(h("p", { text: "The stock ran out: a real deal, no letters." }));
  if (res && res.calls.length) {
    for (const c of res.calls)
      body.append(h("p", { class: `judged ${c.right === true ? "right" : c.right === false ? "wrong" : ""}` },
        h("b", { text: nameOf(c.seat) }), ` called ${c.text}: `,
        h("strong", { text: c.right === true ? "right" : c.right === false ? "wrong" : "void" })));
  }
  const shown = Object.entries(v.revealed);
  for (const [s, cards] of shown) {
    const row = h("div", { class: "shown", "aria-label": `${v.names[s]} showed ${cards.map((c) => parseCard(c).name).join(", ")}` },
      h("span", { class: "shown-name", text: `${v.names[s]} showed` }));
    for (const c of cards) row.append(cardFace(c, "div", { class: "mini", "aria-hidden": "true" }));
    body.append(row);
  }
  if (res && res.scored.length)
    for (const sc of res.scored)
      body.append(h("p", { class: "scoreline", text: sc.unit === "letter"
        ? `${pairName(sc.pair)} (${pairMembers(sc.pair)}) take${sc.amount > 1 ? ` ${sc.amount} letters` : " a letter"}: ${v.spelled[sc.pair]}`
        : `${pairName(sc.pair)} (${pairMembers(sc.pair)}) +${sc.amount}: ${sc.total} points` }));
  if (!body.children.length) body.append(h("p", { class: "muted", text: "The hand is over." }));
}

const ORD = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;

function renderMatchEnd() {
  const v = S.view, room = S.room;
  const over = v.phase === "over" || room.status === "finished";
  $("match-end").hidden = !over;
  if (!over) return;
  const ol = $("ranking");
  ol.innerHTML = "";
  const pairs = v.names.length / 2;
  const ranks = v.ranks || [];
  const order = [...Array(pairs).keys()].sort((a, b) => (ranks[a] || 99) - (ranks[b] || 99));
  for (const p of order) {
    const score = v.scoring === "letters" ? (v.spelled[p] || "no letters") : `${v.scores[p]} point${v.scores[p] === 1 ? "" : "s"}`;
    ol.append(h("li", { class: `pair-${p} ${v.pair === p ? "mine" : ""} ${ranks[p] === 1 ? "winner" : ""}`, "data-rank": ranks[p] },
      h("span", { class: "rank", text: ranks[p] ? ORD(ranks[p]) : "–" }),
      h("span", { class: "dot", "aria-hidden": "true" }),
      h("span", { class: "who", text: `${pairName(p)}: ${pairMembers(p)}${v.pair === p ? " (you)" : ""}` }),
      h("span", { class: "spelled", text: score })));
  }
  const won = v.pair !== null && ranks[v.pair] === 1;
  $("end-title").textContent = v.pair === null ? "Match over" : won ? "Match over — you win!" : "Match over";
  $("rematch").hidden = S.seat === null || room.status !== "finished";
  const link = $("match-json");
  if (room.last_match_id) { link.href = `/api/history/${room.last_match_id}`; link.hidden = false; link.textContent = "Match record (JSON)"; }
  else link.hidden = true;
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();


function botLevel() {
  const select = document.getElementById("bot-level");
  return (select && select.value) || S.botLevels[0];
}
