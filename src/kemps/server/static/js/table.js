// The table: the seats around the felt, the middle, your hand, your calls and your signal.
import { lagText } from "./tables.js";
import { cardFace, cardName, cardShort, fourOfAKind, parseCard } from "./cards.js";
import { $, h } from "./dom.js";
import { paletteShown } from "./camera.js";
import { renderHuddle } from "./huddle.js";
import { lookKeyFor, myLook, wireLook } from "./looks.js";
import { updatePeople } from "./people.js";
import { buildSeats, seatPos, setNear } from "./seats.js";
import { renderMatchEnd, renderResult } from "./result.js";
import { render } from "./render.js";
import { send, sendAction, sendSwap } from "./socket.js";
import { api, toast } from "./ui.js";
import { S, allowedGestures, callWords, dealerName, gestureLabel, gestureShort, isHost,
  pairMembers, rules, setRoom, tableNow } from "./state.js";

export { seatPos };
export const narrowQuery = window.matchMedia("(max-width: 600px)");
narrowQuery.addEventListener("change", () => render());

export function renderGame() {
  const v = S.view, room = S.room, r = room.rules, n = v.names.length;
  const me = v.seat;
  const bottom = me !== null ? me : 0;
  const seatsEl = $("seats");
  const narrow = narrowQuery.matches;
  buildSeats(seatsEl, $("felt"), { n, bottom, narrow, wire: (el, s) => {
    wireLook(el.querySelector(".person-box"), s);
    wireLook(el.querySelector(".plate"), s);
  } });
  // "Play against bots": Ready at once for the first deal (the huddle can still be used later).
  if (S.autoReady === S.code && me !== null && v.phase === "huddle" && room.seats[me] && !room.seats[me].ready) {
    S.autoReady = null;
    send({ type: "ready" });
  }
  const looking = myLook();
  const where = (at) => (at === "middle" ? "the middle" : at === "hand" ? "their cards" : typeof at === "number" ? v.names[at] : null);
  for (const el of seatsEl.children) {
    const s = Number(el.dataset.seat);
    const seatInfo = room.seats[s] || {};
    const tags = [];
    if (s === me) tags.push("you");
    else if (me !== null && s === v.partner) tags.push("partner");
    if (s === v.dealer) tags.push("dealer");
    if (seatInfo.kind === "bot") tags.push("bot");
    if (seatInfo.kind === "human" && seatInfo.stand_in) tags.push("bot plays");
    else if (seatInfo.kind === "human" && !seatInfo.connected && s !== me) tags.push("away");
    if (v.phase === "huddle" && seatInfo.ready) tags.push("ready");
    if (v.holding.includes(s)) tags.push("holding five");
    // Attention tables: who looks at you (everyone sees every look).
    if (r.attention && me !== null && s !== me && v.looks && v.looks[s] === me) tags.push("looks at you");
    // A person who took a bot's seat between hands (an open table) is named as the room seats
    // them; the match's own names (its record's, the log's) keep the bot's until it ends.
    el.querySelector(".seat-name").textContent = (seatInfo.kind === "human" && seatInfo.name) || v.names[s];
    const lag = el.querySelector(".lag");
    if (lag) lag.textContent = lagText(s);
    const tagEl = el.querySelector(".tags");
    tagEl.innerHTML = "";
    const tagTitle = { away: `Gone from the table: after ${room.away_grace_s || 30} s a bot plays for them until they return`,
      "bot plays": `A ${seatInfo.stand_in} bot plays for ${v.names[s]} until they return` };
    for (const t of tags) tagEl.append(h("span", { class: `tag tag-${t.replace(/ /g, "-")}`, title: tagTitle[t] || null, text: t }));
    el.classList.toggle("me", s === me);
    el.classList.toggle("partner", me !== null && s === v.partner);
    el.classList.toggle("dealer", s === v.dealer);
    el.classList.toggle("looks-at-me", tags.includes("looks at you"));
    const cards = el.querySelector(".seat-cards");
    cards.innerHTML = "";
    const shown = v.revealed[String(s)];
    if (shown) {
      cards.classList.add("revealed");
      for (const c of shown) cards.append(cardFace(c, "div", { class: "mini", role: "img", "aria-label": cardName(c) }));
      cards.setAttribute("aria-label", `${v.names[s]} shows ${shown.map(cardName).join(", ")}`);
    } else {
      cards.classList.remove("revealed");
      if (s !== me) for (let i = 0; i < v.hand_counts[s]; i++) cards.append(h("div", { class: "card back mini", "aria-hidden": "true" }));
      cards.setAttribute("aria-label", s === me ? "" : `${v.names[s]} holds ${v.hand_counts[s]} cards`);
    }
    el.querySelector(".last").textContent = S.last[s] || "";
    // Attention tables: where each player looks is public (the person's head shows it).
    const at = r.attention && v.looks && v.looks.length ? where(v.looks[s]) : null;
    el.setAttribute("aria-label", `${v.names[s]}${tags.length ? `, ${tags.join(", ")}` : ""}${at ? `, looks at ${at}` : ""}`);
    // A hover or a tap on a player (person or plate) turns your look to them (js/looks.js).
    const plate = el.querySelector(".plate"), who = el.querySelector(".person-box");
    const lookable = !!(r.attention && s !== me);
    who.classList.toggle("lookable", lookable);
    plate.classList.toggle("lookable", lookable);
    plate.classList.toggle("looked-at", !!(r.attention && looking === s));
    const key = lookable ? lookKeyFor(s) : "";
    el.querySelector(".person-key").textContent = key;
    el.querySelector(".person-key").hidden = !key;
    const title = lookable ? (looking === s ? `You are looking at ${v.names[s]}` : `Look at ${v.names[s]}${key ? ` (${key.replace("⇧", "Shift+")})` : ""}`) : "";
    plate.title = title;
    who.title = title;
  }
  const watching = me === null;
  $("watching").hidden = !watching;
  const sp = room.spectators || { watching: 0 };
  $("watchers").textContent = sp.watching ? `${sp.watching} watching` : "";
  $("watchers").hidden = !sp.watching;
  renderHostPanel();
  renderCards();
  renderCenter();
  renderActions();
  renderGestures();
  renderScores();
  renderHuddle();
  renderResult();
  renderMatchEnd();
  $("chat-form").hidden = !(r.table_chat && me !== null);
  $("middle").classList.toggle("looked-at", !!(r.attention && looking === "middle"));
  $("hand").classList.toggle("looked-at", !!(r.attention && looking === "hand"));
  updatePeople(r.attention && v.looks && v.looks.length ? v.looks : null);
  setNear(seatsEl, nearSeat());
}

