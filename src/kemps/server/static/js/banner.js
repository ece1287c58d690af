// The table-wide banner over the felt when a hand is decided: the call ("Cara: Kemps!"), the
// cards shown, right or wrong, who takes the letter and the letters spelled. Everyone sees it.
import { cardFace, cardName } from "./cards.js";
import { $, h } from "./dom.js";

let timer = null;
let until = 0; // when the banner goes (performance.now() ms)
function box() { return $("banner"); }
function keep(ms = 7000) {
  clearTimeout(timer);
  until = performance.now() + ms;
  timer = setTimeout(() => banner.hide(), ms);
}

export const banner = {
  onHide: null, // called once the banner is gone (the match-end screen waits for it)
  // Gone within `ms` from now, never later than it would have gone (the match-end screen, or the
  // huddle, follows the banner: one after the other, never one over the other).
  shorten(ms) { if (!box().hidden && performance.now() + ms < until) keep(ms); },
  shown() { return !box().hidden; },
  call(title, sub = "") {
    const b = box();
    b.innerHTML = "";
    b.append(h("p", { class: "banner-call", text: title }));
    if (sub) b.append(h("p", { class: "banner-sub", text: sub }));
    b.className = "banner show";
    b.hidden = false;
    keep();
  },
  reveal(name, cards) {
    const b = box();
    if (b.hidden) this.call(`${name} shows`);
    const row = h("div", { class: "banner-shown", "aria-label": `${name} shows ${cards.map(cardName).join(", ")}` },
      h("span", { class: "shown-name", text: `${name} shows` }));
    for (const c of cards) row.append(cardFace(c, "div", { class: "reveal", "aria-hidden": "true" }));
    b.append(row);
    keep();
  },
  judged(right) {
    const b = box();
    b.append(h("p", { class: `banner-judged ${right ? "right" : "wrong"}`, text: right ? "Right!" : "Wrong!" }));
    b.classList.add(right ? "right" : "wrong");
    keep();
  },
  line(text, cls = "") {
    const b = box();
    if (b.hidden) { b.innerHTML = ""; b.className = "banner show"; b.hidden = false; }
    b.append(h("p", { class: `banner-line ${cls}`, text }));
    keep();
  },
  hide() {
    clearTimeout(timer);
    const b = box();
    const was = b && !b.hidden;
    if (b) { b.hidden = true; b.innerHTML = ""; }
    if (was && this.onHide) this.onHide();
  },
};
