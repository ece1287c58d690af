// The log ("At the table") and what each event does on the page: the last move under each seat,
// the bubbles, the call banner, the result of the hand, the recap of the match, the sounds.
// Every line's words come from the server (an event's `text`, kemps.narrate for this seat, null
// for an event not worth a line): every screen words a move the same way.
import { cardShort, cardsShort } from "./cards.js";
import { $, h } from "./dom.js";
import { banner } from "./banner.js";
import { captionsOn, showGesture, showMoved } from "./people.js";
import { play } from "./sound.js";
import { S, callWords, gestureLabel, gestureShort, nameOf, pairMembers, rules, setClock } from "./state.js";

const LOG_MAX = 120;
const CLASS = { hand_dealt: "sep", hand_ended: "sep", match_ended: "sep", called: "call",
  signals_agreed: "secret", signals_proposed: "secret", signals_declined: "secret", chatted: "chat", table_talk_ruled: "wrong" };

export function logLine(text, cls = "") {
  const ol = $("log");
  ol.append(h("li", { class: cls, text }));
  while (ol.children.length > LOG_MAX) ol.firstChild.remove();
  ol.scrollTop = ol.scrollHeight;
}
export function clearLog() { $("log").innerHTML = ""; handOn = false; }

// The server's sentence with card codes as faces ("AD" -> "A♦") and gesture names as words.
export function faces(text) {
  if (!text) return text;
  return text.replace(/\b([2-9TJQKA][CDHS])(\.\d)?\b/g, (t) => cardShort(t))
    .replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (g) => (S.gestures[g] ? gestureShort(g) : g));
}

// "Stop Kemps on Ben & Dev": a call's words for the banner and the result (names, not sentences).
export function callText(e) {
  const base = callWords()[e.kind] || e.kind;
  if (e.on_seat !== null && e.on_seat !== undefined) return `${base} on ${nameOf(e.on_seat)}`;
  if (e.on_pair !== null && e.on_pair !== undefined) return `${base} on ${pairMembers(e.on_pair)}`;
  return base;
}
function classOf(e) {
  if (e.type === "call_judged") return e.right ? "right" : "wrong";
  if (e.type === "gestured") return e.heard ? "heard" : "seen";
  return CLASS[e.type] || "";
}

const newResult = () => ({ calls: [], scored: [], revealed: {}, reason: null, hand: null });

// Attention tables: during a hand the log holds back the lines of gestures and looks (a running
// text would show everyone everything); they show once the hand is over. What this page saw is
// in the "You saw" strip (S.saw).
const HELD = new Set(["gestured", "moved", "gesture_seen", "looked"]);
let handOn = false;
function saw(seat, gesture, heard) {
  if (!rules().attention || (S.view && seat === S.view.seat)) return;
  S.saw.push(`${nameOf(seat)} ${gestureLabel(gesture)}${heard ? " (heard)" : ""}`);
  if (S.saw.length > 12) S.saw.shift();
}
// The gesture on the person; at an attention table a caption only with captions on (the CC
// button, or reduced motion), and heard gestures as before (everyone hears them); at any other
// table the caption as always.
function gestureShown(seat, gesture, heard) {
  showGesture(seat, gesture, heard);
  if (!rules().attention || heard) bubble(seat, gestureLabel(gesture), heard ? "heard" : "seen");
  else if (captionsOn()) bubble(seat, gestureLabel(gesture), "caption");
}

