// Kemps — the scorekeeper page (/score, /score?sheet=ID). Plain JS, no build step.
// Every change goes to the server (/api/desk/sheets...), which scores by the rules and stores the sheet.
"use strict";

const S = { view: null, caller: null, editing: null };

// ---- start screen -----------------------------------------------------------------------------
async function showStart() {
  $("start").hidden = false;
  $("sheet").hidden = true;
  try {
    const { presets } = await api("GET", "/api/presets");
    const sel = $("new-preset");
    // Each preset by its name, the part of its note before the colon ("The classic game (Pagat)").
    const title = (name) => { const note = presets[name].note || ""; const i = note.indexOf(":"); return i > 0 ? note.slice(0, i) : name; };
    sel.replaceChildren(...Object.keys(presets).map((name) => h("option", { value: name, text: title(name) })));
    sel.value = presets.squarescores ? "squarescores" : Object.keys(presets)[0];
  } catch (e) { toast(e.message); }
  pairBoxes();
  loadList();
}

function pairBoxes() {
  const n = Number($("new-pairs").value);
  const box = $("new-pair-boxes");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    box.append(h("div", { class: `pair-box pair-${i}` },
      h("label", {}, `Pair ${i + 1}, first player`, h("input", { id: `p${i}a`, maxlength: 40, required: true, autocomplete: "off" })),
      h("label", {}, `Pair ${i + 1}, second player`, h("input", { id: `p${i}b`, maxlength: 40, required: true, autocomplete: "off" })),
      h("label", {}, `Pair ${i + 1} name (optional)`, h("input", { id: `p${i}n`, maxlength: 40, autocomplete: "off" }))));
  }
  [...box.querySelectorAll("input")].forEach((inp, i) => { if (old[i] !== undefined) inp.value = old[i]; });
}

async function loadList() {
  try {
    const { sheets } = await api("GET", "/api/desk/sheets");
    const ul = $("sheet-list");
    if (!sheets.length) { ul.replaceChildren(h("li", { class: "muted", text: "None yet." })); return; }
    ul.replaceChildren(...sheets.map((s) => h("li", {},
      h("a", { href: `/score?sheet=${s.id}`, text: s.title || s.pairs.join(" v ") }),
      h("span", { class: "muted", text: ` — ${s.hands} hand${s.hands === 1 ? "" : "s"}${s.over ? ", over" : ""}` }))));
  } catch (e) { toast(e.message); }
}

async function createMatch(ev) {
  ev.preventDefault();
  const n = Number($("new-pairs").value);
  const pairs = [];
  for (let i = 0; i < n; i++) {
    const players = [$(`p${i}a`).value.trim(), $(`p${i}b`).value.trim()];
    const name = $(`p${i}n`).value.trim();
    pairs.push(name ? { name, players } : players);
  }
  let options = {};
  const raw = $("new-options").value.trim();
  if (raw) {
    try { options = JSON.parse(raw); } catch (e) { toast("The rule options are not valid JSON."); return; }
  }
  const body = { preset: $("new-preset").value, options, pairs, hands: [] };
  const title = $("new-title-text").value.trim();
  if (title) body.title = title;
  try { open(await api("POST", "/api/desk/sheets", body)); } catch (e) { toast(e.message); }
}

async function importFile() {
  const file = $("import-file").files[0];
  if (!file) return;
  let data;
  try { data = JSON.parse(await file.text()); } catch (e) { toast("That file is not JSON."); return; }
  try { open(await api("POST", "/api/desk/sheets/import", data)); toast("Imported.", "info"); } catch (e) { toast(e.message); }
}

// ---- one sheet ------------------------------------------------------------------------------------
function open(view) {
  S.view = view; S.caller = null; S.editing = null;
  setParam("sheet", view.id);
  $("start").hidden = true;
  $("sheet").hidden = false;
  render();
}

function pairIndexOf(player) {
  return S.view.pairs.findIndex((p) => p.players.includes(player));
}

