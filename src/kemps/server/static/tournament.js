// Kemps — the tournament desk page (/tournament, /tournament?id=ID). Plain JS, no build step.
// The server keeps the tournament (/api/desk/tournaments...); this page shows and changes it.
"use strict";

const T = { view: null, poll: null };
const WORD = "KEMPS";

async function showStart() {
  $("start").hidden = false;
  $("event").hidden = true;
  try {
    const { tournaments } = await api("GET", "/api/desk/tournaments");
    $("t-list").replaceChildren(...(tournaments.length ? tournaments.map((t) => h("li", {},
      h("a", { href: `/tournament?id=${t.id}`, text: t.name }),
      h("span", { class: "muted", text: ` — ${t.teams} teams${t.champion ? `, won by ${t.champion}` : ""}` })))
      : [h("li", { class: "muted", text: "None yet." })]));
  } catch (e) { toast(e.message); }
}

async function create(ev) {
  ev.preventDefault();
  const teams = $("t-teams").value.split("\n").map((x) => x.trim()).filter(Boolean);
  const body = { teams, letters: Number($("t-letters").value), fake_signals: $("t-fake").value,
    go_start: $("t-go").checked, one_card: $("t-one").checked };
  if ($("t-name").value.trim()) body.name = $("t-name").value.trim();
  if ($("t-tables").value) body.tables = Number($("t-tables").value);
  if ($("t-seed").value) body.seed = Number($("t-seed").value);
  if ($("t-rating").checked) body.seed_by_rating = true;
  try { show(await api("POST", "/api/desk/tournaments", body)); } catch (e) { toast(e.message); }
}

function show(view) {
  T.view = view;
  setParam("id", view.id);
  $("start").hidden = true;
  $("event").hidden = false;
  render();
  clearTimeout(T.poll);
  if (view.rooms.some((r) => r.status === "playing")) T.poll = setTimeout(refresh, 2000);
}

async function refresh() {
  try { show(await api("GET", `/api/desk/tournaments/${T.view.id}`)); } catch (e) { toast(e.message); }
}

async function act(method, path, body, done) {
  try {
    const view = await api(method, `/api/desk/tournaments/${T.view.id}/${path}`, body);
    show(view);
    if (done) done(view);
  } catch (e) { toast(e.message); }
}

function spelled(n) { return n ? WORD.slice(0, n).split("").join("-") : "no letters"; }

function matchActions(m) {
  const v = T.view;
  const id = m.id;
  // Each box is labelled with its team's whole name (a placeholder would be cut to a few letters).
  const home = h("input", { type: "number", min: 0, max: m.letters_to_lose, class: "letters-in", placeholder: "0", "aria-label": `Letters taken by ${m.home} in ${id}`, required: true });
  const away = h("input", { type: "number", min: 0, max: m.letters_to_lose, class: "letters-in", placeholder: "0", "aria-label": `Letters taken by ${m.away} in ${id}`, required: true });
  const team = (name, input) => h("label", { class: "letters-team" }, h("span", { class: "team-name", text: name }), input);
  const form = h("form", { onsubmit: (ev) => {
    ev.preventDefault();
    act("POST", `matches/${id}/result`, { letters: [Number(home.value), Number(away.value)] },
      () => toast(`Match ${id} recorded.`, "info"));
  } }, team(m.home, home), h("span", { "aria-hidden": "true", text: "–" }), team(m.away, away), h("button", { type: "submit", class: "small primary", "aria-label": `Record ${id}` }, "Record"));
  const sheet = v.sheets.filter((s) => s.match_id === id).pop();
  const room = v.rooms.filter((r) => r.match_id === id && r.status === "playing").pop();
  return h("div", { class: "match-actions" }, form,
    sheet ? h("a", { class: "button-link small", href: `/score?sheet=${sheet.id}`, "aria-label": `Open the scoresheet of ${id}` }, "Scoresheet")
      : h("button", { type: "button", class: "small", "aria-label": `Score ${id} with the scorekeeper`, onclick: async () => {
        try { const s = await api("POST", `/api/desk/tournaments/${v.id}/matches/${id}/sheet`); location.href = `/score?sheet=${s.id}`; } catch (e) { toast(e.message); }
      } }, "Scoresheet"),
    room ? h("a", { class: "button-link small", href: `/room/${room.room_code}`, "aria-label": `Room of ${id} online` }, `Room ${room.room_code}`)
      : h("button", { type: "button", class: "small", "aria-label": `Play ${id} online`, onclick: async () => {
        try {
          const r = await api("POST", `/api/desk/tournaments/${v.id}/matches/${id}/room`);
          toast(`Room ${r.code}: ${r.home.name} take seats 1 and 3, ${r.away.name} seats 2 and 4. The result comes back by itself.`, "info");
          refresh();
        } catch (e) { toast(e.message); }
      } }, "Play online"));
}

