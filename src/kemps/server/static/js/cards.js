// Cards as text ("7H", "TD.2" for the second deck) and as faces on the page.
import { h } from "./dom.js";

export const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAME = { "2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
  "8": "eight", "9": "nine", T: "ten", J: "jack", Q: "queen", K: "king", A: "ace" };

export function parseCard(text) {
  const [rs, deck] = text.split(".");
  const rank = rs[0], suit = rs[1];
  return { text, rank: rank === "T" ? "10" : rank, rankCode: rank, suit, red: suit === "H" || suit === "D",
    name: `${RANK_NAME[rank]} of ${SUIT_NAME[suit]}${deck ? ` (deck ${deck})` : ""}`,
    short: `${rank === "T" ? "10" : rank}${SUIT[suit]}` };
}
export const cardShort = (t) => (t ? parseCard(t).short : "?");
export const cardsShort = (list) => list.map(cardShort).join(" ");
export const cardName = (t) => parseCard(t).name;

export function cardFace(text, tag = "div", attrs = {}) {
  const c = parseCard(text);
  const { class: extra, ...rest } = attrs;
  return h(tag, { ...rest, class: `card face ${c.red ? "red" : "black"} ${extra || ""}`, "data-card": text },
    h("span", { class: "corner", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })),
    h("span", { class: "pip", "aria-hidden": "true", text: SUIT[c.suit] }),
    h("span", { class: "corner low", "aria-hidden": "true" }, h("b", { text: c.rank }), h("i", { text: SUIT[c.suit] })));
}

// Four cards of one rank (S0: "four of a kind"): the rank, or null.
export function fourOfAKind(hand) {
  if (hand.length < 4) return null;
  const counts = {};
  for (const t of hand) { const r = t[0]; counts[r] = (counts[r] || 0) + 1; if (counts[r] >= 4) return r; }
  return null;
}
