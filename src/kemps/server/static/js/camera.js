// The camera table (issue 24; docs/camera.md): the seated people play on video and audio, peer to
// peer with the browser's own WebRTC. The server only relays the connection set-up (`camera`,
// `rtc`, `camera_config`, `camera_seats`: docs/protocol.md "Camera tables"); media never passes
// through it. This module:
//   - asks for the camera and microphone only at a camera table, once this page holds a seat
//     (refused or absent devices leave the seat playable: the drawn person, and a note to all);
//   - connects to every other seat in the video (the lower seat offers), or through the SFU
//     (js/sfu.js) at a table too large for the mesh;
//   - decides what it SENDS to whom, by the table's phase: in the lobby and after the match
//     everyone to everyone; in the huddle between hands its camera and microphone to its partner
//     only (RTCRtpSender.replaceTrack(null) to the others: nothing leaves this browser for them);
//     during a hand video to all, and the microphone only where the rules allow heard signals
//     and talk (a silent table: S0 "Silent signals");
//   - shows each seat's tile where its drawn person sits (`<video data-seat="N">`; the drawn
//     person is the fallback), "huddling" on an opponent's tile between hands, the toggles and
//     who can see and hear you.
// A page may set `window.kempsCameraVideo` (getUserMedia video constraints) before it loads: the
// tests ask for 160x120 at 10 fps.
import { $, h } from "./dom.js";
import { S, nameOf } from "./state.js";

const C = {
  asked: false, // the devices were asked for (once per seat and page)
  stream: null, // this page's camera and microphone (either track may be missing)
  video: "off", audio: "off", // what the devices are, as told to the others
  wantVideo: true, wantAudio: true, // the person's toggles
  joinedOn: null, // the socket this page joined the video on
  told: false, // the server knows the devices' states as they are
  config: null, // camera_config: our peer id, ICE servers, the route
  seats: [], // camera_seats: every seat in the video
  pcs: {}, // seat -> a peer connection to that seat (mesh)
  chains: {}, // seat -> the promise its set-up messages run on, in order
  tiles: {}, // seat -> its tile element
  elsewhere: false, // another window of this seat took the video over
  sfu: null, // the SFU session (js/sfu.js), at a table that uses one
};

// -- questions the page asks ----------------------------------------------------------------------
export const isCameraTable = () => !!(S.room && S.room.camera);
const seated = () => S.seat !== null && S.seat !== undefined && S.room && S.room.seats[S.seat] && S.room.seats[S.seat].kind === "human";
const pairsN = () => S.room.seats.length / 2;
export const partnerOf = (seat) => (seat + pairsN()) % S.room.seats.length;
const isBotSeat = (seat) => { const x = S.room.seats[seat]; return !x || x.kind === "bot" || !!x.stand_in; };
const seatInfo = (seat) => C.seats.find((x) => x.seat === seat) || null;

// The rules' microphone during a hand: S0 "Silent signals" (kemps.server.camera.hand_audio).
export const handAudio = () => !!(S.room && S.room.rules.heard_signals && S.room.rules.table_chat);

/** Whether this page shows the gesture palette: everywhere but at a camera table, where the
 * signals are real; there too for a person whose partner is a bot (bots cannot see cameras) and
 * for a person whose own camera is not on (the partner then watches the drawn person). */
export function paletteShown() {
  if (!isCameraTable() || S.seat === null || !S.room) return true;
  if (isBotSeat(partnerOf(S.seat))) return true;
  return !(C.video === "on" && C.wantVideo && !C.elsewhere);
}

/** Whether this pair agrees its signals by talking in the huddle (js/huddle.js): both of it on
 * video, one of them at least heard; otherwise the huddle offers the palette as ever. */
export function huddleTalks() {
  if (paletteShown()) return false;
  const partner = seatInfo(partnerOf(S.seat));
  return !!partner && partner.video === "on" && (partner.audio === "on" || (C.audio === "on" && C.wantAudio));
}

/** The phase that decides what is sent: "open" (lobby, after the match), "huddle", "hand", or
 * "unknown" (a match is on but this page has not its view yet: nothing is sent). */
