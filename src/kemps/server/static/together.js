// Kemps replays watched together (docs/protocol.md "Replays watched together", docs/page.md):
// the "Watch together" panel of a replay (POST /api/replays/{id}/together opens a shared room),
// and the shared room itself at /together/CODE over WS /ws/together/CODE: the driver's moves go
// to everyone (a `position` on every play, pause, speed, step, hand and seek, and every 2 s while
// playing); a follower's page mirrors them and its controls are locked; everyone chats. The
// driver's token is kept in sessionStorage ("kemps.together.CODE"), so a reload keeps driving.
import { $, h } from "./js/dom.js";

const KEY = (code) => `kemps.together.${code}`;
const NAME_KEY = "kemps.name";
const SEND_EVERY_MS = 100; // a drag of the timeline sends at most ten positions a second
const BEAT_MS = 2000; // while playing, the driver says where it is this often
const CONTROLS = ["play", "back", "fwd", "speed", "hand", "scrub"];

const store = {
  get: (k) => { try { return sessionStorage.getItem(k); } catch { return null; } },
  set: (k, v) => { try { sessionStorage.setItem(k, v); } catch { /* private mode: this page only */ } },
};
const savedName = () => { try { return localStorage.getItem(NAME_KEY) || ""; } catch { return ""; } };
const fmt = (t) => `${t.toFixed(1)} s`;

// On a replay page: the form that opens a shared room at the moment shown.
export function offerTogether(matchId) {
  const box = $("together"), form = $("tg-open");
  box.hidden = false;
  form.hidden = false;
  $("tg-name").value = savedName();
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("tg-name").value.trim();
    const note = $("tg-open-note");
    if (!name) { note.textContent = "Say your name first: the others see it beside your chat."; return; }
    try { localStorage.setItem(NAME_KEY, name); } catch { /* fine */ }
    $("tg-start").disabled = true;
    try {
      const res = await fetch(`/api/replays/${matchId}/together`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name }) });
      const body = await res.json();
      if (!res.ok) { note.dataset.code = body.code || ""; throw new Error(body.message || `The server said ${res.status}.`); }
      store.set(KEY(body.code), body.token);
      const moment = ($("moment-link").getAttribute("href") || "").split("#")[1];
      location.href = `${body.url}${moment ? `#${moment}` : ""}`;
    } catch (e) {
      note.textContent = `Could not open a shared replay: ${e.message}`;
      $("tg-start").disabled = false;
    }
  });
}

// On /together/CODE: connect; resolves with {match_id, attach(page)} once the room says hello.
export function joinTogether(code) {
  return new Promise((resolve, reject) => {
    const T = { code, ws: null, you: null, driver: false, welcomed: false, page: null, watchers: [], timer: null, dirty: false, beat: null, tries: 0, ended: false };
    const connect = () => {
      const token = store.get(KEY(code));
      const proto = location.protocol === "https:" ? "wss" : "ws";
      const ws = new WebSocket(`${proto}://${location.host}/ws/together/${code}${token ? `?token=${encodeURIComponent(token)}` : ""}`);
      T.ws = ws;
      ws.onmessage = (ev) => {
        let msg;
        try { msg = JSON.parse(ev.data); } catch { return; }
        if (msg.type === "together") {
          T.tries = 0;
          T.you = msg.you;
          T.watchers = msg.watchers;
          if (!T.welcomed) {
            T.welcomed = true;
            T.first = msg;
            resolve({ match_id: msg.match_id, attach: (page) => attach(T, page, msg) });
          } else if (T.page) rejoined(T, msg);
        } else if (!T.welcomed && msg.type === "error") {
          T.ended = true;
          reject(new Error(msg.message));
        } else if (T.page) onMessage(T, msg);
      };
      ws.onclose = (ev) => {
        if (T.ended || [4404, 4410, 4429].includes(ev.code)) { T.ended = true; if (T.page) shut(T); return; }
        if (!T.welcomed && T.tries >= 3) { reject(new Error("Could not reach the shared replay.")); return; }
        T.tries += 1;
        setTimeout(connect, Math.min(5000, 500 * T.tries));
      };
    };
    connect();
  });
}

function send(T, message) {
  if (T.ws && T.ws.readyState === WebSocket.OPEN) T.ws.send(JSON.stringify(message));
}

function position(T) {
  const R = T.page.R;
  return { type: "position", idx: R.idx, t: Math.round(R.T * 1000) / 1000, hand: R.idx >= 0 ? R.data.events[R.idx].hand : 0, playing: R.playing, speed: R.speed };
}

// The driver's page: every change of the moment shown goes out, at most every SEND_EVERY_MS.
function changed(T) {
  if (!T.driver) return;
  if (T.timer) { T.dirty = true; return; }
  send(T, position(T));
  T.timer = setTimeout(() => { T.timer = null; if (T.dirty) { T.dirty = false; changed(T); } }, SEND_EVERY_MS);
}

