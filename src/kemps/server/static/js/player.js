// The remembered player (issue 32; kemps.server.players): a private key kept in this browser
// (32 random bytes, URL-safe base64), sent when the player sits so the seat is rated as theirs.
// The server keeps only its hash and the public player id; whoever holds the key is the player.
const KEY = "kemps.playerKey";

export function playerKey() {
  let key = null;
  try { key = localStorage.getItem(KEY); } catch { return undefined; }
  if (key && /^[A-Za-z0-9_-]{32,128}$/.test(key)) return key;
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  key = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  try { localStorage.setItem(KEY, key); } catch { return undefined; }
  return key;
}

// Remember the key and bind the name the player sits with (best effort: a refusal never stops
// the player from sitting). Resolves to the player's public id, or null.
export async function bindName(name) {
  const key = playerKey();
  if (!key) return null;
  try {
    const res = await fetch("/api/players", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ key, name }) });
    if (!res.ok) return null;
    const data = await res.json();
    try { localStorage.setItem("kemps.playerId", data.id); } catch { /* private mode */ }
    return data.id;
  } catch { return null; }
}
