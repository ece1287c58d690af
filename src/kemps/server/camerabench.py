"""``kemps bench-camera``: the upstream each person of a camera table sends in a mesh (issue 24:
"state the measured upstream per person"), measured in real Chromium.

A real ``kemps serve`` process, a camera table of N people seated through the API, N pages of one
headless Chromium (``--use-fake-device-for-media-stream``: the page asks for its usual 640x480 at
up to 30 fps; ``--video noise`` feeds random frames, the hardest picture to compress, so every
stream runs at its bitrate cap). Once every page is connected to every other and the bandwidth
estimate has settled, each page's upstream is read from WebRTC's own counters (``getStats``:
``bytesSent + headerBytesSent`` of every outbound stream, audio and video, over ``seconds``), with
the resolution it actually sent (Chromium lowers it when the machine cannot encode every stream).
Needs Playwright and Chromium (the test dependencies); all pages share this machine's CPU, so a
large table is measured below what one person's own computer would send.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from kemps.server.loadtest import _Server

Video = Literal["pattern", "noise"]
CHROMIUM = os.environ.get("KEMPS_CHROMIUM") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
        "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required"]
SETTLE_S = 6.0  # the bandwidth estimate ramps up for a few seconds after connecting
# Every outbound stream of every peer connection: bytes with their RTP headers, and the largest
# video frame height sent.
OUTBOUND = """async () => {
  let bytes = 0, height = 0, fps = 0, streams = 0;
  for (const e of Object.values(window.kemps.camera.pcs)) {
    (await e.pc.getStats()).forEach((x) => {
      if (x.type !== 'outbound-rtp') return;
      bytes += (x.bytesSent || 0) + (x.headerBytesSent || 0);
      if (x.kind === 'video') { streams += 1; height = Math.max(height, x.frameHeight || 0); fps = Math.max(fps, x.framesPerSecond || 0); }
    });
  }
  return {bytes, height, fps, streams, at: performance.now()};
}"""


@dataclass
class CameraRun:
    """One table's measurement: each person's upstream (kbit/s) and the video height sent."""

    players: int
    kbps: list[float] = field(default_factory=list)
    heights: list[int] = field(default_factory=list)
    fps: list[float] = field(default_factory=list)


def _noise_y4m(folder: Path, width: int = 640, height: int = 480, frames: int = 20) -> Path:
    """A short Y4M of random frames (Chromium loops a fake capture file)."""
    path = folder / "noise.y4m"
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F20:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            out.write(b"FRAME\n")
            out.write(os.urandom(width * height * 3 // 2))
    return path


def _seat_table(url: str, players: int) -> tuple[str, list[str]]:
    import httpx

    with httpx.Client(base_url=url, timeout=10) as c:
        r = c.post("/api/rooms", json={"name": "P1", "camera": True, "pairs": players // 2})
        r.raise_for_status()
        code, tokens = r.json()["code"], [r.json()["token"]]
        for seat in range(1, players):
            r = c.post(f"/api/rooms/{code}/seats", json={"seat": seat, "name": f"P{seat + 1}"})
            r.raise_for_status()
            tokens.append(r.json()["token"])
    return code, tokens


def measure(players: int, seconds: float, video: Video = "pattern") -> CameraRun:
    """One camera table of ``players`` in a mesh: each person's upstream over ``seconds``."""
    from playwright.sync_api import sync_playwright

    server = _Server(env={"KEMPS_MESH_MAX_PLAYERS": str(max(8, players))})
    run = CameraRun(players)
    try:
        server.wait()
        code, tokens = _seat_table(server.url, players)
        with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
            args = list(ARGS)
            if video == "noise":
                args.append(f"--use-file-for-fake-video-capture={_noise_y4m(Path(tmp))}")
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
            try:
                pages = []
                for seat, token in enumerate(tokens):
                    ctx = browser.new_context(viewport={"width": 1366, "height": 768})
                    ctx.set_default_timeout(180_000)  # a loaded machine loads eight pages slowly
                    ctx.add_init_script(f"localStorage.setItem('kemps.seat.{code}', "
                                        f"JSON.stringify({{seat: {seat}, token: '{token}'}}))")
                    page = ctx.new_page()
                    page.goto(f"{server.url}/room/{code}")
                    pages.append(page)
                for page in pages:
                    page.wait_for_function(
                        f"() => Object.values(window.kemps.camera.pcs).filter((e) => "
                        f"e.pc.connectionState === 'connected').length === {players - 1}",
                        timeout=180_000)
                time.sleep(SETTLE_S)
                before: list[dict[str, Any]] = [page.evaluate(OUTBOUND) for page in pages]
                time.sleep(seconds)
                after: list[dict[str, Any]] = [page.evaluate(OUTBOUND) for page in pages]
                for b, a in zip(before, after):
                    run.kbps.append(8 * (a["bytes"] - b["bytes"]) / (a["at"] - b["at"]))
                    run.heights.append(int(a["height"]))
                    run.fps.append(float(a["fps"]))
            finally:
                browser.close()
    finally:
        server.stop()
    return run


def report(runs: list[CameraRun], video: Video, load: str) -> str:
    """The figures as Markdown: per table size, each person's upstream (median and spread over
    every person of every run), the video height and frame rate sent, and the load."""
    lines = [f"Measured by `kemps bench-camera --video {video}` (fake camera: "
             f"{'random frames, every stream at its cap' if video == 'noise' else 'Chromium pattern'}"
             f"; load average before: {load}).", "",
             "| players | streams up per person | upstream per person, kbit/s (median, min-max) "
             "| per stream, kbit/s (median) | video height sent (median) | frames/s sent "
             "(median) | runs |",
             "|---:|---:|---|---:|---:|---:|---:|"]
    for players in sorted({r.players for r in runs}):
        mine = [r for r in runs if r.players == players]
        kbps = [k for r in mine for k in r.kbps]
        heights = [h for r in mine for h in r.heights]
        fps = [f for r in mine for f in r.fps]
        lines.append(f"| {players} | {players - 1} | {statistics.median(kbps):.0f} "
                     f"({min(kbps):.0f}-{max(kbps):.0f}) | "
                     f"{statistics.median(kbps) / (players - 1):.0f} | "
                     f"{statistics.median(heights):.0f} | {statistics.median(fps):.0f} | "
                     f"{len(mine)} |")
    return "\n".join(lines)


def run_camera_benchmark(players: tuple[int, ...], seconds: float, runs: int,
                         video: Video) -> list[CameraRun]:
    """``runs`` measurements of each table size (each printed as it is made)."""
    out = []
    for n in players:
        for _ in range(runs):
            run = measure(n, seconds, video)
            print(f"{n} players: upstream kbit/s {[round(k) for k in run.kbps]}, heights "
                  f"{run.heights}, frames/s {[round(f) for f in run.fps]}", flush=True)
            out.append(run)
    return out
