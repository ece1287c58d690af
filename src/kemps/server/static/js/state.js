// The page's one state object and the small questions every module asks of it. Everything in it
// comes from what the server sent this client: the room's public state, this seat's `view`
// (kemps.views.SeatView) and the events of each `update` (docs/protocol.md).
export const S = {
  presets: null, options: null, maxPairs: 6, gestures: {}, botLevels: ["simple"], botSpeeds: [],
  onlineDefaults: {}, code: null, seat: null, token: null, room: null, view: null,
  ws: null, wsWanted: false, retry: 0, clock: { t: 0, at: performance.now() }, paused: false,
  last: {}, bubbleTimers: {}, selHand: [], selMid: [], result: null, recap: [], recapFor: null,
  draft: null, draftDirty: false, flash: {}, handNo: -1, createOptions: {},
  saw: [], spectatorLook: null, focus: null, autoReady: null, // focus: the player drawn large at a table without attention (this page's own) // attention tables: what this page saw in the hand; a spectator's own look
  referee: null, // the referee's part (every hand, contested touches) when this page is the referee (js/referee.js)
  takenBy: {}, partnerSignal: null, lastSignals: null, pending: null, // the swap this seat sent and has no answer for yet: {take, give, id}
};

// Every new room state goes through here: a new match (a rematch) starts a new recap.
export function setRoom(room) {
  if (S.room && room.match_no !== S.room.match_no) { S.recap = []; S.recapFor = null; }
  S.room = room;
}

export const rules = () => (S.room ? S.room.rules : {});
export const pairsOf = () => (S.view ? S.view.names.length / 2 : S.room ? S.room.rules.pairs : 2);
export const nameOf = (s) => (S.view ? S.view.names[s] : S.room && S.room.seats[s] ? S.room.seats[s].name : null) || `Seat ${s + 1}`;
export const dealerName = (s) => (s === null || s === undefined ? "The dealer" : nameOf(s));
// A pair is named by its two players everywhere at the table ("Alice & Cara"); seats are numbered
// only in the lobby, where one is picked.
export const pairMembers = (p) => `${nameOf(p)} & ${nameOf(p + pairsOf())}`;
export const isHost = () => S.seat !== null && S.room && S.seat === S.room.host_seat;
// While the table is paused (storage unavailable) its clock stands still, here as on the server.
export const tableNow = () => (S.paused ? S.clock.t : S.clock.t + (performance.now() - S.clock.at) / 1000);
export function setClock(t) { if (typeof t === "number") S.clock = { t, at: performance.now() }; }

export const gestureLabel = (g) => (S.gestures[g] ? S.gestures[g].label : g.replace(/_/g, " "));
export const gestureShort = (g) => g.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
export function allowedGestures() {
  const r = rules();
  return Object.entries(S.gestures).filter(([, g]) => g.kind === "seen" || r.heard_signals).map(([n]) => n);
}
export const callWords = () => {
  const v = S.view || {}, r = rules();
  const cw = v.call_word || r.call_word || "Kemps", sw = v.stop_word || r.stop_word || "Stop Kemps";
  return { kemps: cw, stop: sw, double_kemps: `Double ${cw}`, double_stop: `Double ${sw}` };
};

// The seat token lives in localStorage per room, so a reload keeps the seat.
const tokenKey = (code) => `kemps.seat.${code}`;
export function loadToken(code) {
  try { return JSON.parse(localStorage.getItem(tokenKey(code)) || "null"); } catch { return null; }
}
export function saveToken(code, seat, token) { localStorage.setItem(tokenKey(code), JSON.stringify({ seat, token })); }
export function forgetToken(code) { localStorage.removeItem(tokenKey(code)); }
