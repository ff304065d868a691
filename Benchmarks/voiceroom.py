#!/usr/bin/env python3
"""The voice-room job, live: three speakers mixed for audio only, carried by 64x64 black frames
(15 fps, GOP 3 s, 30 kbps) with a layout/volume SEI every second, for DURATION seconds on the
wall clock. mixer runs layouts/examples/voice-room.json; the ffmpeg CLI does the same media job
(three tones mixed, a black 64x64 picture encoded with the same x264 settings, AAC, FLV) paced
with -re. Reported: CPU seconds per wall second (1.0 = one core) and the ratio.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DURATION = 20
TONES = [(330, 0.6), (440, 0.3), (550, 0.1)]


def measure(command: list) -> dict:
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{command[0]} failed:\n{process.stderr.read().decode(errors='replace')}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mb": usage.ru_maxrss / 1024}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mixer", default=".build/release/mixer")
    args = parser.parse_args()
    folder = Path("bench-out")
    folder.mkdir(exist_ok=True)
    task = json.loads(Path("layouts/examples/voice-room.json").read_text())
    task["target"]["cdnUrlList"] = [{"rtmpUrl": str(folder / "voice-room-mixer.flv")}]
    for stream in task["streams"]:
        stream["url"] = stream["url"].replace("duration=10", f"duration={DURATION + 5}")
    task_file = folder / "voice-room.json"
    task_file.write_text(json.dumps(task))
    mixer = measure([args.mixer, "run", str(task_file), "--realtime", "--duration", str(DURATION), "--quiet"])

    inputs = []
    for frequency, amplitude in TONES:
        inputs += ["-re", "-f", "lavfi", "-i", f"aevalsrc={amplitude}*sin(2*PI*{frequency}*t):s=48000:d={DURATION}"]
    inputs += ["-re", "-f", "lavfi", "-i", f"color=c=black:s=64x64:r=15:d={DURATION}"]
    ffmpeg = measure(["ffmpeg", "-v", "error", "-y"] + inputs + [
        "-filter_complex", "[0:a][1:a][2:a]amix=inputs=3:normalize=0[a]", "-map", "3:v", "-map", "[a]",
        "-c:v", "libx264", "-preset", "veryfast", "-b:v", "30k", "-maxrate", "30k", "-bufsize", "30k", "-g", "45",
        "-bf", "0", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "50k", "-ac", "1", "-f", "flv",
        str(folder / "voice-room-ffmpeg.flv")])

    print(f"voice room, {DURATION} s live (64x64 black frames + 3 voices):")
    for name, result in (("mixer", mixer), ("ffmpeg", ffmpeg)):
        print(f"  {name:7s} {result['cpu'] / result['wall']:.3f} of a core, {result['rss_mb']:.0f} MB peak")
    print(f"  CPU ratio mixer/ffmpeg: {mixer['cpu'] / ffmpeg['cpu']:.2f}")


if __name__ == "__main__":
    main()
