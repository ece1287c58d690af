// The one WebSocket of this client (docs/protocol.md): connecting, reconnecting, sending actions,
// and what each server message changes.
import { cameraRace, onCameraMessage } from "./camera.js";
import { $ } from "./dom.js";
import { clearLog, onEvents, refusal } from "./log.js";
import { lookRefused } from "./looks.js";
import { render } from "./render.js";
import { S, forgetToken, setClock, setRoom } from "./state.js";
import { api, showPaused, toast } from "./ui.js";

// Closed by the server for good (the error message before it says why): no spectators, no such
// room, this seat opened elsewhere (reconnecting would close that one), archived.
const FINAL = { 4403: "no spectators", 4404: "no such room", 4409: "open in another window", 4410: "archived" };

export function setConn(text, cls = "") { const c = $("conn"); c.textContent = text; c.className = `conn ${cls}`; }

export function connect() {
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  S.wsWanted = true;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const q = S.token ? `?token=${encodeURIComponent(S.token)}` : "";
  const ws = new WebSocket(`${proto}://${location.host}/ws/${S.code}${q}`);
  S.ws = ws;
  setConn("connecting…");
  ws.onopen = () => { S.retry = 0; setConn("connected", "ok"); ws.send(JSON.stringify({ type: "lag_pong" })); };
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    if (S.ws !== ws || !S.wsWanted) return;
    if (FINAL[ev.code]) { S.wsWanted = false; setConn(FINAL[ev.code], "bad"); return; }
    setConn(ev.code === 4429 ? "too many connections; trying again soon…" : "reconnecting…", "bad");
    S.retry = Math.min(S.retry + 1, 5);
    setTimeout(() => { if (S.ws === ws) connect(); }, ev.code === 4429 ? 15000 : 500 * S.retry);
  };
}

export function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(msg)); return true; }
  toast("Not connected; trying again…");
  return false;
}
let actionId = 0;
export function sendAction(action) {
  const id = ++actionId;
  send({ type: "action", id, action });
  return id;
}

// A swap shows at once as pending (the cards dim in place) until the update with this seat's
// swap, or the refusal, arrives; after 4 s with neither it is dropped.
export function sendSwap(take, give) {
  const id = sendAction({ type: "swap", take, give });
  S.pending = { take, give, id, at: performance.now() };
  setTimeout(() => { if (S.pending && S.pending.id === id) { S.pending = null; render(); } }, 4000);
  return id;
}

// The server's `state` at a match start is sent before the first deal is scheduled, so its
// `deal_at` is null: ask for the room again (once a second at most) to show the countdown.
let refetchAt = 0;
function refetchRoomIfNoDeal() {
  const r = S.room, v = S.view;
  if (!r || !v || r.status !== "playing" || v.phase !== "huddle" || (r.deal_at !== null && r.deal_at !== undefined)) return;
  if (performance.now() - refetchAt < 1000) return;
  refetchAt = performance.now();
  setTimeout(async () => {
    try {
      const room = await api("GET", `/api/rooms/${S.code}`);
      if (S.room && S.room.deal_at === null && room.match_no === S.room.match_no) { S.room = room; setClock(room.now); render(); }
    } catch { /* the next room message will do */ }
  }, 150);
}

function onMessage(m) {
  try { handleMessage(m); } finally { refetchRoomIfNoDeal(); }
}

export function handleMessage(m) {
  switch (m.type) {
    case "state":
      // The referee (seat null, its token good) is told so by the `referee` field.
      S.referee = "referee" in m ? (m.referee || {}) : null;
      if (S.token && m.seat === null && !("referee" in m)) { forgetToken(S.code); S.token = null; }
      S.seat = m.seat;
      S.spectatorLook = null; // a new connection: the server keeps no look for it yet
      setRoom(m.room); setClock(m.room.now);
      showPaused(!!m.room.paused);
      S.view = m.view || null;
      if (S.view && S.view.hand_no !== S.handNo) { S.handNo = S.view.hand_no; S.last = {}; }
      // The hand's public log (and the last hand's result) so far: a reload or a late spectator
      // sees what happened.
      if (Array.isArray(m.log)) {
        clearLog();
        S.result = null;
        onEvents(m.log, false);
      }
      render();
      break;
    case "update":
      if (S.view && typeof m.version === "number" && m.version > S.view.version + 1) send({ type: "sync" });
      S.view = m.view;
      if (m.referee) S.referee = m.referee;
      onEvents(m.events || []);
      render();
      break;
    case "room":
      setRoom(m.room); setClock(m.room.now);
      showPaused(!!m.room.paused);
      render();
      break;
    case "camera_config": case "camera_seats": case "rtc": onCameraMessage(m); break;
    case "paused": showPaused(true, m.message); render(); break;
    case "lag_ping": send({ type: "lag_pong", id: m.id }); break; // at once: the server times it
    case "lag": S.lag = m.ms; render(); break;
    case "resumed": showPaused(false); render(); break;
    case "rejected": {
      if (lookRefused(m)) break; // a look too soon or already there: the page tries again quietly
      const pending = S.pending && (m.id === undefined || m.id === null || m.id === S.pending.id) ? S.pending : null;
      toast(refusal(m, pending));
      S.pending = null;
      S.selHand = []; S.selMid = [];
      render();
      break;
    }
    case "error":
      if (m.code === "storage_unavailable") { showPaused(true, m.message); break; }
      if (cameraRace(m)) break; // a video set-up that lost a race: quiet (js/camera.js)
      if (m.code !== "not_seated" || S.token) toast(m.message || "Something went wrong at the server.");
      break;
    default: break;
  }
}
