// Kemps — helpers shared by the scorekeeper and the tournament desk pages. Plain JS, no build step.
"use strict";


let toastTimer = null;
function toast(text, kind = "error") {
  const t = $("toast");
  t.textContent = text;
  t.className = `toast ${kind === "error" ? "" : "info"}`;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, kind === "error" ? 6000 : 3000);
}

// JSON API call; a refusal ({code, message}) becomes a thrown Error with .code.
async function api(method, path, body) {
  const res = await fetch(path, { method, headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body) });
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.message) || `The server said ${res.status}.`);
    err.code = data && data.code;
    throw err;
  }
  return data;
}

const ord = (n) => `${n}${["th", "st", "nd", "rd"][(n % 100 > 10 && n % 100 < 14) || n % 10 > 3 ? 0 : n % 10]}`;

// The word with the letters taken so far highlighted, e.g. K-E-M of KEMPS.
function wordBoxes(word, count, label) {
  return h("span", { class: "word", role: "img", "aria-label": label },
    [...word].map((ch, i) => h("span", { class: i < count ? "got" : "", text: ch, "aria-hidden": "true" })));
}

function setParam(key, value) {
  const url = new URL(location.href);
  url.searchParams.set(key, value);
  history.replaceState(null, "", url);
}
