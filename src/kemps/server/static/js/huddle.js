// The huddle between hands: only you and your partner see it. Pick one to three secret signals
// that mean "I hold four of a kind" (S0), agree them, press Ready.
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

export function renderHuddle() {
  const v = S.view, room = S.room, me = v.seat;
  const show = me !== null && room.status === "playing" && v.phase === "huddle";
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
  $("signals-now").textContent = v.signals.length ? `Agreed: ${v.signals.map(gestureLabel).join("; ")}.`
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
