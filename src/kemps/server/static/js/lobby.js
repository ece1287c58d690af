// The room's lobby: seats around a small table, the pairs, bots, spectators, the rules.
import { renderListed } from "./tables.js";
import { $, h } from "./dom.js";
import { fillPairs, fillPresetSelect, optionsEditor, presetTitle } from "./options.js";
import { render } from "./render.js";
import { bindName, playerKey } from "./player.js";
import { connect } from "./socket.js";
import { S, forgetToken, isHost, rules, saveToken, setRoom } from "./state.js";
import { narrowQuery, seatPos } from "./table.js";
import { api, toast } from "./ui.js";

export function botLevel() {
  const select = $("bot-level");
  return (select && select.value) || S.botLevels[0];
}

export function rulesBody() {
  const r = { ...rules() };
  const preset = S.presets && S.presets[r.name] ? r.name : "pagat";
  const pairs = r.pairs;
  delete r.name; delete r.pairs;
  if (S.room && S.room.camera) delete r.attention; // off at a camera table (the server's rule)
  return { preset, pairs, options: r };
}
export async function putRules(body) {
  try { setRoom(await api("PUT", `/api/rooms/${S.code}/rules`, body)); render(); }
  catch (e) { toast(e.message); render(); }
}
export async function hostCall(method, what, body) {
  try {
    const room = await api(method, `/api/rooms/${S.code}/${what}`, body);
    if (room && room.code) { setRoom(room); render(); }
  } catch (e) { toast(e.message); }
}

const seatLabel = (s) => `Seat ${s + 1}`;

export function renderLobby() {
  const room = S.room, n = room.seats.length, pairs = room.rules.pairs;
  const speedSelect = $("bot-speed");
  if (speedSelect && room.bot_speed && speedSelect.value !== room.bot_speed) speedSelect.value = room.bot_speed;
  const bottom = S.seat !== null ? S.seat : 0;
  const mt = $("lobby-table");
  mt.innerHTML = "";
  mt.style.setProperty("--n", n);
  mt.classList.toggle("packed", n > 10);
  mt.append(h("div", { class: "mini-felt", "aria-hidden": "true" }));
  for (const seat of room.seats) {
    const pos = seatPos(seat.seat, bottom, n, narrowQuery.matches ? 33 : 36, 38);
    const mine = seat.seat === S.seat;
    const partnerSeat = (seat.seat + pairs) % n;
    const box = h("div", { class: `lseat pair-${seat.pair} ${seat.kind} ${mine ? "mine" : ""}`,
      style: `left:${pos.x}%;top:${pos.y}%`, "data-seat": seat.seat });
    box.append(h("div", { class: "lseat-head", title: `Partners with ${seatLabel(partnerSeat)}, opposite` },
      h("span", { class: "dot", "aria-hidden": "true" }), seatLabel(seat.seat)));
    if (seat.kind === "open") {
      box.append(h("div", { class: "lseat-name muted", text: "open" }));
      if (S.seat === null && room.status === "lobby")
        box.append(h("button", { type: "button", class: "small primary", "aria-label": `Sit at seat ${seat.seat + 1} (partner of seat ${partnerSeat + 1})`,
          onclick: () => takeSeat(seat.seat), text: "Sit here" }));
      if (isHost() && room.status === "lobby")
        box.append(h("button", { type: "button", class: "small", "aria-label": `Add a bot at seat ${seat.seat + 1}`,
          onclick: () => hostCall("POST", "bots", { seat: seat.seat, level: botLevel() }), text: "Add bot" }));
    } else {
      box.append(h("div", { class: "lseat-name" }, seat.name, mine ? " (you)" : ""));
      box.append(h("div", { class: "lseat-sub muted", text: (seat.kind === "bot" ? `${seat.level} bot` :
        seat.connected ? "here" : "away") + (seat.seat === room.host_seat ? " · host" : "") }));
      if (room.status === "lobby" && ((isHost() && !mine) || mine))
        box.append(h("button", { type: "button", class: "small", "aria-label": mine ? "Leave your seat" : `Remove ${seat.name} from seat ${seat.seat + 1}`,
          onclick: () => clearSeat(seat.seat), text: mine ? "Leave" : "Remove" }));
    }
    mt.append(box);
  }
  const pl = $("lobby-pairs");
  pl.innerHTML = "";
  for (let p = 0; p < pairs; p++) {
    const a = room.seats[p], b = room.seats[p + pairs];
    pl.append(h("li", { class: `pair-${p}` }, h("span", { class: "dot", "aria-hidden": "true" }),
      `${a.name || "open"} (${seatLabel(p)}) & ${b.name || "open"} (${seatLabel(p + pairs)}), opposite`));
  }
  const host = isHost();
  document.querySelectorAll("#lobby .host-only").forEach((e) => { e.hidden = !host || room.status !== "lobby"; });
  const open = room.seats.filter((s) => s.kind === "open").length;
  $("start-match").disabled = open > 0;
  $("fill-bots").disabled = open === 0;
  const sp = room.spectators || { allowed: true, watching: 0, max: 0 };
  $("spectators-allowed").checked = sp.allowed;
  $("spectators-allowed").disabled = !host;
  renderListed(room, host);
  $("spectators-count").textContent = sp.allowed ? `${sp.watching} watching (at most ${sp.max})` :
    host ? "only seated players can open the table" : "the host allows no spectators";
  const hostName = room.seats[room.host_seat] ? room.seats[room.host_seat].name : "the host";
  $("lobby-wait").textContent = room.status !== "lobby" ? "The match is on; loading the table…" :
    host ? (open ? `${open} open seat${open > 1 ? "s" : ""}: wait for friends (share the link) or fill them with bots.` : "Every seat is filled: start when you are ready.")
      : S.seat === null ? "Type your name and pick an open seat." : `Waiting for ${hostName} to start the match.`;
  $("lobby-name").closest("label").hidden = S.seat !== null;
  const r = room.rules;
  fillPresetSelect($("lobby-preset"), r.name);
  fillPairs($("lobby-pairs-select"), r.pairs);
  $("lobby-preset").disabled = !host; $("lobby-pairs-select").disabled = !host;
  $("lobby-note").textContent = presetTitle(r.name).line;
  const base = S.presets && S.presets[r.name] ? S.presets[r.name].rules : null;
  const changed = {};
  if (!base) for (const k of Object.keys(r)) {
    // (compared with what an online room plays by default: the preset and the online defaults)
    const p = k in S.onlineDefaults ? S.onlineDefaults[k] : S.presets && S.presets.pagat ? S.presets.pagat.rules[k] : undefined;
    if (JSON.stringify(p) !== JSON.stringify(r[k])) changed[k] = true;
  }
  optionsEditor($("lobby-options"), r, host && room.status === "lobby" ? (k, v) => {
    const body = rulesBody(); body.options[k] = v; putRules(body);
  } : null, changed);
  renderCameraChoice(host);
}