function phase() {
  if (!S.room || S.room.status !== "playing") return "open";
  if (!S.view) return "unknown";
  const p = S.view.phase;
  return p === "huddle" ? "huddle" : p === "over" ? "open" : "hand";
}

/** Whether this page sends its `kind` ("audio" or "video") to `seat` now. */
export function sendsTo(seat, kind) {
  if (!(kind === "video" ? C.wantVideo && C.video === "on" : C.wantAudio && C.audio === "on")) return false;
  const p = phase();
  if (p === "open") return true;
  if (p === "unknown") return false;
  if (p === "huddle") return seat === partnerOf(S.seat);
  return kind === "video" || handAudio();
}

// -- devices ---------------------------------------------------------------------------------------
const VIDEO = () => window.kempsCameraVideo || { width: { ideal: 640 }, height: { ideal: 480 }, frameRate: { ideal: 24, max: 30 } };
const AUDIO = { echoCancellation: true, noiseSuppression: true, autoGainControl: true };
const stateFor = (err) => (err && (err.name === "NotAllowedError" || err.name === "SecurityError") ? "refused" : "absent");

async function getOne(kind) {
  try {
    const s = await navigator.mediaDevices.getUserMedia(kind === "video" ? { video: VIDEO() } : { audio: AUDIO });
    return { track: s.getTracks()[0], state: "on" };
  } catch (e) { return { track: null, state: stateFor(e) }; }
}

// Asked once, when the person holds a seat at a camera table (the browser's own prompt is the
// consent); both at once, then each alone when one is missing.
async function acquire() {
  const stream = new MediaStream();
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    C.video = C.audio = "absent"; // e.g. a page served over plain http from another machine
  } else {
    try {
      const s = await navigator.mediaDevices.getUserMedia({ video: VIDEO(), audio: AUDIO });
      for (const t of s.getTracks()) stream.addTrack(t);
      C.video = C.audio = "on";
    } catch (e) {
      if (stateFor(e) === "refused") C.video = C.audio = "refused";
      else {
        for (const kind of ["video", "audio"]) {
          const got = await getOne(kind);
          if (got.track) stream.addTrack(got.track);
          C[kind] = got.state;
        }
      }
    }
  }
  if (!C.asked) { for (const t of stream.getTracks()) t.stop(); return; } // the seat was left meanwhile
  C.stream = stream;
  C.told = false; // tell the others
  sync();
}

const track = (kind) => (C.stream ? C.stream.getTracks().find((t) => t.kind === kind && t.readyState === "live") || null : null);

// A toggle: off stops the device (its light goes out) and sends nothing; on asks for it again.
async function toggle(kind) {
  const want = kind === "video" ? "wantVideo" : "wantAudio";
  if (C[kind] === "refused" || C[kind] === "absent") return;
  if (C[want]) {
    C[want] = false;
    C[kind] = "off";
    const t = track(kind);
    if (t) { t.stop(); C.stream.removeTrack(t); }
  } else {
    C[want] = true;
    const got = await getOne(kind);
    if (got.track) { C.stream.addTrack(got.track); C[kind] = "on"; }
    else { C[want] = false; C[kind] = got.state; }
  }
  C.told = false;
  sync();
}

// Tell the server (and so the others) what this page's devices are; the first time on a
// connection, this joins the video on it.
function sendState() {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) {
    S.ws.send(JSON.stringify({ type: "camera", video: C.video, audio: C.audio }));
    C.joinedOn = S.ws;
    C.told = true;
  }
}

function stopAll() {
  for (const seat of Object.keys(C.pcs)) closePc(Number(seat));
  if (C.sfu) { C.sfu.close(); C.sfu = null; }
  if (C.stream) for (const t of C.stream.getTracks()) t.stop();
  C.stream = null; C.asked = false; C.joinedOn = null; C.told = false; C.config = null; C.seats = [];
  C.video = C.audio = "off";
  for (const seat of Object.keys(C.tiles)) { C.tiles[seat].remove(); delete C.tiles[seat]; }
}