/** The player drawn large: the one you look at (attention tables: your look as the table knows
 * it, so what is large is what you can see); elsewhere the one you last pointed at, your partner
 * at first. */
export function nearSeat() {
  const v = S.view;
  if (!v) return null;
  if (rules().attention) {
    const at = myLook();
    return typeof at === "number" && at !== v.seat ? at : null;
  }
  if (typeof S.focus === "number" && S.focus !== v.seat && S.focus < v.names.length) return S.focus;
  return v.seat === null ? null : v.partner;
}

function focusKey() {
  const a = document.activeElement;
  if (!a || !a.dataset || !a.dataset.zone) return null;
  return { zone: a.dataset.zone, card: a.dataset.card, index: a.dataset.index };
}
function restoreFocus(k) {
  if (!k) return;
  let el = document.querySelector(`[data-zone="${k.zone}"][data-card="${CSS.escape(k.card || "")}"]`);
  if (!el) el = document.querySelector(`[data-zone="${k.zone}"][data-index="${k.index}"]`);
  if (el) el.focus();
}

const HAND_KEYS = ["A", "S", "D", "F", "H"];
let nudgeTimer = null;
export function renderCards() {
  const v = S.view;
  if (!v) return;
  const fk = focusKey();
  const inHand = v.phase === "dealt" || v.phase === "play";
  const me = v.seat;
  S.selHand = S.selHand.filter((c) => v.hand.includes(c));
  S.selMid = S.selMid.filter((c) => v.middle.includes(c));
  const p = S.pending;
  const hand = $("hand");
  $("me").hidden = me === null;
  // Each row is rebuilt only when what it shows changed: an update that leaves your hand as it
  // was (another player's swap) must not cancel a drag or a focus in progress.
  const handKey = JSON.stringify([v.hand, S.selHand, p ? p.give : null, inHand, me]);
  if (hand.dataset.key !== handKey) {
    hand.dataset.key = handKey;
    hand.innerHTML = "";
    v.hand.forEach((c, i) => {
      const sel = S.selHand.includes(c);
      const pend = p && p.give.includes(c);
      const b = cardFace(c, "button", { type: "button", class: `big ${sel ? "selected" : ""} ${pend ? "pending" : ""}`,
        "aria-label": `${cardName(c)}, your hand`, "aria-pressed": sel ? "true" : "false",
        "data-zone": "hand", "data-index": i, draggable: inHand ? "true" : null });
      b.append(h("kbd", { class: "key", "aria-hidden": "true", text: HAND_KEYS[i] || "" }));
      b.disabled = !inHand;
      b.addEventListener("click", () => clickCard("hand", c));
      wireDrag(b, "hand", c);
      hand.append(b);
    });
  }
  const mid = $("middle");
  const now = performance.now();
  const fresh = v.middle.map((c, i) => !!(S.flash[i] && now - S.flash[i] < 900));
  const midKey = JSON.stringify([v.middle, S.selMid, p ? p.take : null, inHand, me, v.middle_face_down, v.phase, v.hand_no, fresh]);
  if (mid.dataset.key !== midKey) {
    mid.dataset.key = midKey;
    mid.innerHTML = "";
    v.middle.forEach((c, i) => {
      let el;
      if (c) {
        const sel = S.selMid.includes(c);
        const pend = p && p.take.includes(c);
        el = cardFace(c, "button", { type: "button", class: `big ${sel ? "selected" : ""} ${fresh[i] ? "fresh" : ""} ${pend ? "pending" : ""}`,
          "aria-label": `${cardName(c)}, in the middle`, "aria-pressed": sel ? "true" : "false",
          "data-zone": "middle", "data-index": i, draggable: inHand && me !== null ? "true" : null });
        if (me !== null) el.append(h("kbd", { class: "key", "aria-hidden": "true", text: String(i + 1) }));
        el.disabled = !inHand || me === null;
        el.addEventListener("click", () => clickCard("middle", c));
        wireDrag(el, "middle", c);
      } else {
        const down = v.middle_face_down || (inHand && v.hand_no > 0 && v.phase === "dealt");
        el = h("div", { class: `card big ${inHand && (down || v.middle_face_down) ? "back" : "slot"}`, role: "img",
          "aria-label": inHand ? (v.middle_face_down ? "a face-down card" : "an empty place") : "no card", "data-index": i });
      }
      mid.append(el);
    });
  }
  restoreFocus(fk);
  $("hint").textContent = hintText();
  $("hint").classList.toggle("nudge", hintIsNudge);
  // The partner's-signal nudge fades by itself.
  clearTimeout(nudgeTimer);
  if (S.partnerSignal) nudgeTimer = setTimeout(() => { if (S.view) renderCards(); }, 8100);
}

