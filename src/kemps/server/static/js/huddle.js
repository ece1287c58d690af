// The huddle between hands: only you and your partner see it. Pick one to three secret signals
// that mean "I hold four of a kind" (S0), agree them, press Ready. A partner's proposal of new
// signals (a bot partner asks; S1 "each two player team ... privately agrees a signal") comes
// first: Accept agrees it, Keep ours keeps the pair's signals (the view's `proposal`).
import { banner } from "./banner.js";
import { huddleTalks } from "./camera.js";
import { $, h } from "./dom.js";
import { sendAction } from "./socket.js";
import { S, allowedGestures, gestureLabel, gestureShort } from "./state.js";
import { toast } from "./ui.js";

let wasShown = false;

export function agreeDraft() {
  if (!S.draft || !S.draft.length) { toast("Pick at least one gesture."); return; }
  sendAction({ type: "agree_signals", signals: S.draft });
  S.draftDirty = false;
}

/** Accept the partner's proposal: the pair agrees its gestures. */
export function acceptProposal() {
  const p = S.view && S.view.proposal;
  if (!p || p.seat !== S.view.partner) return;
  sendAction({ type: "agree_signals", signals: p.signals });
  S.draftDirty = false;
}

/** Keep the pair's signals: the partner's proposal is off. */
export function keepOurs() {
  const p = S.view && S.view.proposal;
  if (!p || p.seat !== S.view.partner) return;
  sendAction({ type: "decline_signals" });
}

// "Rosa, your partner, proposes a new signal: whistles" and, for a heard gesture, that everyone
// at the table hears it (the other pair too).
function renderProposal(v) {
  const p = v.proposal;
  const theirs = !!p && p.seat === v.partner;
  const box = $("proposal");
  box.hidden = !p;
  if (!p) return;
  const text = $("proposal-text");
  const said = p.signals.map(gestureLabel).join(" or ");
  const heard = p.signals.filter((g) => S.gestures[g] && S.gestures[g].kind === "heard");
  const key = `${p.seat}|${p.signals.join(",")}|${v.signals.join(",")}`;
  if (text.dataset.key !== key) {
    text.dataset.key = key;
    text.innerHTML = "";
    text.append(theirs ? `${v.names[p.seat]}, your partner, proposes a new signal: ${said}.`
      : `You proposed a new signal: ${said}. Waiting for ${v.names[v.partner]}.`);
    if (heard.length) {
      text.append(h("span", { class: "heard-note", text: `♪ ${heard.map(gestureShort).join(" and ")} ${heard.length > 1 ? "are" : "is"} heard: everyone at the table hears it, the other pair too.` }));
    }
    if (theirs && v.signals.length) {
      text.append(h("span", { class: "muted keep-note", text: `Keep ours: ${v.signals.map(gestureLabel).join("; ")}.` }));
    }
  }
  $("proposal-accept").hidden = $("proposal-keep").hidden = !theirs;
}

export function renderHuddle() {
  const v = S.view, room = S.room, me = v.seat;
  // The call banner first, then the huddle (banner.onHide renders again): never one over the other.
  const due = me !== null && room.status === "playing" && v.phase === "huddle";
  if (due && banner.shown()) banner.shorten(4500);
  const show = due && !banner.shown();
  $("huddle").hidden = !show;
  if (!show) { S.draft = null; S.draftDirty = false; wasShown = false; return; }
  if (!wasShown) {
    // It opens over the table: bring it (and its buttons) into view.
    wasShown = true;
    window.scrollTo(0, 0);
  }
  // The signals agreed last are offered again (ticked, not agreed) when a rematch starts with none.
  if (v.signals.length) S.lastSignals = [...v.signals];
  const offered = !v.signals.length && S.lastSignals && S.lastSignals.length;
  if (!S.draftDirty) S.draft = offered ? [...S.lastSignals] : [...v.signals];
  $("huddle-partner").textContent = v.names[v.partner];
  renderProposal(v);
  // A camera table: the pair agrees its signal by talking, face to face (js/camera.js).
  const talk = huddleTalks();
  $("huddle").classList.toggle("camera", talk);
  $("huddle-talk").hidden = !talk;
  $("huddle-talk").textContent = talk ? `Only you and ${v.names[v.partner]} see and hear each other now: agree your signal by talking. The others see "huddling".` : "";
  const box = $("signal-choices");
  const key = `${allowedGestures().join(",")}|${S.draft.join(",")}`;
  if (box.dataset.key !== key) {
    box.dataset.key = key;
    box.innerHTML = "";
    for (const g of allowedGestures()) {
      const id = `sig-${g}`;
      const checked = S.draft.includes(g);
      const input = h("input", { type: "checkbox", id, value: g, checked });
      input.disabled = !checked && S.draft.length >= 3;
      input.addEventListener("change", () => {
        S.draftDirty = true;
        S.draft = input.checked ? [...S.draft, g].slice(0, 3) : S.draft.filter((x) => x !== g);
        renderHuddle();
        const again = $(id); if (again) again.focus();
      });
      box.append(h("label", { for: id, class: `sig ${S.gestures[g].kind} ${checked ? "on" : ""}` }, input,
        S.gestures[g].kind === "heard" ? "♪ " : "", gestureShort(g)));
    }
  }
  const heardNow = v.signals.filter((g) => S.gestures[g] && S.gestures[g].kind === "heard");
  $("signals-now").textContent = v.signals.length ? `Agreed: ${v.signals.map(gestureLabel).join("; ")}.${heardNow.length ? ` ♪ ${heardNow.map(gestureShort).join(" and ")}: everyone at the table hears it.` : ""}`
    : offered ? "Your last signals are ticked: agree them again, or pick new ones (the other pair may have seen them)."
      : "No signals agreed yet: agree one, or the table picks one for you two before the deal.";
  $("signals-now").classList.toggle("warn", !v.signals.length);
  const same = S.draft.length && S.draft.join(",") === v.signals.join(",");
  $("agree-signals").disabled = !S.draft.length || same;
  $("agree-signals").textContent = same ? "Signals agreed ✓" : v.signals.length ? "Agree these signals instead" : "Agree these signals";
  const ready = room.seats[me] && room.seats[me].ready;
  $("ready").disabled = !!ready;
  $("ready").textContent = ready ? "Ready ✓" : "Ready (R)";
}
