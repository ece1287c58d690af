// Kemps replay: the table drawn like live play (the felt, the seats round an oval, the middle),
// with every hand face up. An ES module on its own so that the live page's table module can take
// its place once it is one (the markup and classes are the live page's: static/style.css).

import { $, h } from "./js/dom.js";
import { SUIT, parseCard } from "./js/cards.js";

export { $, h, parseCard };  // replay.js takes them from here, as before

export function cardFace(text, extra = "", zone = "") {
  const c = parseCard(text);
  return h("div", { class: `card face ${c.red ? "red" : "black"} ${extra}`, "data-card": text,
    "data-zone": zone || null, role: "img", "aria-label": c.name },
  h("span", { class: "corner", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })),
  h("span", { class: "pip", "aria-hidden": "true", text: SUIT[c.suit] }),
  h("span", { class: "corner low", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })));
}

// Seat positions as on the live table: seat 0 at the bottom, then clockwise, partners across.
function seatPos(seat, n, narrow) {
  if (narrow) {
    if (seat === 0) return { x: 50, y: 90 };
    const a = Math.PI + ((seat - 1) * Math.PI) / (n - 2);
    return n > 4 ? { x: 50 + 37 * Math.cos(a), y: 45 + 36 * Math.sin(a) }
      : { x: 50 + 34 * Math.cos(a), y: 40 + 29 * Math.sin(a) };
  }
  const a = Math.PI / 2 + (seat * 2 * Math.PI) / n;
  return { x: 50 + 41 * Math.cos(a), y: 50 + 38 * Math.sin(a) };
}

// Draw the table into `felt` (an element holding #seats, #middle, #stock, #center-note).
// `scene`: {names, pairs, state (a replay state), last: {seat: text}, bubbles: {seat: {text,
// kind}}, note}. Every hand is shown face up: the match is over.
export function drawTable(felt, scene, narrow) {
  const { names, pairs, state } = scene;
  const n = names.length;
  const seatsEl = felt.querySelector("#seats");
  if (seatsEl.dataset.layout !== `${n}:${narrow}`) {
    seatsEl.dataset.layout = `${n}:${narrow}`;
    seatsEl.innerHTML = "";
    for (let s = 0; s < n; s++) {
      const pos = seatPos(s, n, narrow);
      const side = s === 0 ? "bottom" : pos.y < 25 ? "top" : pos.x < 50 ? "left" : "right";
      seatsEl.append(h("div", { class: `seat pair-${s % pairs} side-${side}`, "data-seat": s,
        style: `left:${pos.x}%;top:${pos.y}%` },
      h("div", { class: "plate" }, h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: "seat-name" })),
      h("div", { class: "tags" }),
      h("div", { class: "seat-cards revealed" }),
      h("div", { class: "last" }),
      h("div", { class: "bubble", role: "status" })));
    }
  }
  const inHand = state.phase === "dealt" || state.phase === "play";
  for (const el of seatsEl.children) {
    const s = Number(el.dataset.seat);
    el.querySelector(".seat-name").textContent = names[s];
    const tags = [];
    if (s === state.dealer) tags.push("dealer");
    if (state.holding.includes(s)) tags.push("holding five");
    const tagEl = el.querySelector(".tags");
    tagEl.replaceChildren(...tags.map((t) => h("span", { class: `tag tag-${t.replace(/ /g, "-")}`, text: t })));
    el.classList.toggle("dealer", s === state.dealer);
    const cards = el.querySelector(".seat-cards");
    const hand = state.hands[s] || [];
    const key = hand.join(",");
    if (cards.dataset.key !== key) {
      cards.dataset.key = key;
      cards.replaceChildren(...hand.map((c) => cardFace(c, "mini", "seat")));
      cards.setAttribute("aria-label", `${names[s]} holds ${hand.map((c) => parseCard(c).name).join(", ")}`);
    }
    el.querySelector(".last").textContent = scene.last[s] || "";
    const b = el.querySelector(".bubble");
    const bubble = scene.bubbles[s];
    b.textContent = bubble ? bubble.text : "";
    b.className = `bubble ${bubble ? `show ${bubble.kind}` : ""}`;
  }
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