let hintIsNudge = false;
function hintText() {
  const v = S.view, r = rules(), me = v.seat;
  hintIsNudge = false;
  if (me === null || v.phase !== "play") return "";
  if (S.pending) return `Swapping ${S.pending.give.map(cardShort).join(" ")} for ${S.pending.take.map(cardShort).join(" ")}…`;
  if (v.holding.includes(me)) return "You hold five: pick the card(s) to lay down, then press Lay down (P).";
  const ps = S.partnerSignal;
  if (ps && performance.now() - ps.at < 8000 && !S.selHand.length && !S.selMid.length) {
    hintIsNudge = true;
    return `${v.names[v.partner]} just gave your signal (${gestureShort(ps.gesture)}): call ${callWords().kemps}!${narrowQuery.matches ? "" : " (K)"}`;
  }
  const four = fourOfAKind(v.hand);
  if (four && !S.selHand.length && !S.selMid.length) {
    hintIsNudge = true;
    const rank = parseCard(`${four}C`).rank;
    return v.signals.length && paletteShown()
      ? `You hold four ${rank}s! Give your partner your signal (${gestureShort(v.signals[0])}, key G) so they call ${callWords().kemps}, before anyone stops you.`
      : `You hold four ${rank}s! Your partner should call ${callWords().kemps} — catch their eye.`;
  }
  if (S.selHand.length || S.selMid.length)
    return `${[S.selHand.length ? `Yours: ${S.selHand.map(cardShort).join(" ")}.` : "",
      S.selMid.length ? `From the middle: ${S.selMid.map(cardShort).join(" ")}.` : ""].filter(Boolean).join(" ")} ${r.multi_swap ? "The swap goes when both sides have as many cards." : (S.selHand.length ? "Now pick a card in the middle." : "Now pick one of your cards.")} Esc clears.`;
  const touch = narrowQuery.matches;
  const yours = touch ? "" : " (A S D F)", theirs = touch ? "" : " (1 2 3 4)", more = touch ? "" : " ? lists the keys.";
  return r.multi_swap ? `Swap: pick your card(s)${yours}, then as many in the middle${theirs}.${more}`
    : `Swap: pick one of your cards${yours}, then one in the middle${theirs}.${more}`;
}

