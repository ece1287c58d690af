// Toasts, the JSON API, the paused banner.
import { $ } from "./dom.js";
import { S, tableNow } from "./state.js";

let toastTimer = null;
export function toast(text, kind = "error") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 5000);
}

export async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (S.token) headers.Authorization = `Bearer ${S.token}`;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) throw new Error((data && data.message) || `The server said ${res.status}.`);
  return data;
}

// The banner shown while the server cannot store moves: the table waits, nothing is lost.
export function showPaused(paused, text) {
  if (paused && !S.paused) S.clock = { t: tableNow(), at: performance.now() };
  S.paused = paused;
  let b = $("paused-banner");
  if (!b) {
    b = document.createElement("div");
    b.id = "paused-banner";
    b.className = "paused-banner";
    b.setAttribute("role", "status");
    document.body.prepend(b);
  }
  b.textContent = text || "The table is paused: the server cannot store moves right now. Nothing is lost; play resumes by itself.";
  b.hidden = !paused;
}
