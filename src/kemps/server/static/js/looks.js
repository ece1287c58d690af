// Looking, at an attention table (docs/rules.md "Attention"): you look by pointing (hover or tap
// on a person, the middle, your cards) or from the keys (Shift+1..9 for the players, C for the
// middle, V for your cards). A seat changes its look at most once every LOOK_GAP_S (0.3 s,
// kemps.gestures): the page never sends faster; it keeps only the latest place asked for and sends
// it when the gap is over (the view's `legal.look_from`, which a swap also moves).
// A spectator's look is its own (nobody else sees it): the page keeps it here.
import { sendAction } from "./socket.js";
import { S, rules, tableNow } from "./state.js";

const LOOK_GAP_MS = 300 + 40; // LOOK_GAP_S and a little for the way to the server
const HOVER_MS = 120; // a pointer that only passes over a person does not turn your look

let wanted = null; // the latest place asked for, not sent yet
let timer = null;
let lastSent = -1e9;
let lastAsked = null; // the place of the last look sent
let spectatorBefore = null; // a spectator's look before the one sent, should it be refused
const lookIds = new Set();
let focusChanged = null;
/** `fn` is called when this page's own focus changes at a table without attention. */
export function onFocus(fn) { focusChanged = fn; }

export const attentionTable = () => !!(rules().attention && S.view);
const inHand = () => S.view && (S.view.phase === "dealt" || S.view.phase === "play");

/** Where this page looks now: the seat's look in the view, or a spectator's own. */
export function myLook() {
  const v = S.view;
  if (!v) return null;
  if (v.seat === null) return S.spectatorLook === undefined ? null : S.spectatorLook;
  return v.looks && v.looks.length ? v.looks[v.seat] : null;
}

/** Ask to look at `at` (a seat, "middle" or "hand"): sent now, or when the gap allows. */
export function lookAt(at) {
  // A table without attention: looking is only this page's (the player drawn large), told to no one.
  if (S.view && !rules().attention) {
    if (typeof at === "number" && at !== S.view.seat && at < S.view.names.length && S.focus !== at) {
      S.focus = at;
      if (focusChanged) focusChanged();
    }
    return;
  }
  if (!attentionTable() || !inHand()) return;
  const v = S.view;
  if (at === v.seat || (v.seat === null && at === "hand")) return;
  if (typeof at === "number" && !(at >= 0 && at < v.names.length)) return;
  wanted = at;
  flush();
}

function flush() {
  clearTimeout(timer);
  timer = null;
  if (wanted === null || !inHand()) { wanted = null; return; }
  if (wanted === myLook()) { wanted = null; return; }
  const v = S.view;
  let wait = lastSent + LOOK_GAP_MS - performance.now();
  const from = v.legal && typeof v.legal.look_from === "number" ? v.legal.look_from : null;
  if (from !== null) wait = Math.max(wait, (from - tableNow()) * 1000 + 40);
  if (wait > 0) { timer = setTimeout(flush, wait); return; }
  const at = wanted;
  wanted = null;
  lastSent = performance.now();
  lastAsked = at;
  const id = sendAction({ type: "look", at });
  lookIds.add(id);
  if (v.seat === null) { spectatorBefore = myLook(); S.spectatorLook = at; } // no one else sees it
}

/** A refusal of one of our looks: quiet (too soon: try the latest place again). True if ours. */
export function lookRefused(m) {
  if (!lookIds.has(m.id)) return false;
  lookIds.delete(m.id);
  if (S.view && S.view.seat === null) S.spectatorLook = spectatorBefore;
  if (m.code === "look_too_soon") {
    lastSent = performance.now();
    if (wanted === null) wanted = lastAsked;
    flush();
  }
  return true;
}

/** Shift+1..9: the player 1..9 places to your left (a spectator: seat 1..9); C the middle; V
 * your cards. Returns the place, or undefined for another key. */
export function lookKey(ev) {
  const v = S.view;
  if (!v) return undefined;
  const n = v.names.length;
  if (ev.shiftKey && /^Digit[1-9]$/.test(ev.code || "")) {
    const k = Number(ev.code.slice(5));
    if (v.seat === null) return k <= n ? k - 1 : undefined;
    return k < n ? (v.seat + k) % n : undefined;
  }
  if (ev.shiftKey) return undefined;
  const lower = (ev.key || "").toLowerCase();
  if (lower === "c") return "middle";
  if (lower === "v" && v.seat !== null) return "hand";
  return undefined;
}

/** The key that looks at `seat` from this page ("⇧1" is the player on your left). */
export function lookKeyFor(seat) {
  const v = S.view;
  if (!v || seat === v.seat) return "";
  const n = v.names.length;
  const k = v.seat === null ? seat + 1 : (seat - v.seat + n) % n;
  return k >= 1 && k <= 9 ? `⇧${k}` : "";
}

// Where the mouse last was (page pixels). A person box that grows or a seat that moves under a
// mouse that stays still also gives a "pointerenter" (the browser's own move when the layout
// changes): that is not the person pointing, and must not turn their look (a click on a person
// drawn large put the middle under the pointer, and the look went back to the middle).
let pointer = null;
document.addEventListener("pointermove", (ev) => { pointer = [ev.clientX, ev.clientY]; }, true);
document.addEventListener("pointerdown", (ev) => { pointer = [ev.clientX, ev.clientY]; }, true);
const pointerStill = (ev) => pointer !== null && pointer[0] === ev.clientX && pointer[1] === ev.clientY;

/** Pointing: a hover that stays a moment, or a tap, turns your look to `at`. */
export function wireLook(el, at) {
  let hover = null;
  el.addEventListener("pointerenter", (ev) => {
    if (ev.pointerType !== "mouse" || !S.view || pointerStill(ev)) return;
    clearTimeout(hover);
    hover = setTimeout(() => lookAt(typeof at === "function" ? at() : at), HOVER_MS);
  });
  el.addEventListener("pointerleave", () => clearTimeout(hover));
  el.addEventListener("pointerdown", () => { if (S.view) lookAt(typeof at === "function" ? at() : at); });
}