function wireDrag(el, zone, card) {
  el.addEventListener("dragstart", (ev) => { ev.dataTransfer.setData("text/plain", `${zone}:${card}`); ev.dataTransfer.effectAllowed = "move"; });
  el.addEventListener("dragover", (ev) => { ev.preventDefault(); el.classList.add("drop"); });
  el.addEventListener("dragleave", () => el.classList.remove("drop"));
  el.addEventListener("drop", (ev) => {
    ev.preventDefault(); el.classList.remove("drop");
    const [fromZone, ...rest] = (ev.dataTransfer.getData("text/plain") || "").split(":");
    const from = rest.join(":");
    if (!from || fromZone === zone) return;
    const take = zone === "middle" ? card : from, give = zone === "hand" ? card : from;
    S.selHand = []; S.selMid = [];
    sendSwap([take], [give]);
    renderCards();
  });
}

export function clickCard(zone, card) {
  const v = S.view, r = rules();
  if (!v || v.seat === null) return;
  const mine = zone === "hand" ? "selHand" : "selMid";
  const other = zone === "hand" ? "selMid" : "selHand";
  const holding = v.holding.includes(v.seat);
  if (S[mine].includes(card)) S[mine] = S[mine].filter((c) => c !== card);
  else if (r.multi_swap || holding) S[mine] = [...S[mine], card];
  else S[mine] = [card];
  if (!holding && S[other].length && S[mine].length === S[other].length) {
    const take = S.selMid, give = S.selHand;
    S.selHand = []; S.selMid = [];
    sendSwap(take, give);
  }
  renderCards();
  renderActions();
}

function renderCenter() {
  const v = S.view, room = S.room;
  let note = "";
  if (v.phase === "huddle") note = v.hand_no === 0 ? "The first hand is about to be dealt" : "Between hands";
  else if (v.phase === "dealt") {
    if (v.middle_face_down && v.opens_at !== null) note = "Get ready…";
    else if (v.dealer === null && v.opens_at !== null) note = "The dealer says Go in a moment…";
    else if (room.rules.start === "on_go") note = v.seat === v.dealer ? "Say Go when everyone is ready (O)" : `Waiting for ${dealerName(v.dealer)} to say Go`;
  } else if (v.phase === "over") note = "Match over";
  $("center-note").textContent = note;
  $("center-note").hidden = !note;
  $("middle").hidden = v.phase === "huddle" || v.phase === "over";
  $("stock").textContent = v.phase === "huddle" || v.phase === "over" ? "" : `Stock: ${v.stock_count} card${v.stock_count === 1 ? "" : "s"}`;
  renderYouSaw();
  updateTimers();
}

