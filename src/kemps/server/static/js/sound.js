// Short synthesised sounds for calls, swaps and heard gestures; a mute remembered in localStorage.
import { $, h } from "./dom.js";

const KEY = "kemps.mute";
let audio = null;
export const muted = () => localStorage.getItem(KEY) === "1";

export function setMuted(on) {
  localStorage.setItem(KEY, on ? "1" : "0");
  showMute();
}
export function showMute() {
  const b = $("mute");
  if (!b) return;
  const on = muted();
  b.replaceChildren("♪ ", h("span", { class: "mute-word", text: on ? "Sound off" : "Sound on" }));
  b.setAttribute("aria-label", on ? "Sound off (M)" : "Sound on (M)");
  b.setAttribute("aria-pressed", on ? "true" : "false");
  b.title = on ? "Sounds are off (remembered on this browser). Press M to turn them on." : "Press M to mute.";
}

function tone(freq, dur, gain = 0.05, type = "sine", at = 0) {
  audio = audio || new (window.AudioContext || window.webkitAudioContext)();
  const o = audio.createOscillator(), g = audio.createGain();
  const t0 = audio.currentTime + at;
  o.type = type;
  o.frequency.value = freq;
  g.gain.setValueAtTime(gain, t0);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  o.connect(g).connect(audio.destination);
  o.start(t0); o.stop(t0 + dur + 0.01);
}

// kind: "swap" (a soft tick), "call" (two rising notes), "right" / "wrong", "gesture" (a name-
// dependent note, so two heard gestures sound different).
export function play(kind, name = "") {
  if (muted()) return;
  try {
    if (kind === "swap") tone(520, 0.07, 0.03, "triangle");
    else if (kind === "call") { tone(440, 0.16, 0.07, "square"); tone(660, 0.22, 0.07, "square", 0.12); }
    else if (kind === "right") { tone(523, 0.15, 0.06); tone(784, 0.3, 0.06, "sine", 0.12); }
    else if (kind === "wrong") { tone(300, 0.2, 0.06, "sawtooth"); tone(220, 0.35, 0.06, "sawtooth", 0.15); }
    else {
      let f = 300;
      for (const ch of name) f += ch.charCodeAt(0);
      tone(200 + (f % 500), 0.25);
    }
  } catch { /* no sound: the captions say it */ }
}
