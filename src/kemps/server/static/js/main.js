// Kemps — the browser client, as ES modules with no build step. This module starts the page:
// the home screen (create or join a room), then the room (lobby and table) over its socket.
import { banner } from "./banner.js";
import { cameraState } from "./camera.js";
import { $ } from "./dom.js";
import { acceptProposal, agreeDraft, keepOurs } from "./huddle.js";
import { buildHelp, toggleHelp, wireKeys } from "./keys.js";
import { clearLog } from "./log.js";
import { onFocus, wireLook } from "./looks.js";
import { captionsOn, setCaptions } from "./people.js";
import { botLevel, hostCall, putRules, rulesBody } from "./lobby.js";
import { fillPairs, fillPresetSelect, renderCreateOptions } from "./options.js";
import { render, showScreen } from "./render.js";
import { bindName, playerKey } from "./player.js";
import { connect, send, sendAction, sendSwap, handleMessage } from "./socket.js";
import { setMuted, muted, showMute } from "./sound.js";
import { S, loadToken, rules, saveToken, setClock } from "./state.js";
import { togglePalette, updateTimers } from "./table.js";
import { showTables, wireTables } from "./tables.js";
import { api, toast } from "./ui.js";

// For tests and the curious: the state and the senders, from the console.
window.kemps = { S, send, sendAction, sendSwap, handleMessage, render, camera: cameraState };

// The table fills the window below the top bar: its height is a CSS variable.
function trackTopbar() {
  const bar = document.querySelector(".topbar");
  const set = () => document.documentElement.style.setProperty("--topbar-h", `${bar.offsetHeight}px`);
  new ResizeObserver(set).observe(bar);
  set();
}

async function boot() {
  trackTopbar();
  try {
    const p = await api("GET", "/api/presets");
    S.presets = p.presets; S.gestures = p.gestures; S.botLevels = p.bot_levels || ["simple"];
    S.options = p.options || {}; S.maxPairs = p.max_pairs || 6; S.onlineDefaults = p.online_defaults || {};
    const levelSelect = $("bot-level");
    if (levelSelect && !levelSelect.options.length) {
      // learned: the research environment's trained network (docs/research.md), still far weaker than simple
      for (const level of S.botLevels) levelSelect.append(new Option(level === "learned" ? "learned (research, weak)" : level, level));
      levelSelect.value = S.botLevels.includes("club") ? "club" : S.botLevels[0];
    }
    S.botSpeeds = p.bot_speeds || [];
    const speedSelect = $("bot-speed");
    if (speedSelect && !speedSelect.options.length) {
      for (const speed of S.botSpeeds) speedSelect.append(new Option(speed, speed));
      speedSelect.addEventListener("change", () => hostCall("POST", "bots", { speed: speedSelect.value }));
    }
  } catch (e) { toast(`Could not reach the server: ${e.message}`); }
  wireStatic();
  wireKeys();
  buildHelp();
  showMute();
  const m = location.pathname.match(/^\/room\/([A-Za-z0-9]+)/);
  if (m) openRoom(m[1].toUpperCase());
  else showHome();
  setInterval(() => { if (S.view && S.room && !$("game").hidden) updateTimers(); }, 250);
}

function showHome() {
  S.code = null;
  $("roombar").hidden = true;
  showScreen("home");
  fillPresetSelect($("create-preset"), "pagat");
  fillPairs($("create-pairs"), 2);
  $("create-name").value = localStorage.getItem("kemps.name") || "";
  renderCreateOptions();
  showTables(goToRoom);
  const q = new URLSearchParams(location.search).get("code");
  if (q) $("join-code").value = q;
}

