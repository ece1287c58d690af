// The two DOM helpers as globals for the pages still written as plain scripts (the scorekeeper
// and the tournament desk load this module first; deferred scripts run in document order).
import { $, h } from "./dom.js";

window.$ = $;
window.h = h;
