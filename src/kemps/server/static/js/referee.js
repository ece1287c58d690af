// The referee's seat (S2 tournament row 7: "Give each table a dealer who is not playing, to sweep
// the cards and judge the first touch. The dealer's ruling stands."): at a table whose dealer does
// not play, one person may sit as that dealer. Everyone is told a referee watches; the referee
// sees every hand (the server's `referee` part, kemps.views.referee_view), says Go and sweeps,
// and sees the arrival order of contested touches.
import { $, h } from "./dom.js";
import { connect, sendAction } from "./socket.js";
import { S, saveToken } from "./state.js";
import { api, toast } from "./ui.js";

async function sitAsReferee(input, button) {
  const name = input.value.trim();
  if (!name) { toast("Type your name first."); input.focus(); return; }
  button.disabled = true;
  try {
    const r = await api("POST", `/api/rooms/${S.code}/referee`, { name });
    saveToken(S.code, null, r.token);
    S.token = r.token; S.seat = null;
    connect();
  } catch (e) { toast(e.message); } finally { button.disabled = false; }
}

function touchesLine(x, names) {
  return x.touches.map((t, i) => `${i + 1}. ${names[t.seat]} at ${t.t.toFixed(3)} s${t.took ? " (took it)" : ""}`).join("; ");
}

function refereeBody() {
  const room = S.room, v = S.view;
  const out = [];
  if (!room || !room.rules || room.rules.dealer !== "non_playing") return out;
  const ref = room.referee;
  if (S.referee) {
    out.push(h("p", { class: "referee-you", text: "You are the referee: you play for nobody, see every hand, say Go and sweep." }));
    if (v) {
      const buttons = h("div", { class: "row referee-buttons" });
      if (room.rules.start === "on_go") buttons.append(h("button", { type: "button", class: "primary", "data-referee": "go",
        disabled: v.phase !== "dealt", onclick: () => sendAction({ type: "go" }), text: "Go!" }));
      buttons.append(h("button", { type: "button", "data-referee": "stall", disabled: v.phase !== "play",
        onclick: () => sendAction({ type: "stall" }), text: "Sweep the middle" }));
      out.push(buttons);
      const hands = S.referee.hands || [];
      out.push(h("ul", { class: "referee-hands", "aria-label": "Every hand" }, hands.map((cards, s) =>
        h("li", { "data-seat": s }, h("b", { text: `${v.names[s]}: ` }),
          h("span", { class: "referee-cards", "data-cards": cards.join(" "), text: cards.length ? cards.join(" ") : "no cards" })))));
      const contested = S.referee.contested || [];
      out.push(h("h3", { text: "Contested touches (the server's arrival order)" }));
      out.push(contested.length
        ? h("ol", { class: "referee-contested" }, contested.map((x) => h("li", { text: `${x.card}: ${touchesLine(x, v.names)}` })))
        : h("p", { class: "muted", text: "None this hand." }));
    }
  } else if (ref) {
    out.push(h("p", { class: "referee-watches", text: `A referee watches: ${ref.name}. They play for nobody, see every hand, say Go and sweep.` }));
  } else if (S.seat === null && room.status !== "finished") {
    const input = h("input", { maxlength: "40", autocomplete: "nickname", "aria-label": "Referee's name" });
    out.push(h("p", { class: "muted", text: "This table's dealer does not play: a person may sit as its referee (sees every hand, says Go, sweeps)." }));
    out.push(h("div", { class: "row" }, input,
      h("button", { type: "button", onclick: (ev) => sitAsReferee(input, ev.currentTarget), text: "Sit as referee" })));
  }
  return out;
}

export function renderReferee() {
  const body = refereeBody();
  for (const id of ["referee-panel", "lobby-referee"]) {
    const el = $(id);
    if (!el) continue;
    const box = el.querySelector(".referee-body");
    // keep a name being typed: redraw the form only when what it shows changes
    const key = JSON.stringify([!!S.referee, S.room && S.room.referee, S.seat, S.referee, S.view && S.view.phase, S.view && S.view.names]);
    el.hidden = body.length === 0;
    if (el.dataset.key === key) continue;
    el.dataset.key = key;
    box.replaceChildren(...(id === "referee-panel" ? body : refereeBody()));
  }
}