function render() {
  const t = T.view.tournament, s = t.settings, st = t.standings;
  $("ev-name").textContent = t.name;
  document.title = `Kemps — ${t.name}`;
  const groups = Object.keys(t.groups).filter(Boolean);
  $("ev-settings").textContent = `${t.teams.length} teams, ${groups.length ? "two groups (" + groups.map((g) => `${g}: ${t.groups[g].join(", ")}`).join("; ") + ") and a final" : "one round robin"}; ${t.tables} table${t.tables === 1 ? "" : "s"}. Short matches: ${s.letters} letter${s.letters === 1 ? "" : "s"} (${spelled(s.letters)}) lose${groups.length ? "; the final plays the full word" : ""}. Fake signals ${s.fake_signals}; "Go" start ${s.go_start ? "on" : "off"}; ${s.one_card ? "one card at a time" : "several cards at a time"}. Lots drawn from seed ${t.seed}.`;
  $("ev-champion").hidden = !st.champion;
  $("ev-champion").textContent = st.champion ? `Champion: ${st.champion}` : "";
  // at the tables, next up
  const sched = t.schedule;
  const now = sched.filter((m) => m.status === "at_table");
  $("now").replaceChildren(...(now.length ? now.map((m) => h("div", { class: "panel", style: "background:var(--panel-2);padding:.6rem;margin-bottom:.5rem" },
    h("p", { style: "margin:0 0 .4rem" }, h("span", { class: "badge table", text: `Table ${m.table}` }), ` ${m.id}: `, h("strong", { text: m.home }), " v ", h("strong", { text: m.away }),
      h("span", { class: "muted", text: ` — to ${spelled(m.letters_to_lose)}` })),
    matchActions(m))) : [h("p", { class: "muted", text: st.champion ? "Every match is decided." : "No match at a table." })]));
  const waiting = sched.filter((m) => m.status === "waiting").sort((a, b) => a.order - b.order);
  $("next").replaceChildren(...waiting.map((m) => h("li", { text: `${m.id}: ${m.home} v ${m.away}` })));
  $("next-title").hidden = !waiting.length;
  // schedule
  $("schedule").querySelector("tbody").replaceChildren(...sched.map((m) => {
    let last;
    if (m.status === "played") last = h("td", {}, h("span", { class: "badge played", text: "played" }), " ", m.result);
    else if (m.status === "forfeit") last = h("td", {}, h("span", { class: "badge forfeit", text: "forfeit" }), " ", m.result);
    else last = h("td", {}, m.status === "at_table" ? h("span", { class: "badge table", text: `Table ${m.table}` }) : null, matchActions(m));
    return h("tr", { "data-match": m.id, "data-status": m.status },
      h("td", {}, h("strong", { text: m.id }), h("div", { class: "muted", style: "font-size:.75rem", text: m.stage === "final" ? "final" : `${m.group ? `group ${m.group}, ` : ""}round ${m.round}` })),
      h("td", { text: `${m.home} v ${m.away}` }), last);
  }));
  // standings
  const blocks = [];
  for (const [g, rows] of Object.entries(st.groups)) {
    if (g) blocks.push(h("h3", { style: "font-size:.95rem;margin:.6rem 0 .3rem", text: `Group ${g}` }));
    blocks.push(h("div", { style: "overflow-x:auto" }, h("table", { class: "grid standings-table", "data-group": g, "aria-label": g ? `Group ${g} standings` : "Standings" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "#" }), h("th", { scope: "col", text: "Team" }),
        h("th", { scope: "col", class: "num", text: "Played" }), h("th", { scope: "col", class: "num", text: "Won" }), h("th", { scope: "col", class: "num", text: "Lost" }),
        h("th", { scope: "col", class: "num", text: "Letters" }), h("th", { scope: "col", class: "hide-phone", text: "Placed by" }))),
      h("tbody", {}, rows.map((r, i) => h("tr", { class: `${r.withdrawn ? "withdrawn" : ""}${i === 0 && st.champion === r.team ? " first" : ""}`, "data-team": r.team },
        h("td", { text: String(r.rank) }), h("td", {}, r.team, h("div", { class: "muted", style: "font-size:.75rem", text: r.players.join(" & ") + (r.withdrawn ? " — withdrawn" : "") })),
        h("td", { class: "num", text: String(r.played) }), h("td", { class: "num", text: String(r.won) + (r.forfeits_won ? ` (${r.forfeits_won} by forfeit)` : "") }),
        h("td", { class: "num", text: String(r.lost) }), h("td", { class: "num", text: String(r.letters) }), h("td", { class: "hide-phone muted", text: r.note })))))));
  }
  if (st.final) blocks.push(h("p", {}, h("strong", { text: "Final: " }), `${st.final.teams.join(" v ")}${st.final.winner ? ` — ${st.final.winner} win` : ""}`));
  $("standings").replaceChildren(...blocks);
  $("rule").textContent = st.rule;
  $("tie-breaks").replaceChildren(...[...st.tie_breaks, ...st.forfeits.map((f) => `Forfeit ${f}`)].map((x) => h("li", { text: x })));
  // withdraw (until the champion is known)
  $("wd-panel").hidden = Boolean(st.champion);
  const gone = new Set(Object.values(st.groups).flat().filter((r) => r.withdrawn).map((r) => r.team));
  $("wd-team").replaceChildren(...t.teams.filter((x) => !gone.has(x.name)).map((x) => h("option", { value: x.name, text: x.name })));
}

document.addEventListener("DOMContentLoaded", async () => {
  $("new-form").addEventListener("submit", create);
  $("wd-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const team = $("wd-team").value;
    if (!team || !confirm(`Withdraw ${team}? Its unplayed matches become forfeits.`)) return;
    act("POST", "withdraw", { team }, (v) => toast(`${team} withdrew; forfeits: ${v.forfeited.join(", ") || "none"}.`, "info"));
  });
  const id = new URLSearchParams(location.search).get("id");
  if (!id) { showStart(); return; }
  try { show(await api("GET", `/api/desk/tournaments/${encodeURIComponent(id)}`)); } catch (e) { toast(e.message); showStart(); }
});
