// A camera table's video through Janus's VideoRoom (an SFU), for tables larger than the mesh
// serves (docs/camera.md "Larger tables: the SFU"; the server makes the rooms: kemps.server.sfu).
// Janus's WebSocket API is spoken here directly (sessions, handles, plugin messages, trickle).
//
// Each page publishes twice, and decides what each carries, as in the mesh (js/camera.js):
//   - into the table room (every seated person has its PIN): its camera and, where the rules
//     allow, its microphone, in the lobby and during a hand; nothing in the huddle;
//   - into its pair's room (only the pair has that PIN): both, in the huddle only.
// It subscribes to every other seat in the table room and to its partner in the pair room; a
// publisher's feed id names its seat (`feeds` in camera_config, known to the seated only).
const KEEPALIVE_MS = 25000;

class JanusSession {
  constructor(url) {
    this.ws = new WebSocket(url, "janus-protocol");
    this.waiting = new Map(); // transaction -> {resolve, reject, ack}
    this.listeners = new Map(); // handle -> function(event)
    this.open = new Promise((resolve, reject) => { this.ws.onopen = resolve; this.ws.onerror = reject; });
    this.ws.onmessage = (ev) => this.receive(JSON.parse(ev.data));
    this.closed = false;
  }
  async start() {
    await this.open;
    this.id = (await this.send({ janus: "create" })).data.id;
    this.timer = setInterval(() => this.send({ janus: "keepalive", session_id: this.id }).catch(() => {}), KEEPALIVE_MS);
  }
  send(msg, untilEvent = false) {
    const transaction = Math.random().toString(36).slice(2);
    return new Promise((resolve, reject) => {
      this.waiting.set(transaction, { resolve, reject, untilEvent });
      this.ws.send(JSON.stringify({ ...msg, transaction, ...(this.id && !msg.session_id ? { session_id: this.id } : {}) }));
    });
  }
  receive(m) {
    const w = m.transaction ? this.waiting.get(m.transaction) : null;
    if (w) {
      if (m.janus === "error") { this.waiting.delete(m.transaction); w.reject(new Error(m.error ? m.error.reason : "janus error")); return; }
      if (m.janus === "ack" && w.untilEvent) return; // the plugin's answer comes as an event
      this.waiting.delete(m.transaction);
      w.resolve(m);
      return;
    }
    const fn = this.listeners.get(m.sender);
    if (fn) fn(m);
  }
  async attach(onEvent) {
    const id = (await this.send({ janus: "attach", plugin: "janus.plugin.videoroom" })).data.id;
    this.listeners.set(id, onEvent);
    return id;
  }
  async message(handle, body, jsep) {
    const m = await this.send({ janus: "message", handle_id: handle, body, ...(jsep ? { jsep } : {}) }, true);
    const data = m.plugindata ? m.plugindata.data : {};
    if (data.error) throw new Error(data.error);
    return m;
  }
  trickle(handle, candidate) {
    this.send({ janus: "trickle", handle_id: handle, candidate: candidate || { completed: true } }).catch(() => {});
  }
  close() {
    this.closed = true;
    clearInterval(this.timer);
    try { this.ws.close(); } catch { /* gone already */ }
  }
}