// Attention tables: the gestures this page saw in the hand, newest last (there is no running text
// of gestures in the log during a hand). A screen reader hears each one (aria-live).
export function renderYouSaw() {
  const v = S.view, box = $("you-saw");
  const show = !!(rules().attention && v && (v.phase === "dealt" || v.phase === "play") && S.saw.length);
  box.hidden = !show;
  const text = show ? S.saw.slice(-3).join(" · ") : "";
  const list = $("you-saw-list");
  if (list.textContent !== text) list.textContent = text;
}

export function updateTimers() {
  const v = S.view, room = S.room;
  if (!v || !room) return;
  const now = tableNow();
  let stall = "";
  if (v.phase === "play") {
    if (v.stall_deadline !== null) stall = v.objectors.length ? `Stall paused: ${v.objectors.map((s) => v.names[s]).join(", ")} objected` : `Stalled: fresh middle ${v.stall_deadline - now > 0.5 ? `in ${(v.stall_deadline - now).toFixed(0)} s` : "now"}${v.seat !== null && !v.objectors.includes(v.seat) && !narrowQuery.matches ? " (Object if you still want a card)" : ""}`;
    else if (v.agreed.length) stall = `${v.agreed.length} of ${v.names.length} want a fresh middle`;
  }
  $("stall").textContent = stall;
  if (v.phase === "dealt" && v.opens_at !== null) $("center-note").textContent = v.middle_face_down
    ? `Cards turn in ${Math.max(0, Math.ceil(v.opens_at - now))}…` : `The dealer says Go in ${Math.max(0, Math.ceil(v.opens_at - now))} s…`;
  let dc = "";
  if (room.status === "playing" && v.phase === "huddle") {
    if (room.deal_at !== null && room.deal_at !== undefined) {
      const left = Math.max(0, Math.ceil(room.deal_at - now));
      dc = `${v.hand_no === 0 ? "First deal" : `Hand ${v.hand_no + 1}`} in ${left} s`;
      if ($("center-note").textContent && !$("center-note").hidden) $("center-note").textContent = dc;
    } else dc = "Waiting for the deal";
  }
  $("deal-countdown").textContent = dc;
}

