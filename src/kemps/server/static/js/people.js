// The players drawn as people: a small figure of the project's own (inline SVG) on each seat,
// whose head and eyes turn to where that player looks (the view's `looks`, attention tables), and
// who makes each palette gesture as a short animation (about a second, gestures.GESTURE_S). A
// gesture this seat did not see (a `moved` event) is only a slight movement of that person.
// With prefers-reduced-motion the page shows a caption on the person instead (what you saw only).

// Skin and hair by seat, so that a table of people is not a row of clones.
const SKIN = ["#f1c8a4", "#c98e62", "#8d5a3b", "#e7b48f", "#5e3a27", "#f5d7bd"];
const HAIR = ["#3b2a1e", "#111111", "#a0612e", "#d9b45c", "#6d6d6d", "#5a2d18", "#2c1b10"];
const HAIRDO = [
  "M10 16 C9 6 31 6 30 16 C27 10.5 13 10.5 10 16 Z",
  "M9.6 18 C8 5 32 5 30.4 18 C29 12 25 9.8 20 9.8 C15 9.8 11 12 9.6 18 Z",
  "M10.5 14 C12 7 28 7 29.5 14 C25 11 22 12.5 20 10.5 C17 12.5 14 11 10.5 14 Z",
  "M9.8 17 C8.5 7 31.5 7 30.2 17 L30.2 24 C28.8 20 29.5 14 27 12 C22 10 18 10 13 12 C10.5 14 11.2 20 9.8 24 Z",
];

const SVG = (s) => `<svg class="person" viewBox="0 0 40 44" aria-hidden="true" focusable="false"
  style="--skin:${SKIN[(s * 5 + 1) % SKIN.length]};--hair:${HAIR[(s * 3) % HAIR.length]}">
  <g class="p-body">
    <path class="p-torso" d="M4 44 C4 34 11 30.5 20 30.5 C29 30.5 36 34 36 44 Z"/>
    <path class="p-arms" d="M9 38 Q20 34.6 31 38 L31 41.6 Q20 38.2 9 41.6 Z"/>
    <g class="p-fan"><rect x="27" y="33" width="4" height="6" rx=".6"/><rect x="27" y="33" width="4" height="6" rx=".6"/><rect x="27" y="33" width="4" height="6" rx=".6"/></g>
  </g>
  <g class="p-look-head"><g class="p-head">
    <rect class="p-neck" x="17" y="24" width="6" height="7" rx="2"/>
    <circle class="p-face" cx="20" cy="17" r="10"/>
    <path class="p-hair" d="${HAIRDO[s % HAIRDO.length]}"/>
    <ellipse class="p-white" cx="16" cy="16.6" rx="2.6" ry="2.1"/>
    <ellipse class="p-white" cx="24" cy="16.6" rx="2.6" ry="2.1"/>
    <g class="p-pupils-look"><g class="p-pupils"><circle cx="16" cy="16.6" r="1.3"/><circle cx="24" cy="16.6" r="1.3"/></g></g>
    <rect class="p-lid p-lid-l" x="13.2" y="14.3" width="5.6" height="4.6"/>
    <rect class="p-lid p-lid-r" x="21.2" y="14.3" width="5.6" height="4.6"/>
    <path class="p-mouth" d="M17 22 Q20 23.7 23 22"/>
    <ellipse class="p-mouth-open" cx="20" cy="22.7" rx="1.7" ry="2"/>
    <g class="p-sound"><path d="M29.5 20.5 q1.8 1.6 0 3.2"/><path d="M32 19 q3 3.2 0 6.4"/></g>
  </g></g>
  <circle class="p-hand" r="3.3"/>
  <circle class="p-hand p-hand2" r="3.3"/>
</svg>`;

const template = document.createElement("template");
/** A new person for `seat`: an SVG element (`.person`) to put on the seat. */
export function personEl(seat) {
  template.innerHTML = SVG(seat);
  return template.content.firstElementChild;
}

/** Where `at` is, as a name for the `data-look` attribute: "seat-2", "middle", "hand" or "none". */
export const lookName = (at) => (at === null || at === undefined ? "none" : typeof at === "number" ? `seat-${at}` : at);

function centre(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2, ok: r.width > 0 };
}

/**
 * Turn every person's head and eyes to where that player looks: `looks[s]` is a seat, "middle",
 * "hand" or undefined (no looks at this table). `mine` is the look of the viewer (a spectator's
 * own look, or the seat's), shown as rings on what it looks at.
 */
export function updatePeople(looks) {
  const seats = document.querySelectorAll("#seats .seat");
  const middle = document.getElementById("middle");
  const felt = document.getElementById("felt");
  const mid = middle && !middle.hidden ? centre(middle) : centre(felt);
  for (const el of seats) {
    const s = Number(el.dataset.seat);
    const p = el.querySelector(".person");
    if (!p) continue;
    const at = looks ? looks[s] : undefined;
    const name = lookName(at);
    let dx = 0, dy = 0;
    if (name === "hand") dy = 1;
    else if (name !== "none") {
      const other = typeof at === "number" ? document.querySelector(`#seats .seat[data-seat="${at}"] .person`) : null;
      const to = other ? centre(other) : mid, from = centre(p);
      const len = Math.hypot(to.x - from.x, to.y - from.y);
      if (len > 1 && to.ok && from.ok) { dx = (to.x - from.x) / len; dy = (to.y - from.y) / len; }
    }
    if (p.dataset.look !== name || p.dataset.dx !== dx.toFixed(2) || p.dataset.dy !== dy.toFixed(2)) {
      p.dataset.look = name;
      p.dataset.dx = dx.toFixed(2); p.dataset.dy = dy.toFixed(2);
      p.style.setProperty("--lx", dx.toFixed(3));
      p.style.setProperty("--ly", dy.toFixed(3));
    }
  }
}

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");
export const reducedMotion = () => reduced.matches;
const timers = {};

function play(seat, state, ms) {
  const p = document.querySelector(`#seats .seat[data-seat="${seat}"] .person`);
  if (!p) return null;
  clearTimeout(timers[seat]);
  delete p.dataset.gesture;
  void p.getBoundingClientRect(); // restart the animation when the same gesture comes again
  p.dataset.gesture = state;
  timers[seat] = setTimeout(() => { delete p.dataset.gesture; }, ms);
  return p;
}

/** `seat` makes `gesture` in full view of this page (seen, or heard by everyone): about 1 s. */
export function showGesture(seat, gesture, heard = false) {
  play(seat, heard ? "heard" : gesture, 1200);
}

/** `seat` made a gesture this page did not see: a slight movement, nothing more. */
export function showMoved(seat) {
  play(seat, "moved", 700);
}
