// Kemps replay: the table drawn as in live play (the felt, the live table's seats and people,
// their looks and gestures, the middle), with every hand face up (the markup and classes are the
// live page's: static/style.css, static/people.css, js/seats.js, js/people.js).

import { $, h } from "./js/dom.js";
import { SUIT, parseCard } from "./js/cards.js";
import { holdGesture, updatePeople } from "./js/people.js";
import { buildSeats, setNear } from "./js/seats.js";

export { $, h, parseCard };  // replay.js takes them from here, as before

export function cardFace(text, extra = "", zone = "") {
  const c = parseCard(text);
  return h("div", { class: `card face ${c.red ? "red" : "black"} ${extra}`, "data-card": text,
    "data-zone": zone || null, role: "img", "aria-label": c.name },
  h("span", { class: "corner", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })),
  h("span", { class: "pip", "aria-hidden": "true", text: SUIT[c.suit] }),
  h("span", { class: "corner low", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })));
}

// Draw the table into `felt` (an element holding #seats, #middle, #stock, #center-note), with
// the live table's seats and people (js/seats.js, js/people.js). `scene`: {names, pairs, state (a
// replay state), last: {seat: text}, bubbles: {seat: {text, kind}}, gestures: {seat: {gesture,
// ms}} (a gesture under way, `ms` into it), near (the seat drawn large), note}. Every hand is
// shown face up: the match is over.
export function drawTable(felt, scene, narrow, wire = null) {
  const { names, state } = scene;
  const n = names.length;
  const seatsEl = felt.querySelector("#seats");
  buildSeats(seatsEl, felt, { n, bottom: 0, narrow, wire });
  const inHand = state.phase === "dealt" || state.phase === "play";
  for (const el of seatsEl.children) {
    const s = Number(el.dataset.seat);
    el.querySelector(".seat-name").textContent = names[s];
    const tags = [];
    if (s === state.dealer) tags.push("dealer");
    if (state.holding.includes(s)) tags.push("holding five");
    const tagEl = el.querySelector(".tags");
    const tagKey = tags.join(",");
    if (tagEl.dataset.key !== tagKey) {
      tagEl.dataset.key = tagKey;
      tagEl.replaceChildren(...tags.map((t) => h("span", { class: `tag tag-${t.replace(/ /g, "-")}`, text: t })));
    }
    el.classList.toggle("dealer", s === state.dealer);
    const cards = el.querySelector(".seat-cards");
    cards.classList.add("revealed");
    const hand = state.hands[s] || [];
    const key = hand.join(",");
    if (cards.dataset.key !== key) {
      cards.dataset.key = key;
      cards.replaceChildren(...hand.map((c) => cardFace(c, "mini", "seat")));
      cards.setAttribute("aria-label", `${names[s]} holds ${hand.map((c) => parseCard(c).name).join(", ")}`);
    }
    const last = scene.last[s] || "";
    if (el.querySelector(".last").textContent !== last) el.querySelector(".last").textContent = last;
    const b = el.querySelector(".bubble");
    const bubble = scene.bubbles[s];
    const text = bubble ? bubble.text : "", cls = `bubble ${bubble ? `show ${bubble.kind}` : ""}`;
    if (b.textContent !== text) b.textContent = text;
    if (b.className !== cls) b.className = cls;
    const g = scene.gestures[s];
    holdGesture(s, g ? g.gesture : null, g ? g.ms : 0);
  }
  setNear(seatsEl, scene.near);
  updatePeople(state.looks && state.looks.length ? state.looks : null);
  const mid = felt.querySelector("#middle");
  const mkey = state.middle.map(String).join(",") + state.middle_face_down;
  if (mid.dataset.key !== mkey) {
    mid.dataset.key = mkey;
    mid.replaceChildren(...state.middle.map((c, i) => (c ? cardFace(c, "big", "middle")
      : h("div", { class: `card big ${state.middle_face_down ? "back" : "slot"}`, role: "img",
        "aria-label": state.middle_face_down ? "a face-down card" : "an empty place", "data-index": i }))));
  }
  mid.hidden = !inHand && state.middle.every((c) => !c); // the middle stays on show as the hand ends
  const note = felt.querySelector("#center-note");
  note.textContent = scene.note || "";
  note.hidden = !scene.note;
  felt.querySelector("#stock").textContent = inHand ? `Stock: ${state.stock_count} card${state.stock_count === 1 ? "" : "s"}` : "";
}