// The calls and table actions this seat may make now (the view's `legal`, from the engine's own
// checks), each with its key.
export function actionList() {
  const v = S.view, r = rules(), me = v ? v.seat : null;
  const out = [];
  if (!v || me === null) return out;
  const legal = v.legal || {};
  const inHand = v.phase === "dealt" || v.phase === "play";
  const words = callWords();
  if (r.start === "on_go" && v.phase === "dealt" && me === v.dealer)
    out.push({ id: "go", label: "Go!", key: "O", cls: "primary go", aria: "Go: start play", run: () => sendAction({ type: "go" }) });
  // A dealer who is not playing (S2 tournament row 7) is the table; the host may act for it.
  const hostDeals = v.dealer === null && isHost();
  if (hostDeals && r.start === "on_go" && v.phase === "dealt")
    out.push({ id: "go", label: "Go! (as dealer)", key: "O", cls: "primary go", aria: "Go: start play, as the dealer",
      title: "This table's dealer does not play: the table says Go by itself in a moment. As host you may say it now for everyone.",
      run: () => sendAction({ type: "go", as_dealer: true }) });
  if (!inHand) return out;
  const holding = v.holding.includes(me);
  if (r.hold_limit_s > 0) {
    if (holding) out.push({ id: "hold", label: "Lay down", key: "P", aria: "Lay down the selected cards", disabled: !S.selHand.length,
      run: () => { sendAction({ type: "discard", give: S.selHand }); S.selHand = []; } });
    else out.push({ id: "hold", label: "Pick up", key: "P", aria: "Pick up the selected middle cards", disabled: !(S.selMid.length && !S.selHand.length),
      run: () => { sendAction({ type: "grab", take: S.selMid }); S.selMid = []; } });
  }
  if (hostDeals && v.phase === "play")
    out.push({ id: "stall", label: "Sweep (as dealer)", key: "Z", aria: "Sweep the middle, as the dealer",
      title: "This table's dealer does not play: it sweeps a middle nobody wants by itself. As host you may sweep now, for everyone: use it fairly.",
      run: () => sendAction({ type: "stall", as_dealer: true }) });
  if (r.sweep === "dealer_only") {
    if (me === v.dealer) out.push({ id: "stall", label: "Sweep", key: "Z", aria: "Sweep the middle (stall)", title: "Nobody wants the middle: sweep it and deal four fresh cards", run: () => sendAction({ type: "stall" }) });
  } else if (r.sweep === "all_agree") {
    out.push({ id: "stall", label: `Fresh middle${v.agreed.length ? ` (${v.agreed.length}/${v.names.length})` : ""}`, key: "Z",
      disabled: v.agreed.includes(me), aria: "Stall: agree to a fresh middle", title: "When everyone agrees, the middle is swept and four fresh cards dealt",
      run: () => sendAction({ type: "stall" }) });
  } else {
    out.push({ id: "stall", label: "Stall", key: "Z", disabled: v.stall_deadline !== null, aria: "Stall: the middle has stalled",
      title: `Nobody is taking from the middle: after ${r.sweep_countdown_s} s it is swept and four fresh cards dealt, unless someone objects`,
      run: () => sendAction({ type: "stall" }) });
    out.push({ id: "object", label: "Object", key: "X", disabled: v.stall_deadline === null || v.objectors.includes(me) || legal.object === false, aria: "Object to the stall",
      title: `You still want a card in the middle: hold the countdown until you take one (lapses after ${r.objection_s} s; once a stall)`,
      run: () => sendAction({ type: "object" }) });
  }
  out.push({ id: "kemps", label: `${words.kemps}!`, key: "K", cls: "call", aria: `${words.kemps}: call on your partner`,
    title: "Your partner holds four of a kind", disabled: legal.kemps === false, run: () => call("kemps") });
  out.push({ id: "stop", label: `${words.stop}!`, key: "L", cls: "call stop", aria: `${words.stop}: call on an opponent`,
    title: "An opponent holds four of a kind", disabled: !(legal.stop || []).length && v.legal !== null && v.legal !== undefined, run: () => call("stop") });
  if (r.double_calls) {
    out.push({ id: "double_kemps", label: `${words.double_kemps}!`, key: "⇧K", cls: "call", aria: words.double_kemps, disabled: legal.double_kemps === false, run: () => call("double_kemps") });
    out.push({ id: "double_stop", label: `${words.double_stop}!`, key: "⇧L", cls: "call stop", aria: words.double_stop, run: () => call("double_stop") });
  }
  return out;
}

export function renderActions() {
  pickerStillFits();
  const bar = $("actions");
  bar.innerHTML = "";
  for (const a of actionList()) {
    const b = h("button", { type: "button", class: a.cls || "", "data-action": a.id, "aria-label": a.aria || null,
      title: a.title ? `${a.title} (key ${a.key})` : `Key ${a.key}`, onclick: () => { a.run(); render(); } },
    a.label, h("kbd", { class: "key", "aria-hidden": "true", text: a.key }));
    b.disabled = !!a.disabled;
    bar.append(b);
  }
}

