// The players drawn as people: a figure of the project's own (inline SVG) in each seat's person
// box, whose head and eyes turn to where that player looks (the view's `looks`, attention tables),
// and who makes each palette gesture as a one-second animation (gestures.GESTURE_S). A gesture this
// seat did not see (a `moved` event) is only a movement of that person.
//
// The figure is a small rig: a head (eyes, lids, brows, mouths), a body behind the table's edge and
// two arms of two bones each, posed by CSS custom properties (--la1/--la2 the left arm's shoulder
// and elbow angles, --ra1/--ra2 the right's, --hx/--hy/--hr the head, --by the body); each gesture
// is one @keyframes on the `.person` (people.css) that moves into a pose, holds it from 25% to 75%
// and returns. The poses differ in silhouette (which arm, where the hand goes, where the elbow is,
// the head's tilt) and each has its own mark (notes, a balloon, taps), so that they can be told
// apart at a glance (tests/test_page_watch.py measures it).
//
// Captions: with prefers-reduced-motion, or when the player turns captions on (the CC button, key
// N; kept in localStorage "kemps.captions"), a gesture you saw is also written on the person.
//
// API (stable; static/js/camera.js and the replay page use it): personEl(seat), personBox(seat),
// lookName(at), updatePeople(looks), showGesture(seat, gesture, heard), showMoved(seat),
// holdGesture(seat, state, ms), reducedMotion(), captionsOn(), setCaptions(on).

// Skin and hair by seat, so that a table of people is not a row of clones.
const SKIN = ["#f1c8a4", "#c98e62", "#8d5a3b", "#e7b48f", "#5e3a27", "#f5d7bd"];
const HAIR = ["#3b2a1e", "#111111", "#a0612e", "#d9b45c", "#6d6d6d", "#5a2d18", "#2c1b10"];
// Head: centre (45, 40), radius 17 (viewBox 0 0 90 110).
const HAIRDO = [
  "M28 42 C25 18 65 18 62 42 C60 31 54 27 45 27 C36 27 30 31 28 42 Z",
  "M27.5 46 C23 14 67 14 62.5 46 C61 34 56 28.5 45 28.5 C34 28.5 29 34 27.5 46 Z",
  "M29 36 C32 20 58 20 61 36 C55 31 50 33 45 29 C40 33 35 31 29 36 Z",
  "M27.6 44 C25 19 65 19 62.4 44 L62.4 60 C59 52 61 36 55 31 C49 28 41 28 35 31 C29 36 31 52 27.6 60 Z",
];

// One arm: the upper arm from the shoulder (the group's origin), the forearm from the elbow, the
// hand (with a thumb, shown where a gesture needs it).
const ARM = (side) => `<g class="p-arm p-arm-${side}"><path class="p-upper" d="M0 0 L0 25"/>
    <g class="p-fore"><path class="p-lower" d="M0 0 L0 24"/><path class="p-thumb" d="M0 24 L${side === "l" ? "5 16" : "-5 16"}"/>
      <circle class="p-hand" cy="24" r="4.6"/></g></g>`;

