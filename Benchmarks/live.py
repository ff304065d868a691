#!/usr/bin/env python3
"""Live measurements on loopback, with Debian's nginx-rtmp started on a free port.

1. Added latency: an anchor is published whose every frame carries its send time as a row
   of black/white 16x16 blocks. The stream is pulled twice, directly and through a mixer task
   (one full-canvas cell of the same size, pushed back to nginx), and each pulled frame's age is
   read off its blocks. Added latency = median age through mixer - median age direct.
2. CPU per live task: mixer runs the e-commerce co-host layout on three published anchors for
   DURATION seconds; its CPU seconds per wall second are reported (1.0 = one core).
"""
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

W, H, FPS, BITS, BLOCK = 640, 360, 15, 32, 16
NGINX_MODULE = "/usr/lib/nginx/modules/ngx_rtmp_module.so"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nginx(folder: Path) -> tuple:
    port = free_port()
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    (folder / "nginx.conf").write_text(f"""load_module {NGINX_MODULE};
daemon off; master_process off; worker_processes 1;
error_log {folder}/logs/error.log warn; pid {folder}/nginx.pid;
events {{ worker_connections 256; }}
rtmp {{ server {{ listen 127.0.0.1:{port}; chunk_size 4096;
  application live {{ live on; wait_key on; wait_video on; }} }} }}
""")
    process = subprocess.Popen(["nginx", "-p", str(folder), "-c", str(folder / "nginx.conf")])
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process, port
        time.sleep(0.05)
    sys.exit("nginx-rtmp did not start")


def now_ms() -> int:
    return int(time.monotonic() * 1000) & 0xFFFFFFFF


def stamped_publisher(url: str, stop: threading.Event) -> None:
    """Publishes grey frames whose top row of blocks spells the send time in milliseconds."""
    encoder = subprocess.Popen(
        ["ffmpeg", "-v", "error", "-f", "rawvideo", "-pix_fmt", "gray", "-s", f"{W}x{H}", "-r", str(FPS), "-i", "-",
         "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", str(FPS), "-pix_fmt", "yuv420p",
         "-f", "flv", url], stdin=subprocess.PIPE)
    start = time.monotonic()
    frame = 0
    while not stop.is_set():
        stamp = now_ms()
        row = bytearray([128]) * (W * H)
        for bit in range(BITS):
            value = 255 if stamp >> bit & 1 else 0
            for y in range(BLOCK):
                offset = y * W + bit * BLOCK
                row[offset:offset + BLOCK] = bytes([value]) * BLOCK
        try:
            encoder.stdin.write(row)
            encoder.stdin.flush()
        except BrokenPipeError:
            break
        frame += 1
        time.sleep(max(0, start + frame / FPS - time.monotonic()))
    encoder.stdin.close()
    encoder.wait()