// Whom a Stop call can be on: the view lists it, from the engine's own rule (kemps.scoring).
// Each target's key is Shift and how many places to your left they sit (a pair: its nearer
// player), as on their person; the middle's keys 1-4 stay the middle's while the choice is open.
function stopTargets(kind) {
  const v = S.view, n = v.names.length;
  const legal = v.legal || {};
  const listed = kind === "stop" ? legal.stop : legal.double_stop;
  const place = (s) => (s - v.seat + n) % n;
  return (listed || []).map((t) => (t.on_seat !== null
    ? { label: v.names[t.on_seat], action: { on_seat: t.on_seat }, k: place(t.on_seat) }
    : { label: pairMembers(t.on_pair), action: { on_pair: t.on_pair }, k: Math.min(place(t.on_pair), place(t.on_pair + n / 2)) }));
}

let pickerFor = null; // the phase and hand the open choice belongs to
export function closePicker() { $("picker").hidden = true; pickerFor = null; }
/** The picker's button for a Shift+digit key, while the choice is open; else null. */
export function pickerKey(ev) {
  const picker = $("picker");
  if (picker.hidden || !ev.shiftKey || !/^Digit[1-9]$/.test(ev.code || "")) return null;
  return picker.querySelector(`[data-pick="${ev.code.slice(5)}"]`);
}
// The choice belongs to the moment it was opened for: any change of phase or hand closes it.
function pickerStillFits() {
  const v = S.view;
  if (pickerFor && (!v || v.phase !== pickerFor.phase || v.hand_no !== pickerFor.hand)) closePicker();
}

export function call(kind) {
  const picker = $("picker");
  if (kind === "kemps" || kind === "double_kemps") { sendAction({ type: "call", kind }); return; }
  const targets = stopTargets(kind);
  if (targets.length === 1) { sendAction({ type: "call", kind, ...targets[0].action }); return; }
  const word = callWords()[kind];
  picker.innerHTML = "";
  picker.append(h("span", { class: "picker-q", text: `${word} on:` }));
  for (const t of targets) picker.append(h("button", { type: "button", class: "call stop", "aria-label": `${word} on ${t.label} (Shift+${t.k})`, "data-pick": t.k,
    onclick: () => { closePicker(); sendAction({ type: "call", kind, ...t.action }); } }, t.label, h("kbd", { class: "key", "aria-hidden": "true", text: `⇧${t.k}` })));
  picker.append(h("button", { type: "button", onclick: closePicker, text: "Cancel (Esc)" }));
  picker.hidden = false;
  pickerFor = { phase: S.view.phase, hand: S.view.hand_no };
  picker.querySelector("button").focus();
}

// Your pair's signals sit beside the calls, apart from the other gestures, so a stray click on
// the first gesture does not draw your partner's call; the others (decoys) are in a palette that
// opens over the table's foot (the Gestures button, key E), every one of them in view.
export function togglePalette(show) {
  const box = $("gestures"), button = $("gestures-toggle");
  const open = show === undefined ? box.hidden : !!show;
  box.hidden = !open || button.hidden;
  button.setAttribute("aria-expanded", String(!box.hidden));
  if (!box.hidden) { const first = box.querySelector("button"); if (first) first.focus(); }
}

export function renderGestures() {
  const v = S.view, box = $("gestures"), mine = $("my-signal"), toggle = $("gestures-toggle");
  const me = v.seat;
  const key = `${me}:${rules().heard_signals}:${v.signals.join(",")}:${v.phase === "over"}:${paletteShown()}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.innerHTML = "";
  mine.innerHTML = "";
  toggle.hidden = me === null || v.phase === "over" || !paletteShown(); // a camera table: real signals
  if (toggle.hidden) { togglePalette(false); return; }
  const allowed = allowedGestures();
  const button = (g, secret, i) => {
    const kind = S.gestures[g].kind;
    return h("button", { type: "button", class: `gesture ${kind} ${secret ? "secret" : ""}`, "data-gesture": g,
      "aria-label": `Gesture: ${gestureLabel(g)}${secret ? " (your pair's signal)" : ""}`,
      title: secret ? `Your pair's secret signal (key ${i === 0 ? "G" : "⇧G"})` : `${gestureLabel(g)}${kind === "heard" ? " (everyone hears it)" : ""}`,
      onclick: () => { sendAction({ type: "gesture", gesture: g }); if (!secret) togglePalette(false); } },
    kind === "heard" ? "♪ " : "", gestureShort(g),
    secret ? " ★" : "", secret && i < 2 ? h("kbd", { class: "key", "aria-hidden": "true", text: i === 0 ? "G" : "⇧G" }) : "");
  };
  const secret = allowed.filter((g) => v.signals.includes(g));
  if (secret.length) {
    mine.append(h("span", { class: "gestures-title", text: "Your signal:" }));
    secret.forEach((g, i) => mine.append(button(g, true, i)));
  } else mine.append(h("span", { class: "gestures-title muted", text: "No signal agreed" }));
  for (const g of allowed.filter((x) => !v.signals.includes(x))) box.append(button(g, false, -1));
}