// -- messages from the server ---------------------------------------------------------------------
/** `camera_config`, `camera_seats` and `rtc` (js/socket.js hands them over). */
export function onCameraMessage(m) {
  if (m.type === "camera_config") {
    if (C.config && C.config.peer !== m.peer) for (const seat of Object.keys(C.pcs)) closePc(Number(seat));
    C.config = m;
    C.elsewhere = false;
    if (m.route === "sfu") import("./sfu.js").then((mod) => { if (C.config === m) { C.sfu = mod.startSfu(m, C, sfuHooks()); sync(); } });
  } else if (m.type === "camera_seats") {
    C.seats = m.seats || [];
    const mine = S.seat !== null ? seatInfo(S.seat) : null;
    // Another window of this seat took the video over: this one stops sending and receiving.
    if (C.config && mine && mine.peer !== C.config.peer) {
      C.elsewhere = true;
      for (const seat of Object.keys(C.pcs)) closePc(Number(seat));
    }
  } else if (m.type === "rtc") {
    run(m.from, () => onRtc(m));
    return;
  }
  sync();
}

/** A refusal of this page's video set-up that only says a race was lost (a seat reloaded or
 * another window took over just then): quiet, the next camera_seats puts it right. */
export const cameraRace = (m) => m.code === "peer_gone" || m.code === "camera_off";

function run(seat, job) {
  const before = C.chains[seat] || Promise.resolve();
  C.chains[seat] = before.then(job).catch((e) => console.warn(`camera: seat ${seat}:`, e));
}

// -- the mesh: one RTCPeerConnection to each other seat in the video ------------------------------
const lines = (sdp) => sdp.split(/\r\n/).filter((l) => l.length);
const joined = (ls) => `${ls.join("\r\n")}\r\n`;

function sendRtc(seat, remote, body) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) S.ws.send(JSON.stringify({ type: "rtc", to: seat, peer: remote, ...body }));
}

function makePc(seat, remote) {
  const pc = new RTCPeerConnection({ iceServers: C.config.ice_servers, iceTransportPolicy: C.config.ice_transport_policy });
  const e = { pc, seat, remote, stream: new MediaStream(), senders: {}, sent: {}, waiting: [] };
  pc.onicecandidate = (ev) => sendRtc(seat, remote, { kind: "candidate", candidate: ev.candidate ? ev.candidate.candidate : "",
    mid: ev.candidate ? ev.candidate.sdpMid : null, mline: ev.candidate ? ev.candidate.sdpMLineIndex : null });
  pc.ontrack = (ev) => { e.stream.addTrack(ev.track); placeTiles(); };
  pc.onconnectionstatechange = () => {
    if (pc.connectionState === "connected") limitBitrate(e);
    // The offering side starts again after a failure (a network change): a fresh ICE round.
    if (pc.connectionState === "failed" && S.seat < seat && C.pcs[seat] === e) run(seat, () => offer(e, true));
    placeTiles();
  };
  C.pcs[seat] = e;
  return e;
}

function closePc(seat) {
  const e = C.pcs[seat];
  if (!e) return;
  delete C.pcs[seat];
  e.pc.close();
}

async function offer(e, restart = false) {
  if (!e.senders.audio) {
    e.senders.audio = e.pc.addTransceiver("audio", { direction: "sendrecv" }).sender;
    e.senders.video = e.pc.addTransceiver("video", { direction: "sendrecv" }).sender;
  }
  await applyTracks(e);
  const o = await e.pc.createOffer(restart ? { iceRestart: true } : undefined);
  await e.pc.setLocalDescription(o);
  sendRtc(e.seat, e.remote, { kind: "offer", sdp: lines(o.sdp) });
}

async function onRtc(m) {
  const info = seatInfo(m.from);
  if (!C.config || C.elsewhere || !info || info.peer !== m.peer) return; // a set-up that is over
  let e = C.pcs[m.from];
  if (e && e.remote !== m.peer) { closePc(m.from); e = null; }
  if (m.kind === "offer") {
    if (!e) e = makePc(m.from, m.peer);
    await e.pc.setRemoteDescription({ type: "offer", sdp: joined(m.sdp) });
    for (const t of e.pc.getTransceivers()) {
      const kind = t.receiver.track.kind;
      t.direction = "sendrecv";
      e.senders[kind] = t.sender;
    }
    await applyTracks(e);
    const a = await e.pc.createAnswer();
    await e.pc.setLocalDescription(a);
    sendRtc(m.from, m.peer, { kind: "answer", sdp: lines(a.sdp) });
    for (const c of e.waiting.splice(0)) await addCandidate(e, c);
  } else if (m.kind === "answer") {
    if (e && e.pc.signalingState === "have-local-offer") {
      await e.pc.setRemoteDescription({ type: "answer", sdp: joined(m.sdp) });
      for (const c of e.waiting.splice(0)) await addCandidate(e, c);
    }
  } else if (e) {
    if (!e.pc.remoteDescription) e.waiting.push(m);
    else await addCandidate(e, m);
  }
}

