// The last hand's result (between hands) and the match-end screen with a hand-by-hand recap.
import { cardFace, cardName } from "./cards.js";
import { $, h } from "./dom.js";
import { callText, scoreLine } from "./log.js";
import { render } from "./render.js";
import { S, nameOf, pairMembers } from "./state.js";

const verdict = (right) => (right === true ? "right" : right === false ? "wrong" : "void");

function resultRows(res, into) {
  if (res.reason === "real_deal") into.append(h("p", { text: "The stock ran out: a real deal, no letters." }));
  for (const c of res.calls)
    into.append(h("p", { class: `judged ${verdict(c.right)}` },
      h("b", { text: nameOf(c.seat) }), ` called ${c.text}: `, h("strong", { text: verdict(c.right) })));
  for (const [s, cards] of Object.entries(res.revealed || {})) {
    const row = h("div", { class: "shown", "aria-label": `${nameOf(Number(s))} showed ${cards.map(cardName).join(", ")}` },
      h("span", { class: "shown-name", text: `${nameOf(Number(s))} showed` }));
    for (const c of cards) row.append(cardFace(c, "div", { class: "mini", "aria-hidden": "true" }));
    into.append(row);
  }
  for (const sc of res.scored) into.append(h("p", { class: "scoreline", text: scoreLine(sc) }));
}

export function renderResult() {
  const v = S.view;
  const show = (v.phase === "huddle" || v.phase === "over") && v.hand_no > 0;
  $("result").hidden = !show;
  const last = $("huddle-last");
  last.hidden = !show || !S.result;
  if (show && S.result) {
    const res = S.result;
    last.textContent = `Hand ${v.hand_no}: ` + (res.reason === "real_deal" ? "the stock ran out, no letters."
      : [...res.calls.map((c) => `${nameOf(c.seat)} called ${c.text}, ${verdict(c.right)}`),
        ...res.scored.map((sc) => scoreLine(sc))].join("; ") + ".");
  }
  if (!show) return;
  const body = $("result-body");
  body.innerHTML = "";
  $("result-title").textContent = `Hand ${v.hand_no}`;
  const res = S.result;
  if (res) resultRows(res, body);
  else for (const [s, cards] of Object.entries(v.revealed)) {
    const row = h("div", { class: "shown" }, h("span", { class: "shown-name", text: `${v.names[s]} showed` }));
    for (const c of cards) row.append(cardFace(c, "div", { class: "mini", "aria-hidden": "true" }));
    body.append(row);
  }
  if (!body.children.length) body.append(h("p", { class: "muted", text: "The hand is over." }));
}

const ORD = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;

// The whole match, hand by hand, from the server's record of it (GET /api/history/ID "summary":
// kemps.record.match_summary), so a reload or a late spectator has every hand; until it comes,
// the hands this page saw.
let recapAsked = null;
function fetchRecap(id) {
  if (recapAsked === id) return;
  recapAsked = id;
  fetch(`/api/history/${id}`).then((r) => (r.ok ? r.json() : null)).then((m) => {
    const sum = m && m.summary;
    if (!sum || !Array.isArray(sum.hands)) return;
    const unit = sum.scoring === "points" ? "point" : "letter";
    const spell = (n) => (sum.word || "").slice(0, n).split("").join("-");
    S.recap = sum.hands.map((hd) => ({
      hand: hd.hand, reason: hd.ended,
      calls: hd.calls.map((c) => ({ seat: c.seat, kind: c.kind, right: c.right, text: callText(c) })),
      scored: hd.scored.map((sc) => ({ ...sc, unit })),
      spelled: Object.fromEntries(hd.scored.map((sc) => [sc.pair, unit === "letter" ? spell(sc.total) : String(sc.total)])),
    }));
    S.recapFor = id;
    render();
  }).catch(() => { /* the hands this page saw stay */ });
}

export function renderMatchEnd() {
  const v = S.view, room = S.room;
  const over = v.phase === "over" || room.status === "finished";
  // The banner of the deciding call comes first; the match-end screen once it is gone (it goes by
  // itself, or on a click).
  $("match-end").hidden = !over || !$("banner").hidden;
  document.body.classList.toggle("match-over", over);
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
      h("span", { class: "who", text: `${pairMembers(p)}${v.pair === p ? " (you)" : ""}` }),
      h("span", { class: "spelled", text: score })));
  }
  const winner = order.find((p) => ranks[p] === 1);
  const loser = order[order.length - 1];
  const won = v.pair !== null && ranks[v.pair] === 1;
  const lost = v.pair !== null && !won;
  $("end-title").textContent = won ? "You win the match!" : lost ? `${pairMembers(winner)} win the match` : winner !== undefined ? `${pairMembers(winner)} win the match` : "Match over";
  $("end-sub").textContent = v.scoring === "letters" && loser !== undefined && v.spelled[loser]
    ? `${pairMembers(loser)} spelled ${v.spelled[loser]}${lost && v.pair === loser ? " — better luck in the rematch." : "."}` : "";
  // Hand by hand: who called what, right or wrong, who took the letter (this page's own record of
  // the match: the hands it saw or was sent).
  if (room.last_match_id && S.recapFor !== room.last_match_id) fetchRecap(room.last_match_id);
  const tb = $("recap-body");
  tb.innerHTML = "";
  for (const res of [...S.recap].sort((a, b) => a.hand - b.hand)) {
    const calls = res.calls.map((c) => `${nameOf(c.seat)}: ${c.text}, ${verdict(c.right)}`).join("; ");
    const scored = res.scored.map((sc) => scoreLine(sc, res.spelled ? res.spelled[sc.pair] : "")).join("; ");
    tb.append(h("tr", {}, h("td", { text: String(res.hand) }),
      h("td", { text: res.reason === "real_deal" ? "stock ran out" : calls || "—" }),
      h("td", { text: scored || "no letters" })));
  }
  $("recap").hidden = !S.recap.length;
  // The host starts the rematch (so one stray click does not restart the table for everyone);
  // anyone seated may when the host is gone.
  const host = room.seats[room.host_seat];
  const hostHere = host && host.kind === "human" && host.connected;
  const mayRematch = S.seat !== null && room.status === "finished" && (S.seat === room.host_seat || !hostHere);
  $("rematch").hidden = !mayRematch;
  $("rematch-wait").hidden = mayRematch || S.seat === null || room.status !== "finished";
  $("rematch-wait").textContent = host ? `Waiting for ${host.name} (the host) to start a rematch.` : "";
  const link = $("match-json");
  const replay = $("match-replay");
  if (room.last_match_id) {
    link.href = `/api/history/${room.last_match_id}`; link.hidden = false; link.textContent = "Match record (JSON)";
    replay.href = `/replay/${room.last_match_id}`; replay.hidden = false;
  } else { link.hidden = true; replay.hidden = true; }
}