function renderScores() {
  const v = S.view, r = rules(), pairs = v.names.length / 2;
  const ol = $("scores");
  ol.innerHTML = "";
  const lose = r.target || v.word.length;
  for (let p = 0; p < pairs; p++) {
    const mine = v.pair === p;
    const li = h("li", { class: `pair-${p} ${mine ? "mine" : ""}` },
      h("span", { class: "dot", "aria-hidden": "true" }),
      h("span", { class: "who" }, h("b", { text: pairMembers(p) }), mine ? " (you)" : ""));
    if (v.scoring === "letters") {
      const word = h("span", { class: "word", "aria-label": `${pairMembers(p)} letters: ${v.spelled[p] || "none"}` });
      for (let i = 0; i < lose; i++) word.append(h("span", { class: i < v.scores[p] ? "got" : "", "aria-hidden": "true", text: v.word[i] }));
      li.append(word, h("span", { class: "spelled", "data-pair": p, text: v.spelled[p] || "—" }));
    } else {
      li.append(h("span", { class: "spelled points", "data-pair": p, text: `${v.scores[p]} pt${v.scores[p] === 1 ? "" : "s"}` }));
    }
    ol.append(li);
  }
  const goal = v.scoring === "letters" ? `${v.word.slice(0, lose).split("").join("-")} loses` : r.target ? `${r.target} points win` : "";
  $("score-title").textContent = `Score${goal ? ` — ${goal}` : ""}${r.hands ? `, ${r.hands} hands` : ""}`;
}

// The host's hand on the seats during a match: a bot plays a person's seat now (handed back when
// they return), or a bot plays it to the end (the person then watches).
function renderHostPanel() {
  const room = S.room, panel = $("host-panel"), list = $("host-seats");
  const people = room.seats.filter((x) => x.kind === "human" && x.seat !== S.seat);
  const show = isHost() && room.status === "playing" && people.length > 0;
  panel.hidden = !show;
  if (!show) return;
  list.innerHTML = "";
  for (const x of people) {
    const state = x.stand_in ? `a ${x.stand_in} bot plays for now` : x.connected ? "here" : "away";
    const li = h("li", {}, h("span", { class: "who" }, h("b", { text: x.name }), ` — ${state}`));
    if (!x.stand_in)
      li.append(h("button", { type: "button", class: "small", "aria-label": `A bot plays for ${x.name} now`,
        title: "A bot plays this seat at once and hands it back when they act or come back",
        onclick: () => hostAct("POST", "bots", { seat: x.seat, level: room.seats.find((b) => b.kind === "bot")?.level || "club" }) }, "Bot plays now"));
    li.append(h("button", { type: "button", class: "small", "aria-label": `Remove ${x.name}: a bot plays to the end`,
      title: "They give the seat up: a bot plays it to the end of the match and they watch",
      onclick: () => { if (confirm(`Remove ${x.name}? A bot plays their seat to the end of the match.`)) hostAct("DELETE", `seats/${x.seat}`); } }, "Remove"));
    list.append(li);
  }
}
async function hostAct(method, what, body) {
  try {
    const r = await api(method, `/api/rooms/${S.code}/${what}`, body);
    if (r && r.code) { setRoom(r); render(); }
  } catch (e) { toast(e.message); }
}
