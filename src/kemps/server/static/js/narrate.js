// The sentences for the log while the server does not yet send them (an event's `text`, from
// kemps.narrate). Used only for events without a `text` field.
import { cardsShort } from "./cards.js";
import { S, callWords, dealerName, gestureLabel, nameOf, pairMembers } from "./state.js";

export function callText(e) {
  const base = callWords()[e.kind] || e.kind;
  if (e.kind === "kemps" || e.kind === "double_kemps") return base;
  if (e.on_seat !== null && e.on_seat !== undefined) return `${base} on ${nameOf(e.on_seat)}`;
  if (e.on_pair !== null && e.on_pair !== undefined) return `${base} on ${pairMembers(e.on_pair)}`;
  return base;
}

export function fallbackLine(e) {
  const who = e.seat !== undefined && e.seat !== null ? nameOf(e.seat) : e.seat === null ? "The dealer" : "";
  switch (e.type) {
    case "hand_dealt": return `Hand ${e.hand_no}: ${dealerName(e.dealer)} deals.`;
    case "play_opened": return "Play is open: go!";
    case "swapped": return `${who} took ${cardsShort(e.took)} and gave ${cardsShort(e.gave)}.`;
    case "grabbed": return `${who} picked up ${cardsShort(e.took)}.`;
    case "discarded": return `${who} laid down ${cardsShort(e.gave)}.`;
    case "hold_expired": return `${who} held too long and put back ${cardsShort(e.returned)}.`;
    case "stall_proposed": return e.deadline === null ? `${who} wants a fresh middle (${e.agreed} agreed).`
      : `${who} says the middle has stalled${e.auto ? " (nothing moved)" : ""}.`;
    case "objected": return `${who} objects.`;
    case "objection_lapsed": return `${who}'s objection lapses.`;
    case "stall_resumed": return "The stall countdown starts again.";
    case "stall_cancelled": return "The middle changed: no fresh middle yet.";
    case "swept": return `The middle is swept; new cards: ${cardsShort(e.middle.filter(Boolean))}.`;
    case "stock_reshuffled": return "The stock ran out: the swept cards are reshuffled.";
    case "gestured": return `${who} ${gestureLabel(e.gesture)}.`;
    case "chatted": return `${who}: ${e.text}`;
    case "signals_agreed": return `${who} agreed your pair's signals: ${e.signals.map(gestureLabel).join(", ")}.`;
    case "called": return `${who} calls ${callText(e)}!`;
    case "call_void": return `The call is void: ${nameOf(e.held_by)} is holding five cards.`;
    case "revealed": return `${who} shows ${cardsShort(e.cards)}.`;
    case "call_judged": return `${who}'s call is ${e.right ? "RIGHT" : "WRONG"}.`;
    case "scored": return e.unit === "letter"
      ? `${pairMembers(e.pair)} take${e.amount > 1 ? ` ${e.amount} letters` : " a letter"}${S.view ? `: ${S.view.spelled[e.pair]}` : ""}.`
      : `${pairMembers(e.pair)} score${e.amount > 1 ? ` ${e.amount} points` : " a point"} (${e.total}).`;
    case "table_talk_ruled": return `${pairMembers(e.pair)} used table talk and lose the match.`;
    case "hand_ended": return e.reason === "real_deal" ? "The stock ran out: a real deal, no letters." : `Hand ${e.hand_no} is over.`;
    case "match_ended": return "The match is over.";
    default: return null;
  }
}
