// Open tables (issue 32, docs/page.md): the home page's list of listed rooms with a Join button,
// refreshed every few seconds, and Quick match; the host's "listed" switch in the lobby; each
// seat's lag beside its name at the table (the server measures it: lag_ping / lag_pong).
import { $, h } from "./dom.js";
import { fillPresetSelect, presetTitle } from "./options.js";
import { bindName, playerKey } from "./player.js";
import { S, saveToken } from "./state.js";
import { api, toast } from "./ui.js";

const REFRESH_MS = 3000;
let refresher = null;

function myName() {
  return ($("create-name") && $("create-name").value.trim()) || localStorage.getItem("kemps.name") || "Guest";
}

function seated(r, open) {
  saveToken(r.code, r.seat, r.token);
  S.code = r.code; S.token = r.token; S.seat = r.seat;
  history.pushState({}, "", `/room/${r.code}`);
  open(r.code);
}

function tableLine(t, open) {
  const people = t.players.length ? t.players.join(", ") : "nobody yet";
  const bots = t.bots.length ? ` · ${t.bots.length} bot${t.bots.length > 1 ? "s" : ""}` : "";
  const free = `${t.seats_free} of ${t.seats} seat${t.seats > 1 ? "s" : ""} free`;
  const when = t.joinable ? "" : " · a hand is on: join between hands";
  const join = h("button", { type: "button", class: "small primary", "data-code": t.code,
    "aria-label": `Join the ${presetTitle(t.preset).title} table with ${people}`, disabled: !t.joinable,
    onclick: async () => {
      try { seated(await api("POST", `/api/rooms/${t.code}/join`, { name: myName(), player_key: playerKey() }), open); bindName(myName()); }
      catch (e) { toast(e.message); refreshTables(open); }
    } }, "Join");
  return h("li", { class: "open-table", "data-code": t.code },
    h("span", { class: "who" }, h("b", { text: presetTitle(t.preset).title }), ` — ${free}: ${people}${bots}${when}`), " ", join);
}

export async function refreshTables(open) {
  const list = $("tables-list");
  if (!list || $("home").hidden) return;
  let found;
  try { found = await api("GET", "/api/tables"); } catch { return; }
  list.replaceChildren(...found.tables.map((t) => tableLine(t, open)));
  $("tables-empty").hidden = found.tables.length > 0;
}

// The home screen is shown: fill the preset choice, list the open tables and keep them fresh.
export function showTables(open) {
  const sel = $("quick-preset");
  if (sel && !sel.options.length) fillPresetSelect(sel, "pagat");
  refreshTables(open);
  if (refresher === null) refresher = setInterval(() => refreshTables(open), REFRESH_MS);
}

export function wireTables(open) {
  $("quick-match").addEventListener("click", async () => {
    const button = $("quick-match");
    button.disabled = true;
    localStorage.setItem("kemps.name", myName());
    try { seated(await api("POST", "/api/tables/quick", { name: myName(), preset: $("quick-preset").value, player_key: playerKey() }), open); bindName(myName()); }
    catch (e) { toast(e.message); }
    finally { button.disabled = false; }
  });
  $("lobby-listed").addEventListener("change", async () => {
    try { await api("PUT", `/api/rooms/${S.code}/listed`, { listed: $("lobby-listed").checked }); }
    catch (e) { toast(e.message); }
  });
}

// The lobby's switch follows the room (only the host may change it).
export function renderListed(room, host) {
  const box = $("lobby-listed");
  if (!box) return;
  box.checked = !!room.listed;
  box.disabled = !host;
}

// Each seat's round trip to the server, beside its name ("42 ms"); nothing when not measured.
export function lagText(seat) {
  const ms = S.lag && S.lag[seat];
  return typeof ms === "number" ? `${ms} ms` : "";
}
