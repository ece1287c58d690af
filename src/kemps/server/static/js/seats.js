// The seats around the felt, shared by the live table (table.js) and the replay (replay-table.js):
// one element per seat with its person box (the figure of js/people.js, or a camera tile), its
// name plate and tags, its cards, its last move and its caption.
//
// Layouts (a class on the felt, sizes in style.css from the felt's own size, container units):
// - "four" (two pairs, a wide window): the partner across the top, the opponents at the sides, you
//   at the bottom; the middle below the top seat.
// - "row" (two pairs on a phone): the three others in a row across the top (left, partner,
//   right), the middle below them, you at the bottom.
// - "ring" (three pairs or more): round an oval as before (the phone: over the top arc).
// The player you look at is drawn large (`.near`: 40% of the felt's height, 36% on a phone,
// within the window's width), the others smaller (`.far`, about 22%), you smallest.
import { h } from "./dom.js";
import { personEl } from "./people.js";

// Seat positions around an oval: `bottom` at the bottom, then clockwise (the next seat sits on
// the bottom player's left, i.e. screen left), partners straight across.
export function seatPos(seat, bottom, n, rx = 41, ry = 38) {
  const k = (seat - bottom + n) % n;
  const a = (Math.PI / 2) + (k * 2 * Math.PI) / n;
  return { x: 50 + rx * Math.cos(a), y: 50 + ry * Math.sin(a) };
}
// On a narrow (phone) table the others sit on the upper arc, left to right over the top (still in
// clockwise order, partner at the top), so the middle has the lower half to itself.
function seatPosNarrow(seat, bottom, n) {
  const k = (seat - bottom + n) % n;
  if (k === 0) return { x: 50, y: 92 };
  const a = Math.PI + ((k - 1) * Math.PI) / (n - 2);
  return { x: 50 + 37 * Math.cos(a), y: 45 + 36 * Math.sin(a) };
}

/** The layout for `n` seats: "four", "row" or "ring". */
export const layoutFor = (n, narrow) => (n === 4 ? (narrow ? "row" : "four") : "ring");

/**
 * Build the seats of a table of `n` into `seatsEl` (an element inside `felt`), `bottom` the seat
 * at the bottom (yours, or 0 for a spectator and the replay), `pairs` = n / 2. `wire(el, seat)`
 * is called for each seat (looking by pointing, on the live page). Rebuilt only when one of
 * these changes; returns true when it rebuilt.
 */
export function buildSeats(seatsEl, felt, { n, bottom, narrow, wire = null }) {
  const key = `${n}:${bottom}:${narrow}`;
  if (seatsEl.dataset.layout === key) return false;
  seatsEl.dataset.layout = key;
  const layout = layoutFor(n, narrow);
  felt.classList.remove("lay-four", "lay-row", "lay-ring");
  felt.classList.add(`lay-${layout}`);
  felt.classList.toggle("crowded", narrow && n > 4);
  felt.classList.toggle("packed", n > 12);
  seatsEl.innerHTML = "";
  for (let s = 0; s < n; s++) {
    const k = (s - bottom + n) % n;
    const pos = layout !== "ring" ? null : narrow && n <= 12 ? seatPosNarrow(s, bottom, n)
      : seatPos(s, bottom, n, narrow ? 44 : 41, narrow ? 44 : 38);
    let side;
    if (k === 0) side = "bottom";
    else if (pos) side = pos.y < 25 ? "top" : pos.x < 50 ? "left" : "right";
    else side = k === n / 2 ? "top" : k < n / 2 ? "left" : "right";
    // .cam: where a camera table's video tile of this seat goes, over the person (js/camera.js)
    const box = h("div", { class: "person-box", "data-seat": s },
      h("div", { class: "cam", "data-seat": s }),
      personEl(s),
      h("div", { class: "bubble", role: "status" }),
      h("kbd", { class: "key person-key", "aria-hidden": "true" }));
    const plate = h("div", { class: "plate" }, h("span", { class: "dot", "aria-hidden": "true" }), h("span", { class: "seat-name" }), h("span", { class: "lag", title: "Round trip to the server" }));
    const el = h("div", { class: `seat pair-${s % (n / 2)} side-${side}`, "data-seat": s,
      style: `--k:${k};${pos ? `left:${pos.x}%;top:${pos.y}%` : ""}` },
    h("div", { class: "who" }, box,
      h("div", { class: "info" },
        h("div", { class: "nameplate" }, plate, h("div", { class: "tags" })),
        h("div", { class: "seat-cards" }),
        h("div", { class: "last" }))));
    if (wire) wire(el, s);
    seatsEl.append(el);
  }
  return true;
}

/** Draw `seat` large (the player you look at); null: nobody. */
export function setNear(seatsEl, seat) {
  for (const el of seatsEl.children) el.classList.toggle("near", Number(el.dataset.seat) === seat);
  clearMiddle(seatsEl);
}

/**
 * On a phone's row of seats, tell the felt (`--seats-bottom`, pixels from its top) where the row
 * ends, so that the middle sits below the tallest seat: the large one with a dealer's tag and a
 * last move on two lines stands taller than the layout's sum. Measured again whenever a person
 * box's growth ends (its height is a 0.25 s transition) and at every render.
 */
export function clearMiddle(seatsEl) {
  const felt = seatsEl.closest(".felt");
  if (!felt) return;
  if (!felt.classList.contains("lay-row")) {
    felt.style.removeProperty("--seats-bottom");
    return;
  }
  if (!seatsEl.dataset.clearing) {
    seatsEl.dataset.clearing = "1";
    seatsEl.addEventListener("transitionend", () => clearMiddle(seatsEl));
  }
  const top = felt.getBoundingClientRect().top + felt.clientTop;
  let bottom = 0;
  for (const el of seatsEl.children) {
    if (!el.classList.contains("side-bottom")) bottom = Math.max(bottom, el.getBoundingClientRect().bottom - top);
  }
  felt.style.setProperty("--seats-bottom", `${Math.ceil(bottom)}px`);
}
