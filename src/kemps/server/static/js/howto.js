// The how-to-play page in the table's own call words: ?room=CODE (that room's rules) or
// ?preset=NAME; otherwise the classic Kemps words.
import { $, h } from "./dom.js";

function titleOf(note, name) {
  const i = (note || "").indexOf(":");
  const line = i > 0 ? note.slice(i + 1).trim() : note || "";
  return [i > 0 ? note.slice(0, i) : name, line.charAt(0).toUpperCase() + line.slice(1)];
}

function useWords(r, where) {
  const words = { call: r.call_word, stop: r.stop_word, word: r.word ? r.word.split("").join("-") : null };
  for (const el of document.querySelectorAll("[data-w]")) {
    const w = words[el.dataset.w];
    if (w) el.textContent = w;
  }
  if (where) $("table-words").textContent = `Words of ${where}: call ${r.call_word}, ${r.stop_word}, the word ${words.word}.`;
}

async function main() {
  const q = new URLSearchParams(location.search);
  let presets = {};
  try { presets = (await (await fetch("/api/presets")).json()).presets || {}; } catch { presets = {}; }
  const dl = $("presets");
  for (const [name, p] of Object.entries(presets)) {
    const [title, line] = titleOf(p.note, name);
    dl.append(h("dt", {}, h("a", { href: `/how-to-play?preset=${encodeURIComponent(name)}`, text: title })), h("dd", { text: line }));
  }
  const room = q.get("room"), preset = q.get("preset");
  if (room) {
    try {
      const res = await fetch(`/api/rooms/${encodeURIComponent(room)}`);
      if (res.ok) useWords((await res.json()).rules, `room ${room.toUpperCase()}`);
    } catch { /* the classic words stay */ }
  } else if (preset && presets[preset]) useWords(presets[preset].rules, titleOf(presets[preset].note, preset)[0]);
}
main();