export function startSfu(config, C, hooks) {
  const sfu = config.sfu, me = Number(Object.keys(sfu.feeds).find((s) => sfu.feeds[s] === sfu.feed));
  const seatOfFeed = new Map(Object.entries(sfu.feeds).map(([s, f]) => [f, Number(s)]));
  const ice = { iceServers: config.ice_servers, iceTransportPolicy: config.ice_transport_policy };
  const session = new JanusSession(sfu.url);
  const rooms = {
    table: { room: sfu.room, pin: sfu.pin, wants: (seat) => seat !== me },
    pair: { room: sfu.pair_room, pin: sfu.pair_pin, wants: (seat) => seat === hooks.partnerOf(me) },
  };
  // What each room carries from this page now (the phase's rule, js/camera.js sendsTo).
  const opponent = (me + 1) % (Object.keys(sfu.feeds).length);
  const carries = {
    table: (kind) => hooks.phase() !== "huddle" && hooks.sendsTo(opponent, kind),
    pair: (kind) => hooks.phase() === "huddle" && hooks.sendsTo(hooks.partnerOf(me), kind),
  };
  const state = { pcs: [], failed: null };

  async function publish(name) {
    const r = rooms[name];
    // Janus tells this handle of the others' feeds as they come and go.
    const handle = await session.attach((m) => onPubEvent(name, m));
    const joined = await session.message(handle, { request: "join", ptype: "publisher", room: r.room, pin: r.pin, id: sfu.feed, display: `seat-${me}` });
    const others = joined.plugindata.data.publishers;
    if (Array.isArray(others)) later(() => subscribe(name, others));
    const pc = new RTCPeerConnection(ice);
    const senders = { audio: pc.addTransceiver("audio", { direction: "sendonly" }).sender,
      video: pc.addTransceiver("video", { direction: "sendonly" }).sender };
    r.pub = { pc, senders, sent: {} };
    pc.onicecandidate = (ev) => session.trickle(handle, ev.candidate);
    await applyTracks(name);
    const offer = await pc.createOffer();
    await pc.setLocalDescription(offer);
    const answer = await session.message(handle, { request: "configure", audio: true, video: true }, { type: offer.type, sdp: offer.sdp });
    await pc.setRemoteDescription(answer.jsep);
  }

  async function applyTracks(name) {
    const p = rooms[name].pub;
    if (!p) return;
    for (const kind of ["audio", "video"]) {
      const want = carries[name](kind) ? hooks.track(kind) : null; // null: nothing goes up
      if (p.sent[kind] === want && p.senders[kind].track === want) continue;
      p.sent[kind] = want;
      try { await p.senders[kind].replaceTrack(want); } catch (e) { console.warn("sfu: replaceTrack", e); }
    }
  }

  // Subscriptions: one handle and one peer connection per room, its streams named by mid.
  async function subscribe(name, publishers) {
    const r = rooms[name];
    const feeds = publishers.map((p) => p.id).filter((id) => seatOfFeed.has(id) && r.wants(seatOfFeed.get(id)));
    r.seen = r.seen || new Set();
    const fresh = feeds.filter((id) => !r.seen.has(id));
    if (!fresh.length) return;
    fresh.forEach((id) => r.seen.add(id));
    if (!r.sub) {
      r.sub = { handle: null, pc: new RTCPeerConnection(ice), mids: {}, streams: {} };
      r.sub.pc.ontrack = () => hooks.placeTiles();
      r.sub.handle = await session.attach((m) => onSubEvent(name, m));
      state.pcs.push({ room: name, pc: r.sub.pc, mids: r.sub.mids });
      r.sub.pc.onicecandidate = (ev) => session.trickle(r.sub.handle, ev.candidate);
      const m = await session.message(r.sub.handle, { request: "join", ptype: "subscriber", room: r.room, pin: r.pin, streams: fresh.map((feed) => ({ feed })) });
      await answer(name, m);
    } else {
      const m = await session.message(r.sub.handle, { request: "subscribe", streams: fresh.map((feed) => ({ feed })) });
      await answer(name, m);
    }
  }

  async function answer(name, m) {
    const r = rooms[name], data = m.plugindata ? m.plugindata.data : {};
    if (Array.isArray(data.streams)) {
      for (const s of data.streams) if (s.feed_id !== undefined && s.mid !== undefined) r.sub.mids[s.mid] = seatOfFeed.get(s.feed_id);
    }
    if (!m.jsep) return;
    await r.sub.pc.setRemoteDescription(m.jsep);
    const a = await r.sub.pc.createAnswer();
    await r.sub.pc.setLocalDescription(a);
    await session.message(r.sub.handle, { request: "start" }, { type: a.type, sdp: a.sdp });
    hooks.placeTiles();
  }

  // Janus tells of publishers coming and going on the publisher's handle; a renegotiation
  // ("updated") on the subscriber's.
  let chain = Promise.resolve();
  const later = (job) => { chain = chain.then(job).catch((e) => console.warn("sfu:", e)); };
  function onSubEvent(name, m) { if (m.jsep) later(() => answer(name, m)); }
  function onPubEvent(name, m) {
    const data = m.plugindata ? m.plugindata.data : {};
    if (Array.isArray(data.publishers) && data.publishers.length) later(() => subscribe(name, data.publishers));
    // A feed gone (its page left or reloaded): subscribed again when it comes back.
    const gone = data.unpublished !== undefined ? data.unpublished : data.leaving;
    if (gone !== undefined && rooms[name].seen) rooms[name].seen.delete(gone);
  }

  (async () => {
    try {
      await session.start();
      await publish("table");
      await publish("pair");
    } catch (e) {
      state.failed = String(e.message || e);
      console.warn("sfu: could not join", e);
    }
  })();

  return {
    pcs: state.pcs,
    state,
    update() { later(() => applyTracks("table")); later(() => applyTracks("pair")); hooks.placeTiles(); },
    // A seat's tile: the partner through the pair room in the huddle, everyone else through the
    // table room.
    streamOf(seat) {
      const name = hooks.phase() === "huddle" && seat === hooks.partnerOf(me) ? "pair" : "table";
      const sub = rooms[name].sub;
      if (!sub) return null;
      if (!sub.streams[seat]) sub.streams[seat] = new MediaStream();
      const stream = sub.streams[seat];
      for (const t of sub.pc.getTransceivers()) {
        if (sub.mids[t.mid] !== seat || t.receiver.track.readyState !== "live") continue;
        if (!stream.getTracks().includes(t.receiver.track)) stream.addTrack(t.receiver.track);
      }
      return stream.getVideoTracks().length ? stream : null;
    },
    close() {
      for (const r of Object.values(rooms)) {
        if (r.pub) r.pub.pc.close();
        if (r.sub) r.sub.pc.close();
      }
      session.close();
    },
  };
}