def frame_ages(url: str, seconds: float) -> list:
    """Pulls `url` and returns, for each decoded frame, now - its stamped send time (ms)."""
    puller = subprocess.Popen(["ffmpeg", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-i", url,
                               "-t", str(seconds), "-f", "rawvideo", "-pix_fmt", "gray", "-"], stdout=subprocess.PIPE)
    ages, size = [], W * H
    while True:
        data = puller.stdout.read(size)
        if len(data) < size:
            break
        received = now_ms()
        stamp = 0
        for bit in range(BITS):
            if data[(BLOCK // 2) * W + bit * BLOCK + BLOCK // 2] > 128:
                stamp |= 1 << bit
        ages.append((received - stamp) & 0xFFFFFFFF)
    puller.wait()
    return [a for a in ages if a < 10_000]


def run_mixer(mixer: str, task: dict, folder: Path, name: str) -> subprocess.Popen:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(task))
    return subprocess.Popen([mixer, "run", str(path), "--quiet"], stderr=subprocess.DEVNULL)


def stop_and_measure(process: subprocess.Popen) -> dict:
    process.send_signal(signal.SIGINT)
    _, status, usage = os.wait4(process.pid, 0)
    return {"cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024}


def cell(user: str, x: int, y: int, w: int, h: int, z: int = 0) -> dict:
    return {"rect": {"x": x, "y": y, "width": w, "height": h}, "zOrder": z, "fillMode": 0,
            "fixedVideoUser": {"strRoomId": "room", "userId": user}}


def main() -> None:
    mixer = sys.argv[sys.argv.index("--mixer") + 1] if "--mixer" in sys.argv else ".build/release/mixer"
    duration = 20
    folder = Path(tempfile.mkdtemp(prefix="mixer-live-bench-"))
    nginx, port = start_nginx(folder / "nginx")
    base = f"rtmp://127.0.0.1:{port}/live"
    os.environ["MIXER_ROOM_URL"] = base + "/{roomId}_{userId}_{streamType}"
    try:
        # 1. Added latency.
        stop = threading.Event()
        publisher = threading.Thread(target=stamped_publisher, args=(f"{base}/room_stamp_main", stop))
        publisher.start()
        time.sleep(2)
        task = {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": f"{base}/stamped_mix"}]},
                "encoderParam": {"videoEncodedWidth": W, "videoEncodedHeight": H, "videoEncodedFPS": FPS,
                                 "videoEncodedGOP": 1, "videoEncodedKbps": 1500},
                "mixingConfig": {"videoLayoutList": [cell("stamp", 0, 0, W, H)]}}
        mixing = run_mixer(mixer, task, folder, "stamped")
        time.sleep(3)
        direct = frame_ages(f"{base}/room_stamp_main", 8)
        mixed = frame_ages(f"{base}/stamped_mix", 8)
        stop_and_measure(mixing)
        stop.set()
        publisher.join()
        if not direct or not mixed:
            sys.exit(f"no frames pulled (direct {len(direct)}, mixed {len(mixed)})")
        direct_ms, mixed_ms = statistics.median(direct), statistics.median(mixed)
        print(f"latency on loopback (median frame age, ms): direct {direct_ms:.0f}, through mixer {mixed_ms:.0f}, "
              f"added by mixer {mixed_ms - direct_ms:.0f} (mixer's jitter buffer is 200 ms; p90 added "
              f"{statistics.quantiles(mixed, n=10)[-1] - statistics.quantiles(direct, n=10)[-1]:.0f})")

        # 2. CPU of a live co-host task: anchor 540x960 full screen, two guests at the right.
        anchors = []
        for user, size, tone in [("anchor", "540x960", 440), ("guest1", "360x640", 660), ("guest2", "360x640", 880)]:
            anchors.append(subprocess.Popen(
                ["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=15",
                 "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=48000",
                 "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "30", "-bf", "0",
                 "-c:a", "aac", "-ac", "1", "-f", "flv", f"{base}/room_{user}_main"]))
        time.sleep(2)
        cohost = {"target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": f"{base}/cohost_mix"}]},
                  "encoderParam": {"videoEncodedWidth": 540, "videoEncodedHeight": 960, "videoEncodedFPS": 15,
                                   "videoEncodedGOP": 2, "videoEncodedKbps": 1300, "audioEncodedKbps": 50},
                  "mixingConfig": {"videoLayoutList": [cell("anchor", 0, 0, 540, 960),
                                                       cell("guest1", 400, 250, 135, 240, 1),
                                                       cell("guest2", 400, 495, 135, 240, 1)]}}
        started = time.monotonic()
        task_process = run_mixer(mixer, cohost, folder, "cohost")
        time.sleep(duration)
        usage = stop_and_measure(task_process)
        wall = time.monotonic() - started
        for anchor in anchors:
            anchor.terminate()
            anchor.wait()
        print(f"live co-host task (3 RTMP inputs -> 540x960@15 H.264 1300 kbps + AAC, RTMP out), {duration} s: "
              f"CPU {usage['cpu']:.2f} s over {wall:.1f} s wall = {usage['cpu'] / wall:.2f} of a core, "
              f"peak memory {usage['rss_mb']:.0f} MB")
    finally:
        nginx.kill()  # nginx-rtmp may linger on SIGTERM while clients are connected
        nginx.wait()


if __name__ == "__main__":
    main()