async function addCandidate(e, m) {
  if (!m.candidate) return; // the end of the other side's candidates
  try { await e.pc.addIceCandidate({ candidate: m.candidate, sdpMid: m.mid, sdpMLineIndex: m.mline }); }
  catch (err) { console.warn("camera: a candidate was refused", err); }
}

// What each sender carries: this page's track when it sends that kind to that seat now, else
// nothing at all (replaceTrack(null): no bytes leave for that seat; not a muted track).
async function applyTracks(e) {
  for (const kind of ["audio", "video"]) {
    const sender = e.senders[kind];
    if (!sender) continue;
    const want = sendsTo(e.seat, kind) ? track(kind) : null;
    if (e.sent[kind] === want && sender.track === want) continue;
    e.sent[kind] = want;
    try { await sender.replaceTrack(want); } catch (err) { console.warn("camera: replaceTrack", err); }
  }
}

// Upstream grows with the table (each person sends one stream to each other): the video of each
// is capped so that the whole upstream stays near 1.6 Mbit/s (at most 500 kbit/s each, at least
// 200; docs/camera.md has the measured figures).
function limitBitrate(e) {
  const sender = e.senders.video;
  if (!sender || !sender.getParameters) return;
  const others = Math.max(1, S.room ? S.room.seats.length - 1 : 3);
  const cap = Math.round(Math.min(500000, Math.max(200000, 1600000 / others)));
  const p = sender.getParameters();
  if (!p.encodings || !p.encodings.length) return;
  if (p.encodings[0].maxBitrate === cap) return;
  p.encodings[0].maxBitrate = cap;
  sender.setParameters(p).catch(() => {});
}

function connectMesh() {
  if (!C.config || C.config.route !== "mesh" || C.elsewhere) return;
  const want = new Map(C.seats.filter((x) => x.seat !== S.seat).map((x) => [x.seat, x.peer]));
  for (const seat of Object.keys(C.pcs).map(Number)) if (want.get(seat) !== C.pcs[seat].remote) closePc(seat);
  for (const [seat, remote] of want) {
    if (C.pcs[seat] || S.seat > seat) continue; // the lower seat offers; the other waits for it
    const e = makePc(seat, remote);
    run(seat, () => offer(e));
  }
  for (const e of Object.values(C.pcs)) run(e.seat, () => applyTracks(e));
}

// -- the tiles ---------------------------------------------------------------------------------------
function tile(seat) {
  let t = C.tiles[seat];
  if (!t) {
    const video = h("video", { "data-seat": seat, autoplay: true, playsinline: true });
    t = h("div", { class: "cam-tile", "data-seat": seat },
      video,
      h("div", { class: "cam-card", role: "img" }),
      h("button", { type: "button", class: "cam-hear small", hidden: true, text: "Tap to hear" }));
    t.querySelector(".cam-hear").addEventListener("click", () => { video.muted = false; video.play().catch(() => {}); placeTiles(); });
    C.tiles[seat] = t;
  }
  return t;
}

// The stream each seat's tile plays: this page's own camera (muted) at its own seat.
function streamOf(seat) {
  if (seat === S.seat) return track("video") ? C.stream : null;
  if (C.sfu) return C.sfu.streamOf(seat);
  const e = C.pcs[seat];
  return e && e.stream.getVideoTracks().length ? e.stream : null;
}

