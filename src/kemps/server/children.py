"""Child ``kemps serve`` processes started by the benches (load test, soak, watcher bench)."""

from __future__ import annotations

import signal
import subprocess


def stop_child(proc: subprocess.Popen[bytes], timeout_s: float = 30.0) -> int:
    """Stop a child server: SIGINT (a clean stop: everything queued is written), then SIGKILL if
    it has not exited within ``timeout_s`` seconds; returns its exit code (that of an earlier
    exit if it had already stopped)."""
    if proc.poll() is not None:
        return proc.returncode
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