const SVG = (s) => `<svg class="person" viewBox="0 0 90 110" aria-hidden="true" focusable="false"
  style="--skin:${SKIN[(s * 5 + 1) % SKIN.length]};--hair:${HAIR[(s * 3) % HAIR.length]}">
  <g class="p-body">
    <path class="p-torso" d="M3 110 C3 84 16 68 45 68 C74 68 87 84 87 110 Z"/>
    <path class="p-collar" d="M37 68.5 L45 78 L53 68.5"/>
  </g>
  <g class="p-look-head"><g class="p-head">
    <rect class="p-neck" x="39" y="50" width="12" height="21" rx="4"/>
    <circle class="p-ear" cx="28.3" cy="42" r="3.6"/><circle class="p-ear" cx="61.7" cy="42" r="3.6"/>
    <circle class="p-face" cx="45" cy="40" r="17"/>
    <path class="p-hair" d="${HAIRDO[s % HAIRDO.length]}"/>
    <path class="p-brow p-brow-l" d="M34 31.5 Q38.5 29.3 43 31.2"/>
    <path class="p-brow p-brow-r" d="M47 31.2 Q51.5 29.3 56 31.5"/>
    <ellipse class="p-white" cx="38.5" cy="38" rx="4.3" ry="3.5"/>
    <ellipse class="p-white" cx="51.5" cy="38" rx="4.3" ry="3.5"/>
    <g class="p-pupils-look"><g class="p-pupils"><circle cx="38.5" cy="38.3" r="2.1"/><circle cx="51.5" cy="38.3" r="2.1"/></g></g>
    <rect class="p-lid p-lid-l" x="33.7" y="34" width="9.6" height="8.2" rx="3"/>
    <rect class="p-lid p-lid-r" x="46.7" y="34" width="9.6" height="8.2" rx="3"/>
    <path class="p-nose" d="M45 40.5 Q43.2 45 45.6 45.6"/>
    <path class="p-mouth" d="M40.5 50 Q45 52.6 49.5 50"/>
    <path class="p-smirk" d="M40 50.8 Q46 52.6 51.5 47.8"/>
    <ellipse class="p-mouth-open" cx="45" cy="51" rx="4" ry="4.4"/>
    <g class="p-teeth"><rect x="37.5" y="47.6" width="15" height="6" rx="1.8"/><path d="M41.2 47.6v6M45 47.6v6M48.8 47.6v6M37.5 50.6h15"/></g>
    <circle class="p-mouth-o" cx="45" cy="51" r="2"/>
    <g class="p-sniff-mark"><path d="M37 46 q-3 1 -6 0"/><path d="M53 46 q3 1 6 0"/></g>
  </g></g>
  <rect class="p-table" x="0" y="101" width="90" height="9"/>
  <g class="p-fan"><rect x="-6" y="-19" width="12" height="17" rx="1.5"/><rect x="-6" y="-19" width="12" height="17" rx="1.5"/><rect x="-6" y="-19" width="12" height="17" rx="1.5"/><rect x="-6" y="-19" width="12" height="17" rx="1.5"/><rect x="-6" y="-19" width="12" height="17" rx="1.5"/></g>
  ${ARM("l")}
  ${ARM("r")}
  <g class="p-marks">
    <g class="p-taps"><path d="M57 104 l-4 -3"/><path d="M64 103 v-5"/><path d="M71 104 l4 -3"/></g>
    <g class="p-notes"><path d="M70 20 v-11 l8 -2.5 v11"/><ellipse cx="68" cy="20.5" rx="2.6" ry="2"/><ellipse cx="76" cy="18" rx="2.6" ry="2"/><path d="M70 12 l8 -2.5"/></g>
    <g class="p-balloon"><path d="M3 6 h24 a4 4 0 0 1 4 4 v8 a4 4 0 0 1 -4 4 h-10 l-5 5 v-5 h-9 a4 4 0 0 1 -4 -4 v-8 a4 4 0 0 1 4 -4 z"/><circle cx="10" cy="14" r="1.7"/><circle cx="16" cy="14" r="1.7"/><circle cx="22" cy="14" r="1.7"/></g>
    <g class="p-puff"><circle cx="20" cy="47" r="3"/><circle cx="14" cy="43" r="2.3"/><circle cx="11" cy="50" r="2"/></g>
    <g class="p-waves"><path d="M8 36 q3 -4 6 0 t6 0"/><path d="M70 36 q3 -4 6 0 t6 0"/></g>
    <g class="p-ahem"><path d="M62 62 q5 -3 10 0"/><path d="M64 67 q5 -3 10 0"/></g>
  </g>
</svg>`;