// The camera setting and one line on what it means here (docs/camera.md).
function renderCameraChoice(host) {
  const room = S.room, box = $("lobby-camera");
  box.checked = !!room.camera;
  box.disabled = !host || room.status !== "lobby";
  box.closest("label").hidden = !host && !room.camera;
  const attention = $("lobby-options-attention");
  if (attention && room.camera) { attention.disabled = true; attention.title = "Off at a camera table: people look where they look"; }
  const silent = !(room.rules.heard_signals && room.rules.table_chat);
  $("lobby-camera-line").textContent = room.camera
    ? `You play on video (the camera and microphone are asked for when you sit). Signals are real, so there is no gesture palette; each pair's huddle is private; fake-signal rules are your honour. ${silent ? "These rules ban heard signals or talk: microphones are off during each hand, on between hands. " : ""}Bots cannot see cameras: they are drawn and signal with gestures, and so does a player whose partner is a bot. Spectators see no video.`
    : "Camera table: play with your own faces on video; signals are real (no gesture palette) and each pair's huddle is private.";
}

async function takeSeat(seat) {
  const name = ($("lobby-name").value || "").trim();
  if (!name) { toast("Type your name first."); $("lobby-name").focus(); return; }
  localStorage.setItem("kemps.name", name);
  try {
    const r = await api("POST", `/api/rooms/${S.code}/seats`, { seat, name, player_key: playerKey() });
    bindName(name);
    saveToken(S.code, r.seat, r.token);
    S.token = r.token; S.seat = r.seat; setRoom(r.room);
    render();
    connect();
  } catch (e) { toast(e.message); }
}
async function clearSeat(seat) {
  try {
    setRoom(await api("DELETE", `/api/rooms/${S.code}/seats/${seat}`));
    if (seat === S.seat) { forgetToken(S.code); S.token = null; S.seat = null; connect(); }
    render();
  } catch (e) { toast(e.message); }
}
