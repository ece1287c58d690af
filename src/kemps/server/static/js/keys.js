// Keyboard play: every move of a hand is one key away (listed in the help overlay, "?").
import { banner } from "./banner.js";
import { paletteShown } from "./camera.js";
import { $, h } from "./dom.js";
import { agreeDraft } from "./huddle.js";
import { render } from "./render.js";
import { lookAt, lookKey } from "./looks.js";
import { send, sendAction } from "./socket.js";
import { setMuted, muted } from "./sound.js";
import { S, callWords } from "./state.js";
import { captionsOn, setCaptions } from "./people.js";
import { actionList, clickCard, closePicker, pickerKey, renderActions, renderCards, togglePalette } from "./table.js";

// The list, in the table's own call words once a room is open.
export function keyList(words = { kemps: "Kemps", stop: "Stop Kemps" }) {
  return [
    ["Esc", "clear a choice, close this list or the call banner"],
    ["1 2 3 4", "pick a card in the middle"],
    ["A S D F", "pick one of your cards (H: a fifth one you hold)"],
    ["", "picking one of each swaps them; Esc clears"],
    ["K", `call ${words.kemps}: your partner holds four of a kind`],
    ["L", `call ${words.stop}: an opponent holds four of a kind (then Shift+1, Shift+2… to say whom: the player that many places to your left)`],
    ["Shift+K / Shift+L", "double calls, where the rules allow them"],
    ["G / Shift+G", "make your pair's signal (first / second)"],
    ["E", "the other gestures (decoys): open or close the palette"],
    ["Z", "stall: nobody wants the middle (or Sweep, Fresh middle)"],
    ["X", "object to a stall: you still want a card there"],
    ["O", "Go! (the dealer, on a Go start)"],
    ["P", "pick up / lay down (tables that hold a fifth card)"],
    ["Shift+1 Shift+2 …", "look at the player 1, 2… places to your left (or point at them): they are drawn large"],
    ["C / V", "look at the middle / at your cards"],
    ["R", "Ready, in the huddle;  Shift+A: agree the ticked signals"],
    ["M", "sound on or off"],
    ["N", "captions on or off: each gesture you see written on the person"],
    ["?", "this list"],
  ];
}

export function buildHelp() {
  const dl = $("keys-list");
  dl.innerHTML = "";
  for (const [k, what] of keyList(S.room ? callWords() : undefined)) {
    dl.append(h("dt", {}, ...(k ? k.split(" ").map((part) => (part === "/" ? " / " : h("kbd", { text: part }))) : [])));
    dl.append(h("dd", { text: what }));
  }
}
export function toggleHelp(show) {
  const box = $("help");
  box.hidden = show === undefined ? !box.hidden : !show;
  if (!box.hidden) { buildHelp(); $("help-close").focus(); }
}

function runAction(id) {
  const a = actionList().find((x) => x.id === id);
  if (a && !a.disabled) { a.run(); render(); return true; }
  return false;
}

const MIDDLE = { 1: 0, 2: 1, 3: 2, 4: 3 };
const HAND = { a: 0, s: 1, d: 2, f: 3, h: 4 };

export function wireKeys() {
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (t && (t.tagName === "INPUT" && t.type !== "checkbox" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    const key = ev.key;
    if (key === "Escape") {
      S.selHand = []; S.selMid = []; closePicker(); togglePalette(false); toggleHelp(false); banner.hide();
      if (S.view) { renderCards(); renderActions(); }
      return;
    }
    if (key === "?") { toggleHelp(); ev.preventDefault(); return; }
    if (key === "m" || key === "M") { setMuted(!muted()); return; }
    if (key === "n" || key === "N") { setCaptions(!captionsOn()); return; }
    if (document.body.dataset.screen !== "game" || !S.view) return;
    // Whom to stop, while the choice is open: Shift+1..9, the player that many places to your
    // left (the key on their person); the middle's keys 1-4 stay the middle's.
    const pick = pickerKey(ev);
    if (pick) { pick.click(); ev.preventDefault(); return; }
    // Looking, for players and spectators alike (at a table without attention: who is drawn large).
    const look = lookKey(ev);
    if (look !== undefined) { lookAt(look); ev.preventDefault(); return; }
    if (S.view.seat === null) return;
    const v = S.view, lower = key.toLowerCase();
    let done = false;
    if (key in MIDDLE && v.middle[MIDDLE[key]]) { clickCard("middle", v.middle[MIDDLE[key]]); done = true; }
    else if (!ev.shiftKey && lower in HAND && v.hand[HAND[lower]]) { clickCard("hand", v.hand[HAND[lower]]); done = true; }
    else if (lower === "k") done = runAction(ev.shiftKey ? "double_kemps" : "kemps");
    else if (lower === "l") done = runAction(ev.shiftKey ? "double_stop" : "stop");
    else if (lower === "z") done = runAction("stall");
    else if (lower === "x") done = runAction("object");
    else if (lower === "o") done = runAction("go");
    else if (lower === "p") done = runAction("hold");
    else if (lower === "e" && !ev.shiftKey && !$("gestures-toggle").hidden) { togglePalette(); done = true; }
    else if (lower === "g" && paletteShown()) {
      const g = v.signals[ev.shiftKey ? 1 : 0];
      if (g && v.phase !== "over") { sendAction({ type: "gesture", gesture: g }); done = true; }
    } else if (lower === "r" && v.phase === "huddle") { send({ type: "ready" }); done = true; }
    else if (ev.shiftKey && lower === "a" && v.phase === "huddle") { agreeDraft(); done = true; }
    if (done) ev.preventDefault();
  });
}
