#!/usr/bin/env python3
"""Worker daemon measurements on loopback (nginx-rtmp started on a free port):

1. Start-to-first-packet: from sending POST /v1/tasks to the first decoded frame of the
   task's RTMP output at a player that was already waiting for it.
2. Update-to-first-frame: from sending PUT /v1/tasks/ID (a new background colour) to the
   first frame at the player that shows it.
3. Memory: the daemon's RSS, and its tasks' processes, with 8 idle tasks (inputs that never
   arrive: black frames) and with 8 busy ones (co-host layout, three testsrc inputs).
"""
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from live import start_nginx  # noqa: E402

W, H = 320, 180


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str):
        super().__init__("mixer")
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def call(sock: str, method: str, path: str, body=None) -> tuple:
    connection = UnixConnection(sock)
    connection.request(method, path, body=json.dumps(body) if body is not None else None)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, json.loads(data or b"{}")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def children(pid: int) -> list:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


class Player:
    """Decodes an RTMP stream and notes when each frame arrives and its centre luma."""

    def __init__(self, url: str):
        self.frames = []
        self.process = subprocess.Popen(["ffmpeg", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay",
                                         "-probesize", "32", "-analyzeduration", "0",
                                         "-rw_timeout", "30000000", "-i", url, "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                                        stdout=subprocess.PIPE)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while True:
            data = self.process.stdout.read(W * H)
            if len(data) < W * H:
                return
            self.frames.append((time.monotonic(), data[(H // 2) * W + W // 4]))

    def stop(self):
        self.process.kill()  # a player blocked on a stream whose publisher left ignores SIGTERM
        self.process.wait()


def task(task_id: str, output: str, background: str = "0x000000", streams=None, cells=None) -> dict:
    return {"taskId": task_id, "maxIdleTime": 86400,
            "target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": output}]},
            "encoderParam": {"videoEncodedWidth": W, "videoEncodedHeight": H, "videoEncodedFPS": 15,
                             "videoEncodedGOP": 1, "videoEncodedKbps": 500},
            "mixingConfig": {"backgroundColor": background, "videoLayoutList": cells or []},
            "streams": streams or [{"strRoomId": "r", "userId": "a", "url": "testsrc:?video=0&tone=440"}]}


def main() -> None:
    mixer = sys.argv[sys.argv.index("--mixer") + 1] if "--mixer" in sys.argv else ".build/release/mixer"
    folder = Path(tempfile.mkdtemp(prefix="mixer-daemon-bench-"))
    nginx, port = start_nginx(folder / "nginx")
    base = f"rtmp://127.0.0.1:{port}/live"
    sock = str(folder / "mixer.sock")
    daemon = subprocess.Popen([mixer, "serve", "--socket", sock, "--max-tasks", "20"], stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        # 1 and 2, five times each.
        starts, updates = [], []
        for run in range(5):
            player = Player(f"{base}/latency{run}")
            time.sleep(0.5)
            sent = time.monotonic()
            status, reply = call(sock, "POST", "/v1/tasks", task(f"latency{run}", f"{base}/latency{run}"))
            assert status == 201, reply
            while not player.frames and time.monotonic() - sent < 15:
                time.sleep(0.005)
            starts.append((player.frames[0][0] - sent) * 1000)
            time.sleep(1)
            sent = time.monotonic()
            status, reply = call(sock, "PUT", f"/v1/tasks/latency{run}", {"mixingConfig": {"backgroundColor": "0xFFFFFF"}})
            assert status == 200, reply
            while time.monotonic() - sent < 5 and not any(t > sent and luma > 200 for t, luma in player.frames):
                time.sleep(0.005)
            shown = next(t for t, luma in player.frames if t > sent and luma > 200)
            updates.append((shown - sent) * 1000)
            call(sock, "DELETE", f"/v1/tasks/latency{run}")
            player.stop()
        print(f"start to first frame at a waiting player (ms, median of 5): {statistics.median(starts):.0f} "
              f"(min {min(starts):.0f}, max {max(starts):.0f})")
        print(f"accepted update to the first frame showing it (ms, median of 5): {statistics.median(updates):.0f} "
              f"(min {min(updates):.0f}, max {max(updates):.0f}; one frame is 67 ms at 15 fps)")

        # 3. Memory.
        idle = {"strRoomId": "r", "userId": "absent", "url": f"{base}/nobody_publishes"}
        for i in range(8):
            status, reply = call(sock, "POST", "/v1/tasks", task(f"idle{i}", f"{base}/idle{i}", streams=[idle]))
            assert status == 201, reply
        time.sleep(5)
        idle_daemon = rss_mb(daemon.pid)
        idle_tasks = [rss_mb(p) for p in children(daemon.pid)]
        call(sock, "DELETE", "/v1/tasks")
        cells = [{"rect": {"x": 0, "y": 0, "width": W, "height": H}, "fixedVideoUser": {"strRoomId": "r", "userId": "anchor"}},
                 {"rect": {"x": 240, "y": 20, "width": 64, "height": 64}, "zOrder": 1, "fixedVideoUser": {"strRoomId": "r", "userId": "g1"}},
                 {"rect": {"x": 240, "y": 96, "width": 64, "height": 64}, "zOrder": 1, "fixedVideoUser": {"strRoomId": "r", "userId": "g2"}}]
        streams = [{"strRoomId": "r", "userId": user, "url": f"testsrc:?size={size}&tone={tone}"}
                   for user, size, tone in [("anchor", "320x180", 440), ("g1", "160x90", 660), ("g2", "160x90", 880)]]
        for i in range(8):
            status, reply = call(sock, "POST", "/v1/tasks", task(f"busy{i}", f"{base}/busy{i}", streams=streams, cells=cells))
            assert status == 201, reply
        time.sleep(5)
        busy_daemon = rss_mb(daemon.pid)
        busy_tasks = [rss_mb(p) for p in children(daemon.pid)]
        call(sock, "DELETE", "/v1/tasks")
        print(f"memory with 8 idle tasks: daemon {idle_daemon:.0f} MB, tasks {sum(idle_tasks):.0f} MB "
              f"({statistics.mean(idle_tasks):.0f} MB each)")
        print(f"memory with 8 busy tasks (co-host, 3 testsrc inputs, 320x180@15): daemon {busy_daemon:.0f} MB, "
              f"tasks {sum(busy_tasks):.0f} MB ({statistics.mean(busy_tasks):.0f} MB each)")
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
        nginx.kill()  # nginx-rtmp may linger on SIGTERM while clients are connected
        nginx.wait()


if __name__ == "__main__":
    main()