// What a seat's tile says when it shows no face: a note the others read.
function note(seat) {
  const x = S.room.seats[seat];
  if (!x || x.kind !== "human") return null;
  const info = seatInfo(seat);
  if (phase() === "huddle" && seat !== S.seat && seat !== partnerOf(S.seat)) return { text: "huddling", cls: "huddling", title: `${nameOf(seat)} is huddling with their partner: only their partner sees and hears them now` };
  if (seat === S.seat) {
    if (C.elsewhere) return { text: "on video in another window", cls: "off" };
    if (C.video === "refused") return { text: "camera not allowed", cls: "off", title: "You did not allow the camera: the others see you drawn; allow it in the browser's address bar and reload to show your face" };
    if (C.video === "absent") return { text: "no camera", cls: "off" };
    if (!C.wantVideo) return { text: "camera off", cls: "off" };
    return null;
  }
  if (!info) return { text: x.connected ? "not on video" : "away", cls: "off", title: `${nameOf(seat)} is not on video: drawn instead` };
  const says = { refused: "did not allow the camera", absent: "has no camera", off: "camera off" };
  if (info.video !== "on") return { text: says[info.video] || "no video", cls: "off", title: `${nameOf(seat)} ${says[info.video] || "has no video"}: drawn instead, and signals with gestures` };
  return null;
}

function placeTiles() {
  if (!S.room) return;
  const felt = $("felt");
  if (felt) felt.classList.toggle("camera", isCameraTable());
  const inGame = !$("game").hidden && S.view;
  for (let seat = 0; seat < S.room.seats.length; seat++) {
    const slot = inGame ? document.querySelector(`#seats .seat[data-seat="${seat}"] .cam`) : lobbySlot(seat);
    const human = S.room.seats[seat] && S.room.seats[seat].kind === "human";
    if (!slot || !human || !isCameraTable() || !seated()) {
      if (C.tiles[seat]) C.tiles[seat].remove();
      const box = slot && slot.closest(".person-box");
      if (box) box.classList.remove("cam-live");
      continue;
    }
    const t = tile(seat), video = t.querySelector("video");
    if (t.parentNode !== slot) slot.append(t);
    const n = note(seat);
    const stream = n && n.cls === "huddling" ? null : streamOf(seat);
    const live = !!stream && !n;
    const mine = seat === S.seat;
    if (video.srcObject !== stream) video.srcObject = stream;
    video.muted = mine || video.dataset.blocked === "1";
    video.hidden = !live;
    if (live && video.paused) video.play().then(() => { delete video.dataset.blocked; })
      .catch(() => { video.dataset.blocked = "1"; video.muted = true; video.play().catch(() => {}); placeTiles(); });
    t.querySelector(".cam-hear").hidden = !(live && !mine && video.dataset.blocked === "1" && video.muted);
    const card = t.querySelector(".cam-card");
    card.hidden = !n;
    card.className = `cam-card ${n ? n.cls : ""}`;
    card.textContent = n ? n.text : "";
    card.title = n && n.title ? n.title : "";
    card.setAttribute("aria-label", n ? `${nameOf(seat)}: ${n.text}` : "");
    t.classList.toggle("live", live);
    t.classList.toggle("mine", mine);
    t.classList.toggle("huddling", !!n && n.cls === "huddling");
    slot.classList.toggle("live", live);
    // A face, or a huddling card the size of one, takes the drawn person's place in its box.
    const box = slot.closest(".person-box");
    if (box) box.classList.toggle("cam-live", live || (!!n && n.cls === "huddling"));
  }
}

// The lobby: the seated people's tiles in a row above the rules.
function lobbySlot(seat) {
  const strip = $("cam-strip");
  if (!strip || !isCameraTable() || S.seat === null) return null;
  let slot = strip.querySelector(`.cam[data-seat="${seat}"]`);
  if (!S.room.seats[seat] || S.room.seats[seat].kind !== "human") { if (slot) slot.remove(); return null; }
  if (!slot) {
    slot = h("figure", { class: "cam", "data-seat": seat }, h("figcaption"));
    strip.append(slot);
    [...strip.children].sort((a, b) => a.dataset.seat - b.dataset.seat).forEach((c) => strip.append(c));
  }
  slot.querySelector("figcaption").textContent = `${nameOf(seat)}${seat === S.seat ? " (you)" : ""}`;
  return slot;
}