const template = document.createElement("template");
/** A new person for `seat`: an SVG element (`.person`) to put in the seat's person box. */
export function personEl(seat) {
  template.innerHTML = SVG(seat);
  return template.content.firstElementChild;
}

/** The box that holds `seat`'s person (its size is the layout's: `.near` or not); a camera tile
 * may take it (static/js/camera.js). */
export const personBox = (seat) => document.querySelector(`#seats .seat[data-seat="${seat}"] .person-box`);

/** Where `at` is, as a name for the `data-look` attribute: "seat-2", "middle", "hand" or "none". */
export const lookName = (at) => (at === null || at === undefined ? "none" : typeof at === "number" ? `seat-${at}` : at);

function centre(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2, ok: r.width > 0 };
}

/**
 * Turn every person's head and eyes to where that player looks: `looks[s]` is a seat, "middle",
 * "hand" or undefined (no looks at this table).
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

const CAPTIONS_KEY = "kemps.captions";
/** Captions on: a gesture you saw is written on the person too (always with reduced motion). */
export function captionsOn() {
  try { return reducedMotion() || localStorage.getItem(CAPTIONS_KEY) === "on"; } catch { return reducedMotion(); }
}
/** Turn captions on or off for this browser (kept in localStorage). */
export function setCaptions(on) {
  try { localStorage.setItem(CAPTIONS_KEY, on ? "on" : "off"); } catch { /* private mode: this page only */ }
  document.body.classList.toggle("captions", captionsOn());
}

const timers = {};
function personOf(seat) { return document.querySelector(`#seats .seat[data-seat="${seat}"] .person`); }

function play(seat, state, ms, heard = false) {
  const p = personOf(seat);
  if (!p) return null;
  clearTimeout(timers[seat]);
  delete p.dataset.gesture;
  delete p.dataset.heard;
  delete p.dataset.held; // playing, no longer held
  void p.getBoundingClientRect(); // restart the animation when the same gesture comes again
  p.dataset.gesture = state;
  // The last gesture (or "moved") played on this person: it stays after the show is over, so
  // that a check made late on a loaded machine still finds what the page drew.
  p.dataset.played = state;
  if (heard) p.dataset.heard = "true";
  timers[seat] = setTimeout(() => { delete p.dataset.gesture; delete p.dataset.heard; delete p.dataset.held; }, ms);
  return p;
}

/** `seat` makes `gesture` in full view of this page (seen, or heard by everyone): about 1 s. */
export function showGesture(seat, gesture, heard = false) {
  play(seat, gesture, 1100, heard);
}

/** `seat` made a gesture this page did not see: a movement, nothing more. */
export function showMoved(seat) {
  play(seat, "moved", 800);
}

/**
 * Show `seat` at `ms` milliseconds into `state` (a gesture's name, "moved"), held there; `state`
 * null: no gesture. The replay page draws each moment this way (any speed, paused, stepped).
 * While held, the person carries `data-held="STATE@MS"` (the frame drawn: its gesture's
 * animations paused at MS); a gesture played over it (or a person drawn anew) has none, so a
 * picture of the held frame can wait for the attribute instead of for time.
 */
export function holdGesture(seat, state, ms = 0) {
  const p = personOf(seat);
  if (!p) return;
  clearTimeout(timers[seat]); // held: it stays until the next hold or gesture
  delete p.dataset.held;
  if (!state) {
    if (p.dataset.gesture) { delete p.dataset.gesture; delete p.dataset.heard; }
    return;
  }
  if (p.dataset.gesture !== state) { delete p.dataset.gesture; void p.getBoundingClientRect(); p.dataset.gesture = state; }
  const at = Math.max(0, Math.min(ms, 999));
  let paused = 0;
  for (const a of p.getAnimations({ subtree: true })) {
    if (!(a instanceof CSSAnimation) || !a.animationName.startsWith("g-")) continue;
    a.pause();
    a.currentTime = at;
    paused += 1;
  }
  if (paused) p.dataset.held = `${state}@${ms}`;
}
