// One render for the whole page: the lobby before a match, the table during and after one.
import { syncCamera } from "./camera.js";
import { $ } from "./dom.js";
import { renderLobby } from "./lobby.js";
import { renderReferee } from "./referee.js";
import { S } from "./state.js";
import { renderGame } from "./table.js";

export function showScreen(id) {
  for (const s of ["home", "lobby", "game"]) $(s).hidden = s !== id;
  document.body.dataset.screen = id;
}

export function render() {
  if (!S.code || !S.room) return;
  if (S.room.status === "lobby" || !S.view) { showScreen("lobby"); renderLobby(); }
  else { showScreen("game"); renderGame(); }
  renderReferee(); // a table whose dealer does not play: its referee (js/referee.js)
  syncCamera(); // a camera table's video follows the room (js/camera.js)
}