// -- the camera bar: toggles and who can see you ---------------------------------------------------
function whoSees() {
  if (C.elsewhere) return "Your camera is on in another window of this seat.";
  const v = C.video === "on" && C.wantVideo, a = C.audio === "on" && C.wantAudio;
  if (!v && !a) return "Nobody sees or hears you: you are drawn, and signal with gestures.";
  // Who is in the video now (a bot or a spectator never is).
  const others = C.seats.map((x) => x.seat).filter((i) => i !== S.seat);
  const names = (list) => list.map(nameOf).join(", ");
  const p = phase();
  if (!others.length) return p === "open" ? "Nobody else is on video yet." : "Nobody sees or hears you: nobody else is on video.";
  const what = (heard) => (v && heard ? "sees and hears" : v ? "sees" : heard ? "hears" : "");
  if (p === "huddle") {
    const partner = partnerOf(S.seat);
    return others.includes(partner) ? `Huddle: only ${nameOf(partner)} ${what(a)} you.` : "Huddle: nobody sees or hears you.";
  }
  if (p === "hand" && !handAudio()) return v ? `Seen by ${names(others)}; your microphone is off during the hand (a silent table).` : "Nobody hears you during the hand (a silent table).";
  return `${v && a ? "Seen and heard" : v ? "Seen" : "Heard"} by ${names(others)}.`;
}

function bar() {
  let b = $("cam-bar");
  if (!b) {
    b = h("div", { id: "cam-bar", class: "cam-bar", role: "group", "aria-label": "Your camera and microphone" },
      h("button", { type: "button", class: "small cam-toggle", "data-kind": "video", onclick: () => toggle("video") }),
      h("button", { type: "button", class: "small cam-toggle", "data-kind": "audio", onclick: () => toggle("audio") }),
      h("span", { class: "cam-who", role: "status", "aria-live": "polite" }));
  }
  const home = !$("game").hidden ? $("felt") : $("cam-lobby");
  if (home && b.parentNode !== home) home.append(b);
  const label = (kind, on, state) => (state === "refused" ? `${kind === "video" ? "Camera" : "Microphone"} not allowed` :
    state === "absent" ? `No ${kind === "video" ? "camera" : "microphone"}` : `${kind === "video" ? "Camera" : "Microphone"} ${on ? "on" : "off"}`);
  for (const btn of b.querySelectorAll(".cam-toggle")) {
    const kind = btn.dataset.kind, on = kind === "video" ? C.wantVideo : C.wantAudio, state = C[kind];
    btn.textContent = label(kind, on, state);
    btn.setAttribute("aria-pressed", on && state === "on" ? "true" : "false");
    btn.disabled = state === "refused" || state === "absent" || C.elsewhere;
    btn.title = state === "refused" ? "Allow it in the browser's address bar, then reload" : "";
  }
  b.querySelector(".cam-who").textContent = whoSees();
  b.hidden = false;
}

// -- the one entry point: after every render ------------------------------------------------------
/** Bring the video in line with the room as this page knows it (js/render.js calls it after every
 * render): ask for the devices once seated, join on this socket, connect, send what the phase
 * allows, place the tiles. */
export function syncCamera() {
  const on = isCameraTable() && seated();
  const strip = $("cam-lobby");
  if (strip) strip.hidden = !(isCameraTable() && S.room.status === "lobby");
  if (!on) {
    if (C.asked || C.stream) stopAll();
    const b = $("cam-bar"); if (b) b.hidden = true;
    placeTiles();
    return;
  }
  if (!C.asked) { C.asked = true; acquire(); return; }
  if (!C.stream) return; // still asking
  if (C.joinedOn !== S.ws) {
    // A new connection (a reconnect): the server dropped this page's video with the old one.
    for (const seat of Object.keys(C.pcs)) closePc(Number(seat));
    if (C.sfu) { C.sfu.close(); C.sfu = null; }
    C.config = null;
    sendState();
  } else if (!C.told) sendState();
  if (C.sfu) C.sfu.update();
  else connectMesh();
  placeTiles();
  bar();
}
const sync = syncCamera;

function sfuHooks() { return { sendsTo, track, partnerOf, phase, placeTiles, handAudio, seats: () => C.seats }; }

// For tests and the curious (window.kemps.camera): the state and the peer connections.
export const cameraState = C;