function render() {
  const v = S.view, r = v.rules, sum = v.summary;
  const title = v.title || v.pairs.map((p) => p.name).join(" v ");
  $("sheet-title").textContent = title;
  document.title = `Kemps — ${title}`;
  const end = sum.scoring === "letters"
    ? `${sum.losing_letters === sum.word.length ? `the word ${sum.word}` : `${sum.losing_letters} letters (${sum.word.slice(0, sum.losing_letters)})`} loses`
    : `${sum.target} points win`;
  $("sheet-rules").textContent = `Rules: ${sum.preset}${Object.keys(sum.options).length ? " (changed: " + Object.entries(sum.options).map(([k, x]) => `${k} ${x}`).join(", ") + ")" : ""}; ${end}${r.hands ? `, or after ${r.hands} hands` : ""}. ${sum.over ? `Match over after hand ${sum.ended_at}` : `Hand ${sum.hands + 1}`}.`;
  // standings: smaller count in front (the server's order)
  const rows = sum.standings.map((s) => {
    const letters = s.unit === "letters";
    const label = letters ? `${s.name}: ${s.score} letter${s.score === 1 ? "" : "s"}${s.score ? ` (${s.spelled})` : ""}` : `${s.name}: ${s.spelled}`;
    const win = sum.over && sum.winners.includes(s.name);
    return h("div", { class: `standing pair-${s.pair}${s.out ? " out" : ""}${win ? " winner" : ""}`, "data-pair": s.pair, "aria-label": label, role: "group" },
      h("span", { class: "rank", text: sum.over || sum.hands ? ord(s.rank) : "–" }),
      h("span", { class: "who", text: s.name }),
      h("span", { class: "count", "data-count": s.score, text: String(s.score) }),
      letters ? wordBoxes(sum.word.slice(0, sum.losing_letters), s.score, s.spelled === "-" ? "no letters" : s.spelled)
        : h("span", { class: "players", text: s.spelled }),
      letters && s.name !== s.players.join(" & ") ? h("span", { class: "players", text: s.players.join(" & ") }) : null);
  });
  $("standings").replaceChildren(...rows);
  $("match-over").hidden = !sum.over;
  if (sum.over) {
    const w = sum.winners;
    $("over-text").textContent = `Match over after hand ${sum.ended_at}: ${w.join(" and ")} ${w.length === 1 && !/ & | and /.test(w[0]) ? "wins" : "win"}.`;
  }
  $("to-tournament").hidden = !(sum.over && v.tournament_id);
  if (v.tournament_id) $("back-tournament").href = `/tournament?id=${v.tournament_id}`;
  renderRecorder();
  renderHands();
  $("export-csv").href = `/api/desk/sheets/${v.id}/export.csv`;
  $("export-json").href = `/api/desk/sheets/${v.id}/export.json`;
}

function tapButton(text, label, cls, onclick, pair) {
  return h("button", { type: "button", class: `${cls || ""}${pair !== undefined && pair !== null ? ` pair-${pair}` : ""}`, "aria-label": label, onclick }, text);
}

function renderRecorder() {
  const v = S.view, sum = v.summary;
  const canRecord = !sum.over || S.editing !== null;
  $("editing").hidden = S.editing === null;
  if (S.editing !== null) $("editing").textContent = `Editing hand ${S.editing}: tap the new call for it (every total is worked out again), or Cancel.`;
  $("cancel").hidden = S.caller === null && S.editing === null;
  $("undo").disabled = !sum.hands;
  $("step1-title").hidden = !canRecord;
  const callers = $("callers");
  callers.replaceChildren();
  if (canRecord) {
    v.pairs.forEach((p, i) => p.players.forEach((name) => callers.append(
      tapButton(name, `${name} called`, S.caller === name ? "selected" : "", () => pickCaller(name), i))));
    callers.append(tapButton("Real deal", "Real deal (nobody scores)", "other", () => submit({ call: "real_deal" })));
    if (v.rules.table_talk === "forbidden") callers.append(tapButton("Table talk…", "Table talk ruling", "other", () => pickCaller("__table_talk")));
  }
  const step2 = $("step2");
  step2.hidden = S.caller === null;
  if (S.caller === null) return;
  const out = $("outcomes");
  out.replaceChildren();
  if (S.caller === "__table_talk") {
    $("step2-title").textContent = "Which pair used table talk? They lose the match at once.";
    v.pairs.forEach((p, i) => out.append(tapButton(p.name, `Table talk by ${p.name}`, "wrong", () => submit({ call: "table_talk", on: i }), i)));
    return;
  }
  const r = v.rules, by = S.caller, own = pairIndexOf(by);
  const others = v.pairs.map((p, i) => i).filter((i) => i !== own);
  $("step2-title").textContent = `${by}'s call: what happened?`;
  const kw = r.call_word || "Kemps", sw = r.stop_word || "Stop Kemps";
  const openCase = r.right_kemps_letters === "one_pair" && v.pairs.length >= 3;
  // A Kemps call is on the caller's partner: the buttons name them.
  const partner = v.pairs[own] ? v.pairs[own].players.find((name) => name !== by) : null;
  const kemps = (call, bare) => {
    const word = partner ? `${bare} on ${partner}` : bare;
    if (openCase) {
      others.forEach((i) => out.append(tapButton(`${word} ✓ — letter to ${v.pairs[i].name}`, `${word}, right, letter to ${v.pairs[i].name}`, "right",
        () => submit({ call, by, right: true, letters_to: i }), i)));
    } else {
      out.append(tapButton(`${word} ✓`, `${word}, right`, "right", () => submit({ call, by, right: true })));
    }
    out.append(tapButton(`${word} ✗`, `${word}, wrong`, "wrong", () => submit({ call, by, right: false })));
  };
  const stops = (call, word, byPlayer) => {
    const targets = byPlayer
      ? others.flatMap((i) => v.pairs[i].players.map((name) => ({ on: name, label: name, pair: i })))
      : others.map((i) => ({ on: i, label: v.pairs[i].name, pair: i }));
    for (const t of targets) {
      out.append(tapButton(`${word} on ${t.label} ✓`, `${word} on ${t.label}, right`, "right", () => submit({ call, by, on: t.on, right: true }), t.pair));
      out.append(tapButton(`${word} on ${t.label} ✗`, `${word} on ${t.label}, wrong`, "wrong", () => submit({ call, by, on: t.on, right: false }), t.pair));
    }
  };
  kemps("kemps", kw);
  stops("stop", sw, r.stop_target === "player");
  if (r.double_calls) {
    kemps("double", r.double_call_word || `Double ${kw}`);
    stops("double_stop", r.double_stop_word || `Double ${sw}`, false);
  }
}