function wireStatic() {
  $("create-preset").addEventListener("change", () => { S.createOptions = {}; renderCreateOptions(); });
  $("create-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const name = $("create-name").value.trim();
    if (!name) { toast("Type your name first."); return; }
    localStorage.setItem("kemps.name", name);
    try {
      const camera = $("create-camera").checked;
      const options = { ...S.createOptions };
      if (camera) delete options.attention; // off at a camera table
      const r = await api("POST", "/api/rooms", { name, preset: $("create-preset").value,
        pairs: Number($("create-pairs").value), options, camera, player_key: playerKey(),
        listed: $("create-listed").checked });
      bindName(name);
      saveToken(r.code, r.seat, r.token);
      history.pushState({}, "", `/room/${r.code}`);
      openRoom(r.code);
    } catch (e) { toast(e.message); }
  });
  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const code = $("join-code").value.trim().toUpperCase();
    if (!code) return;
    history.pushState({}, "", `/room/${code}`);
    openRoom(code);
  });
  $("copy-link").addEventListener("click", async () => {
    const link = `${location.origin}/room/${S.code}`;
    try { await navigator.clipboard.writeText(link); toast(`Copied ${link}`, "info"); }
    catch { toast(`Share this link: ${link}`, "info"); }
  });
  $("lobby-name").addEventListener("change", () => localStorage.setItem("kemps.name", $("lobby-name").value.trim()));
  $("fill-bots").addEventListener("click", () => hostCall("POST", "bots", { fill: true, level: botLevel() }));
  $("start-match").addEventListener("click", () => hostCall("POST", "start"));
  $("rematch").addEventListener("click", () => hostCall("POST", "start"));
  $("spectators-allowed").addEventListener("change", () => hostCall("PUT", "spectators", { allowed: $("spectators-allowed").checked }));
  $("lobby-preset").addEventListener("change", () => putRules({ preset: $("lobby-preset").value, pairs: rules().pairs }));
  $("lobby-camera").addEventListener("change", () => {
    const body = rulesBody();
    delete body.options.attention; // a camera table plays without it; a table leaving camera gets the online default again
    putRules({ ...body, camera: $("lobby-camera").checked });
  });
  $("lobby-pairs-select").addEventListener("change", () => putRules({ ...rulesBody(), pairs: Number($("lobby-pairs-select").value) }));
  $("agree-signals").addEventListener("click", agreeDraft);
  $("proposal-accept").addEventListener("click", acceptProposal);
  $("proposal-keep").addEventListener("click", keepOurs);
  // Attention tables: pointing at the middle or at your cards turns your look there.
  wireLook($("middle"), "middle");
  wireLook($("hand"), "hand");
  $("ready").addEventListener("click", () => send({ type: "ready" }));
  $("chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = $("chat-text").value.trim();
    if (text) sendAction({ type: "chat", text });
    $("chat-text").value = "";
  });
  $("mute").addEventListener("click", () => setMuted(!muted()));
  // Captions: each gesture you see written on the person (also with reduced motion).
  setCaptions(captionsOn());
  const showCaptions = () => $("captions").setAttribute("aria-pressed", String(captionsOn()));
  showCaptions();
  $("captions").addEventListener("click", () => { setCaptions(!captionsOn()); showCaptions(); });
  new MutationObserver(showCaptions).observe(document.body, { attributes: true, attributeFilter: ["class"] });
  $("gestures-toggle").addEventListener("click", () => togglePalette());
  onFocus(render);
  $("play-bots").addEventListener("click", playAgainstBots);
  wireTables(goToRoom);
  $("keys-button").addEventListener("click", () => toggleHelp(true));
  $("help-close").addEventListener("click", () => toggleHelp(false));
  banner.onHide = render;
  $("banner").addEventListener("click", () => banner.hide());
  window.addEventListener("popstate", () => location.reload());
}

// One click to play: a room at the default rules (the server's preset and online defaults), bots
// in the three other seats (your partner one of them), the match started and you ready: the
// first hand is dealt as soon as the bots are ready too. The settings are the create form below.
async function playAgainstBots() {
  const button = $("play-bots");
  const name = $("create-name").value.trim() || localStorage.getItem("kemps.name") || "Guest";
  button.disabled = true;
  try {
    const r = await api("POST", "/api/rooms", { name, player_key: playerKey() });
    bindName(name);
    saveToken(r.code, r.seat, r.token);
    S.code = r.code; S.token = r.token; S.seat = r.seat;
    const level = S.botLevels.includes("club") ? "club" : S.botLevels[0];
    await api("POST", `/api/rooms/${r.code}/bots`, { fill: true, level });
    await api("POST", `/api/rooms/${r.code}/start`);
    S.autoReady = r.code;
    history.pushState({}, "", `/room/${r.code}`);
    await openRoom(r.code);
  } catch (e) { toast(e.message); }
  finally { button.disabled = false; }
}

// Into a room whose seat (if any) is saved already: the open tables' Join and Quick match.
function goToRoom(code) { openRoom(code); }

async function openRoom(code) {
  S.code = code;
  const stored = loadToken(code);
  S.token = stored ? stored.token : null;
  S.seat = stored ? stored.seat : null;
  $("roombar").hidden = false;
  $("room-code").textContent = code;
  document.title = `Kemps — room ${code}`;
  // How to play, in this table's call words.
  $("howto-link").href = `/how-to-play?room=${code}`;
  $("help-howto").href = `/how-to-play?room=${code}`;
  clearLog();
  try { S.room = await api("GET", `/api/rooms/${code}`); }
  catch (e) { toast(e.message); history.replaceState({}, "", "/"); showHome(); return; }
  setClock(S.room.now);
  $("lobby-name").value = localStorage.getItem("kemps.name") || "";
  render();
  connect();
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
else boot();
