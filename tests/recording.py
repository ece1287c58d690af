"""A screen recording of a page without ffmpeg: Chromium's own screencast (the DevTools protocol's
``Page.startScreencast``, JPEG frames with their times) replayed onto a canvas in a second page and
encoded there by the browser's ``MediaRecorder`` as WebM (VP8). Used by tests/test_page_people.py
for the README's short recording (Playwright's ``record_video_dir`` needs a separate ffmpeg build).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page

_ENCODE = """async ({frames, w, h, fps, bps}) => {
  const canvas = document.createElement('canvas');
  canvas.width = w; canvas.height = h; document.body.append(canvas);
  const ctx = canvas.getContext('2d');
  const load = ([t, d]) => new Promise((ok) => {
    const img = new Image(); img.onload = () => ok([t, img]); img.src = 'data:image/jpeg;base64,' + d; });
  const imgs = await Promise.all(frames.map(load));
  ctx.drawImage(imgs[0][1], 0, 0, w, h);
  const rec = new MediaRecorder(canvas.captureStream(fps), {mimeType: 'video/webm;codecs=vp8', videoBitsPerSecond: bps});
  const chunks = [];
  rec.ondataavailable = (e) => { if (e.data.size) chunks.push(e.data); };
  const stopped = new Promise((ok) => { rec.onstop = ok; });
  rec.start(250);
  const t0 = imgs[0][0], start = performance.now();
  for (const [t, img] of imgs) {
    const wait = (t - t0) * 1000 - (performance.now() - start);
    if (wait > 0) await new Promise((ok) => setTimeout(ok, wait));
    ctx.drawImage(img, 0, 0, w, h);
  }
  await new Promise((ok) => setTimeout(ok, 400));
  rec.stop();
  await stopped;
  const bytes = new Uint8Array(await new Blob(chunks, {type: 'video/webm'}).arrayBuffer());
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}"""


class Screencast:
    """Frames of ``page`` as Chromium paints them, from :meth:`start` to :meth:`stop`."""

    def __init__(self, page: Page, width: int, height: int, quality: int = 70) -> None:
        self.page, self.width, self.height, self.quality = page, width, height, quality
        self.frames: list[tuple[float, str]] = []
        self.cdp = page.context.new_cdp_session(page)
        self.cdp.on("Page.screencastFrame", self._frame)

    def _frame(self, params: dict[str, Any]) -> None:
        self.frames.append((float(params["metadata"]["timestamp"]), str(params["data"])))
        self.cdp.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})

    def start(self) -> None:
        self.cdp.send("Page.startScreencast", {"format": "jpeg", "quality": self.quality,
                                               "maxWidth": self.width, "maxHeight": self.height})

    def stop(self) -> None:
        self.cdp.send("Page.stopScreencast")

    def save_webm(self, browser: Browser, path: Path, fps: int = 15,
                  bits_per_s: int = 600_000) -> int:
        """Encode the frames (in real time: as long as they lasted) to ``path``; its size."""
        if not self.frames:
            raise ValueError("no frames were painted")
        w, h = self.width, self.height
        ctx = browser.new_context(viewport={"width": w, "height": h})
        try:
            enc = ctx.new_page()
            enc.set_content("<body style='margin:0;background:#000'></body>")
            data = enc.evaluate(_ENCODE, {"frames": self.frames, "w": w, "h": h, "fps": fps,
                                          "bps": bits_per_s})
        finally:
            ctx.close()
        raw = base64.b64decode(data)
        path.write_bytes(raw)
        return len(raw)