// `live`: the events just happened (bubbles, banner, sounds); false when replaying the log a
// reload or a late spectator is sent with the state.
export function onEvents(events, live = true) {
  for (const e of events) {
    if (live && typeof e.t === "number") setClock(e.t);
    const text = faces(e.text);
    const held = handOn && HELD.has(e.type) && rules().attention;
    if (text) logLine(text, `${classOf(e)}${held ? " held" : ""}`);
    switch (e.type) {
      case "hand_dealt":
        S.last = {}; S.result = null; S.selHand = []; S.selMid = []; S.handNo = e.hand_no; S.pending = null;
        S.takenBy = {}; S.partnerSignal = null; S.saw = []; handOn = true;
        // A new hand: back to the top, where the middle and your cards are (a phone may have been
        // scrolled down to the score or the log between hands).
        if (live) { banner.hide(); window.scrollTo(0, 0); }
        break;
      case "swapped":
        S.last[e.seat] = `took ${cardsShort(e.took)} · gave ${cardsShort(e.gave)}`;
        for (const c of e.took) S.takenBy[c] = e.seat;
        for (const s of e.slots || []) S.flash[s] = performance.now();
        if (S.pending && e.seat === S.seat) S.pending = null;
        if (live) { play("swap"); if (e.seat !== S.seat) flyTo(e.seat, e.slots || []); }
        break;
      case "grabbed":
        S.last[e.seat] = `picked up ${cardsShort(e.took)}`;
        for (const c of e.took) S.takenBy[c] = e.seat;
        if (S.pending && e.seat === S.seat) S.pending = null;
        if (live) play("swap");
        break;
      case "discarded":
        S.last[e.seat] = `laid down ${cardsShort(e.gave)}`;
        for (const s of e.slots || []) S.flash[s] = performance.now();
        if (S.pending && e.seat === S.seat) S.pending = null;
        break;
      case "hold_expired": S.last[e.seat] = `put back ${cardsShort(e.returned)}`; break;
      case "stall_proposed":
        if (e.seat !== null) S.last[e.seat] = e.auto ? "calls a stall (idle)" : e.deadline === null ? "wants a fresh middle" : "calls a stall";
        break;
      case "objected": S.last[e.seat] = "objects!"; break;
      case "objection_lapsed": S.last[e.seat] = "objection lapsed"; break;
      case "gestured":
      case "gesture_seen":
        // Your partner just made your pair's signal: the hint says so (everyone who saw the
        // gesture saw it; only your pair knows what it means).
        if (live && S.view && S.view.seat !== null && e.seat === S.view.partner && S.view.signals.includes(e.gesture))
          S.partnerSignal = { at: performance.now(), gesture: e.gesture };
        if (handOn) saw(e.seat, e.gesture, !!e.heard);
        if (live) {
          gestureShown(e.seat, e.gesture, !!e.heard);
          if (e.heard) play("gesture", e.gesture);
        }
        break;
      case "chatted": if (live) bubble(e.seat, `“${e.text}”`, "chat"); break;
      // Attention tables: a gesture you did not see is only a slight movement of that person
      // (one your look caught in time, gesture_seen, is shown as seen, above).
      case "moved": if (live) showMoved(e.seat); break;
      case "called": {
        const word = callWords()[e.kind] || e.kind;
        S.last[e.seat] = `called ${word}`;
        S.result = S.result || newResult();
        S.result.calls.push({ seat: e.seat, kind: e.kind, on_seat: e.on_seat, on_pair: e.on_pair, text: callText(e), right: undefined });
        if (live) {
          bubble(e.seat, `${word}!`, "call");
          banner.call(`${nameOf(e.seat)}: ${word}!`, callText(e) !== word ? callText(e).slice(word.length).trim() : "");
          play("call");
        }
        break;
      }
      case "call_void":
        if (live) banner.line(`Void: ${nameOf(e.held_by)} is holding five cards.`);
        break;
      case "revealed":
        S.result = S.result || newResult();
        S.result.revealed[e.seat] = e.cards;
        if (live) banner.reveal(nameOf(e.seat), e.cards);
        break;
      case "call_judged": {
        S.result = S.result || newResult();
        const c = [...S.result.calls].reverse().find((x) => x.seat === e.seat && x.kind === e.kind && x.right === undefined);
        if (c) c.right = e.right;
        if (live) { banner.judged(e.right); play(e.right ? "right" : "wrong"); }
        break;
      }
      case "scored": {
        S.result = S.result || newResult();
        S.result.scored.push(e);
        if (live) banner.line(scoreLine(e), "score");
        break;
      }
      case "match_ended": if (live) banner.shorten(4000); break;
      case "hand_ended":
        S.result = S.result || newResult();
        S.result.reason = e.reason; S.result.hand = e.hand_no; S.result.decided = e.decided;
        // The hand is over: the log shows everything it held back.
        handOn = false;
        for (const li of document.querySelectorAll("#log li.held")) li.classList.remove("held");
        S.recap = S.recap.filter((x) => x.hand !== e.hand_no);
        S.recap.push({ ...S.result, spelled: S.view ? [...S.view.spelled] : [] });
        if (live && e.reason === "real_deal") banner.call("The stock ran out", "a real deal: no letters");
        break;
      default: break;
    }
  }
}

// "Alice & Cara take a letter: K-E" (letters) or "... score 2 points: 5 in all" (points).
export function scoreLine(sc, spelled) {
  const word = spelled || (S.view ? S.view.spelled[sc.pair] : "");
  return sc.unit === "letter"
    ? `${pairMembers(sc.pair)} take ${sc.amount > 1 ? `${sc.amount} letters` : "a letter"}${word ? `: ${word}` : ""}`
    : `${pairMembers(sc.pair)} score ${sc.amount} point${sc.amount === 1 ? "" : "s"}: ${sc.total} in all`;
}

// A refusal in plain words. Losing a race (card_gone) names who was first, from the updates that
// told this page who took the card; card codes become faces ("2♣").
export function refusal(m, pending) {
  if (m.code === "card_gone" && pending) {
    const lost = pending.take.find((c) => !(S.view && S.view.middle.includes(c))) || pending.take[0];
    const by = S.takenBy ? S.takenBy[lost] : undefined;
    if (by !== undefined && by !== S.seat) return `${nameOf(by)} was first: they took the ${cardShort(lost)}.`;
    return `Too late: the ${cardShort(lost)} is gone from the middle.`;
  }
  return faces(m.message || "The table refused that.");
}

export function bubble(seat, text, kind) {
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

// A card-sized ghost flies from the middle slot to the seat that took it.
function flyTo(seat, slots) {
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const target = document.querySelector(`#seats .seat[data-seat="${seat}"] .plate`);
  for (const i of slots) {
    const from = document.querySelector(`#middle [data-index="${i}"]`);
    if (!from || !target) continue;
    const a = from.getBoundingClientRect(), b = target.getBoundingClientRect();
    const ghost = h("div", { class: "card back ghost", "aria-hidden": "true",
      style: `left:${a.left}px;top:${a.top}px;width:${a.width}px;height:${a.height}px` });
    document.body.append(ghost);
    const dx = b.left + b.width / 2 - (a.left + a.width / 2), dy = b.top + b.height / 2 - (a.top + a.height / 2);
    ghost.animate([{ transform: "translate(0,0) scale(1)", opacity: 0.9 },
      { transform: `translate(${dx}px,${dy}px) scale(.3)`, opacity: 0.2 }], { duration: 450, easing: "ease-in" })
      .onfinish = () => ghost.remove();
  }
}