function setDriver(T, on) {
  T.driver = on;
  const R = T.page.R;
  R.locked = !on;
  for (const id of CONTROLS) $(id).disabled = !on;
  $("together").dataset.driver = String(on);
  $("replay").dataset.driver = String(on);
  const driver = T.watchers.find((w) => w.driver);
  $("tg-status").textContent = on ? "You drive: everyone here sees what you play." : driver ? `${driver.name} drives; your replay follows.` : "Nobody drives now (the driver left); your replay stays here.";
  clearInterval(T.beat);
  T.beat = on ? setInterval(() => { if (R.playing) send(T, position(T)); }, BEAT_MS) : null;
  renderWatchers(T);
}

function attach(T, page, hello) {
  T.page = page;
  const box = $("together");
  box.hidden = false;
  $("tg-room").hidden = false;
  box.dataset.code = T.code;
  $("tg-link").value = `${location.origin}/together/${T.code}`;
  $("tg-copy").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText($("tg-link").value); $("tg-copy").textContent = "Copied"; } catch { $("tg-link").select(); }
  });
  $("tg-say").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("tg-text").value.trim();
    if (!text) return;
    send(T, { type: "chat", text, t: Math.round(page.R.T * 1000) / 1000 });
    $("tg-text").value = "";
  });
  $("tg-text").maxLength = hello.limits.chat_chars;
  $("tg-myname").value = savedName() || hello.name;
  $("tg-myname").addEventListener("change", () => {
    const name = $("tg-myname").value.trim();
    if (!name) return;
    try { localStorage.setItem(NAME_KEY, name); } catch { /* fine */ }
    send(T, { type: "name", name });
  });
  if (savedName() && savedName() !== hello.name) send(T, { type: "name", name: savedName() });
  page.R.hook = () => changed(T);
  for (const line of hello.chat) addChat(T, line);
  setDriver(T, hello.driver);
  const asked = location.hash.length > 1 || new URLSearchParams(location.search).has("hand");
  if (hello.driver) {
    // The driver: a link to a moment takes everyone there; else where the room stood.
    if (asked || hello.position.by === null) page.openAt();
    else { page.follow(hello.position); changed(T); }
  } else if (hello.position.by !== null) page.follow(hello.position);
  else page.openAt();
}

function rejoined(T, hello) {
  for (const line of hello.chat.filter((l) => !T.seenChat || l.at > T.seenChat)) addChat(T, line);
  setDriver(T, hello.driver);
  if (hello.driver) changed(T);
  else if (hello.position.by !== null) T.page.follow(hello.position);
}

function onMessage(T, msg) {
  if (msg.type === "position") {
    if (!T.driver) T.page.follow(msg);
  } else if (msg.type === "watchers") {
    T.watchers = msg.watchers;
    const me = msg.watchers.find((w) => w.id === T.you);
    setDriver(T, Boolean(me && me.driver));
  } else if (msg.type === "chat") {
    addChat(T, msg);
  } else if (msg.type === "drive") {
    store.set(KEY(T.code), msg.token);
  } else if (msg.type === "error") {
    const note = $("tg-note");
    note.dataset.code = msg.code;
    note.textContent = msg.message;
    if (msg.code === "together_closed") T.ended = true;
  }
}

function addChat(T, line) {
  T.seenChat = Math.max(T.seenChat || 0, line.at || 0);
  const when = typeof line.t === "number"
    ? h("a", { class: "tg-t", href: `#t=${line.t.toFixed(3)}`, title: "The moment it is about (the driver's link takes everyone there)", text: fmt(line.t) }) : null;
  const li = h("li", { class: line.from === T.you ? "mine" : "", "data-from": line.from },
    h("b", { text: line.name }), " ", when || "", when ? " " : "", h("span", { class: "tg-line", text: line.text }));
  const list = $("tg-chat");
  list.append(li);
  while (list.children.length > 100) list.firstElementChild.remove();
  list.scrollTop = list.scrollHeight;
}

function renderWatchers(T) {
  $("tg-watchers").replaceChildren(...T.watchers.map((w) => h("li", { "data-id": w.id, "data-driver": String(w.driver) },
    h("span", { text: `${w.name}${w.id === T.you ? " (you)" : ""}${w.driver ? " · drives" : ""}` }),
    T.driver && !w.driver ? h("button", { type: "button", class: "tg-hand", text: "Let them drive", onclick: () => send(T, { type: "hand_drive", to: w.id }) }) : "")));
}

function shut(T) {
  clearInterval(T.beat);
  T.page.R.hook = null;
  T.page.R.locked = false; // the replay is still here, to watch alone
  for (const id of CONTROLS) $(id).disabled = false;
  $("together").dataset.closed = "true";
  $("tg-status").textContent = "The shared replay has closed; the replay is yours to watch alone.";
  $("tg-say").hidden = true;
}
