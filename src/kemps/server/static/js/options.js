// The rule form, built from the schema the server serves (GET /api/presets "options": each
// option's group, kind, values, label, one-line description and seed, from its one declaration in
// kemps.rule_options). The common options
// come first; the rest are folded by group.
import { $, h } from "./dom.js";
import { S } from "./state.js";

// What a table talks about before its first hand; everything else is folded. `attention` is on at
// online tables (the server's default, kemps.server.bodies.ONLINE_DEFAULTS): the host may turn it off.
export const COMMON = ["attention", "word", "target", "multi_swap", "heard_signals", "stop_target", "double_calls", "hands"];
export const pretty = (v) => (v === true ? "yes" : v === false ? "no" : String(v).replace(/_/g, " "));

// A preset's name and its one line, both from its served note ("Kent: call "Kent", ...").
export function presetTitle(name) {
  const note = S.presets && S.presets[name] ? S.presets[name].note || "" : "";
  const i = note.indexOf(":");
  const line = i > 0 ? note.slice(i + 1).trim() : note;
  return { title: i > 0 ? note.slice(0, i) : name, line: line.charAt(0).toUpperCase() + line.slice(1) };
}

export function fillPresetSelect(sel, current) {
  sel.innerHTML = "";
  const names = Object.keys(S.presets || { pagat: 1 });
  if (current && !names.includes(current)) sel.append(h("option", { value: current, text: current === "custom" ? "Custom rules" : `${current} (changed)` }));
  for (const n of names) sel.append(h("option", { value: n, text: presetTitle(n).title }));
  sel.value = current;
}
export function fillPairs(sel, current) {
  sel.innerHTML = "";
  for (let p = 2; p <= S.maxPairs; p++) sel.append(h("option", { value: p, text: `${p} pairs (${2 * p} players)` }));
  sel.value = String(current);
}

function optionRow(container, key, value, info, onChange, changed) {
  const id = `${container.id}-${key}`;
  let input;
  if (info.kind === "choice" || info.kind === "bool") {
    const choices = info.kind === "choice" ? info.choices : [true, false];
    input = h("select", { id });
    for (const c of choices) input.append(h("option", { value: JSON.stringify(c), text: pretty(c) }));
    input.value = JSON.stringify(value);
  } else {
    const num = info.kind === "seconds" || info.kind === "int";
    input = h("input", { id, type: num ? "number" : "text", value: String(value),
      min: num ? String(info.min) : null, max: num ? String(info.max) : null,
      step: info.kind === "seconds" ? "0.5" : num ? "1" : null, maxlength: num ? null : String(info.max_length || 40) });
  }
  input.title = `${info.description} (${info.seed})`;
  if (!onChange) input.disabled = true;
  else input.addEventListener("change", () => {
    let v;
    if (info.kind === "choice" || info.kind === "bool") v = JSON.parse(input.value);
    else if (info.kind === "seconds") v = Number(input.value);
    else if (info.kind === "int") v = Math.round(Number(input.value));
    else v = key === "word" ? input.value.trim().toUpperCase() : input.value.trim();
    onChange(key, v);
  });
  return h("div", { class: `opt ${changed && key in changed ? "changed" : ""}` },
    h("label", { for: id, text: info.label || pretty(key) }), input,
    h("small", { class: "opt-help", text: info.description }));
}

// Every option of the rule set with its value; editable when `onChange`. The folded part stays
// open across re-renders once opened.
export function optionsEditor(container, values, onChange, changed) {
  const wasOpen = container.querySelector("details.more") ? container.querySelector("details.more").open : false;
  container.innerHTML = "";
  const schema = S.options || {};
  const keys = Object.keys(schema).filter((k) => k in values && k !== "name" && k !== "pairs");
  const common = COMMON.filter((k) => keys.includes(k));
  const grid = h("div", { class: "options-grid common" });
  for (const key of common) grid.append(optionRow(container, key, values[key], schema[key], onChange, changed));
  container.append(grid);
  const rest = keys.filter((k) => !common.includes(k));
  const nChanged = rest.filter((k) => changed && k in changed).length;
  const more = h("details", { class: "more" }, h("summary", { text: `More options (${rest.length})${nChanged ? `, ${nChanged} changed` : ""}` }));
  more.open = wasOpen;
  const moreGrid = h("div", { class: "options-grid" });
  let group = null;
  for (const key of rest) {
    const info = schema[key];
    if (info.group !== group) { group = info.group; moreGrid.append(h("h4", { class: "opt-group", text: group })); }
    moreGrid.append(optionRow(container, key, values[key], info, onChange, changed));
  }
  more.append(moreGrid);
  container.append(more);
}

export function renderCreateOptions() {
  const preset = $("create-preset").value;
  // An online room plays its preset with the server's online defaults (attention on).
  const base = { ...((S.presets && S.presets[preset]) ? S.presets[preset].rules : {}), ...S.onlineDefaults };
  const values = { ...base, ...S.createOptions };
  optionsEditor($("create-options-grid"), values, (k, v) => {
    if (JSON.stringify(base[k]) === JSON.stringify(v)) delete S.createOptions[k];
    else S.createOptions[k] = v;
    renderCreateOptions();
  }, S.createOptions);
  $("create-note").textContent = presetTitle(preset).line;
  const n = Object.keys(S.createOptions).length;
  const bits = [`word ${values.word}`, values.scoring === "points" ? `points to ${values.target}` :
    values.target ? `${values.target} letters lose` : "whole word loses",
  values.multi_swap ? "multi-swap" : "one card at a time", values.heard_signals ? "heard signals" : "silent signals"];
  $("create-summary").textContent = `— ${bits.join(", ")}${n ? `; ${n} changed` : ""}`;
}