function pickCaller(name) {
  S.caller = S.caller === name ? null : name;
  renderRecorder();
  if (S.caller !== null) $("outcomes").querySelector("button")?.focus();
}

function renderHands() {
  const v = S.view;
  $("no-hands").hidden = v.history.length > 0;
  $("hands").replaceChildren(...v.history.map((hr) => h("li", { class: `${hr.ends_match ? "ends" : ""}${S.editing === hr.number ? " sel" : ""}`, "data-hand": hr.number },
    h("span", { class: "text", text: hr.text }),
    h("button", { type: "button", class: "small", "aria-label": `Edit hand ${hr.number}`, onclick: () => { S.editing = hr.number; S.caller = null; render(); $("recorder").scrollIntoView({ block: "nearest" }); } }, "Edit"),
    h("button", { type: "button", class: "small", "aria-label": `Delete hand ${hr.number}`, onclick: () => change("DELETE", `hands/${hr.number}`) }, "Delete"))));
  const list = $("hands");
  list.scrollTop = list.scrollHeight;
}

async function change(method, path, body) {
  const caller = S.caller;  // a caller tapped while the server answers is kept
  try {
    S.view = await api(method, `/api/desk/sheets/${S.view.id}/${path}`, body);
    if (S.caller === caller) S.caller = null;
    S.editing = null;
    render();
    return true;
  } catch (e) { toast(e.message); return false; }
}

function submit(hand) {
  if (S.editing !== null) return change("PUT", `hands/${S.editing}`, hand);
  return change("POST", "hands", hand);
}

async function sendResult() {
  const v = S.view;
  try {
    await api("POST", `/api/desk/tournaments/${v.tournament_id}/matches/${v.match_id}/result`, { sheet: v.id });
    toast(`Recorded as match ${v.match_id} of the tournament.`, "info");
    $("send-result").disabled = true;
  } catch (e) { toast(e.message); }
}

document.addEventListener("DOMContentLoaded", async () => {
  $("new-pairs").addEventListener("change", pairBoxes);
  $("new-form").addEventListener("submit", createMatch);
  $("import-file").addEventListener("change", importFile);
  $("undo").addEventListener("click", () => change("POST", "undo"));
  $("cancel").addEventListener("click", () => { S.caller = null; S.editing = null; render(); });
  $("send-result").addEventListener("click", sendResult);
  const id = new URLSearchParams(location.search).get("sheet");
  if (!id) { showStart(); return; }
  try { open(await api("GET", `/api/desk/sheets/${encodeURIComponent(id)}`)); } catch (e) { toast(e.message); showStart(); }
});
