#!/usr/bin/env python3
"""The 16-input grid job, run by mixer and by the ffmpeg CLI in the same run.

16 H.264+AAC inputs of 360x640@15 (generated once by the ffmpeg CLI), 20 s, composited
into a 4x4 grid of 320x180 fill/centre-crop cells on 1280x720@15, 16 audio tracks summed,
H.264 veryfast (no B-frames, fixed GOP, CBR-like VBV) + AAC. Prints CPU seconds, wall
seconds, peak memory and the CPU ratio mixer/ffmpeg. Ratios, not absolute times, are the
result: they hold across machines.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

INPUTS, SECONDS, FPS = 16, 20, 15
CANVAS, CELL = (1280, 720), (320, 180)
VIDEO_KBPS, AUDIO_KBPS, GOP_SECONDS = 2500, 128, 2
SCALE_FLAGS = "bilinear+accurate_rnd+bitexact"  # what mixer uses, so both do the same work


def generate_inputs(folder: Path) -> list:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(INPUTS):
        path = folder / f"in{i:02d}.mp4"
        paths.append(path)
        if path.exists():
            continue
        subprocess.run([
            "ffmpeg", "-v", "error", "-y",
            "-f", "lavfi", "-i", f"testsrc2=size=360x640:rate={FPS}:duration={SECONDS}",
            "-f", "lavfi", "-i", f"sine=frequency={220 + 55 * i}:sample_rate=48000:duration={SECONDS}",
            "-c:v", "libx264", "-preset", "veryfast", "-bf", "0", "-g", str(2 * FPS), "-b:v", "600k",
            "-c:a", "aac", "-b:a", "64k", "-ac", "1", "-shortest", str(path)], check=True)
    return paths


def mixer_task(inputs: list, output: Path) -> dict:
    cells, streams = [], []
    for i, path in enumerate(inputs):
        user = {"strRoomId": "bench", "userId": f"u{i:02d}"}
        cells.append({"rect": {"x": CELL[0] * (i % 4), "y": CELL[1] * (i // 4), "width": CELL[0], "height": CELL[1]},
                      "zOrder": 0, "fillMode": 0, "fixedVideoUser": user})
        streams.append(dict(user, url=str(path)))
    return {
        "taskId": "bench-grid16",
        "target": {"mode": "mixStreamToCdn", "cdnUrlList": [{"rtmpUrl": str(output)}]},
        "encoderParam": {"videoEncodedWidth": CANVAS[0], "videoEncodedHeight": CANVAS[1], "videoEncodedFPS": FPS,
                         "videoEncodedGOP": GOP_SECONDS, "videoEncodedKbps": VIDEO_KBPS,
                         "audioEncodedSampleRate": 48000, "audioEncodedChannelNum": 2, "audioEncodedKbps": AUDIO_KBPS},
        "mixingConfig": {"videoLayoutList": cells},
        "streams": streams,
    }


def ffmpeg_command(inputs: list, output: Path, scale_flags: str) -> list:
    filters = []
    for i in range(INPUTS):
        flags = f":flags={scale_flags}" if scale_flags else ""
        filters.append(f"[{i}:v]scale={CELL[0]}:{CELL[1]}:force_original_aspect_ratio=increase{flags},"
                       f"crop={CELL[0]}:{CELL[1]}[v{i}]")
    layout = "|".join(f"{CELL[0] * (i % 4)}_{CELL[1] * (i // 4)}" for i in range(INPUTS))
    filters.append("".join(f"[v{i}]" for i in range(INPUTS)) + f"xstack=inputs={INPUTS}:layout={layout}[v]")
    filters.append("".join(f"[{i}:a]" for i in range(INPUTS)) + f"amix=inputs={INPUTS}:normalize=0[a]")
    command = ["ffmpeg", "-v", "error", "-y"]
    for path in inputs:
        command += ["-i", str(path)]
    gop = str(GOP_SECONDS * FPS)
    command += ["-filter_complex", ";".join(filters), "-map", "[v]", "-map", "[a]",
                "-c:v", "libx264", "-preset", "veryfast", "-bf", "0", "-g", gop, "-keyint_min", gop,
                "-sc_threshold", "0", "-forced-idr", "1",
                "-b:v", f"{VIDEO_KBPS}k", "-maxrate", f"{VIDEO_KBPS}k", "-bufsize", f"{VIDEO_KBPS}k", "-r", str(FPS),
                "-c:a", "aac", "-b:a", f"{AUDIO_KBPS}k", "-ar", "48000", "-ac", "2", str(output)]
    return command


def measure(command: list) -> dict:
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.monotonic() - start
    errors = process.stderr.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{command[0]} failed ({status}):\n{errors}")
    return {"cpu": usage.ru_utime + usage.ru_stime, "wall": wall, "rss_mb": usage.ru_maxrss / 1024}


def frames(path: Path) -> int:
    out = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0",
                          "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", str(path)],
                         capture_output=True, text=True, check=True).stdout
    return int(out.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mixer", default=".build/release/mixer")
    parser.add_argument("--out", default="bench-out")
    parser.add_argument("--runs", type=int, default=1, help="repeat each job and keep the lowest CPU time")
    args = parser.parse_args()
    out = Path(args.out)
    inputs = generate_inputs(out / "inputs")
    task_path = out / "grid16-task.json"
    task_path.write_text(json.dumps(mixer_task(inputs, out / "mixer.mp4"), indent=1))
    jobs = {
        "mixer": [args.mixer, "run", str(task_path), "--quiet"],
        "ffmpeg (same scaler flags)": ffmpeg_command(inputs, out / "ffmpeg.mp4", SCALE_FLAGS),
        "ffmpeg (its default bicubic)": ffmpeg_command(inputs, out / "ffmpeg-default.mp4", ""),
    }
    results = {}
    for name, command in jobs.items():
        runs = [measure(command) for _ in range(args.runs)]
        results[name] = min(runs, key=lambda r: r["cpu"])
    counts = {"mixer": frames(out / "mixer.mp4"), "ffmpeg (same scaler flags)": frames(out / "ffmpeg.mp4"),
              "ffmpeg (its default bicubic)": frames(out / "ffmpeg-default.mp4")}
    print(f"16-input grid: {INPUTS} x 360x640@{FPS} H.264 inputs, {SECONDS} s -> "
          f"{CANVAS[0]}x{CANVAS[1]}@{FPS} H.264 veryfast {VIDEO_KBPS} kbps + AAC, {os.cpu_count()} cores")
    print(f"{'job':30} {'CPU s':>8} {'wall s':>8} {'peak MB':>8} {'frames':>7}")
    for name, r in results.items():
        print(f"{name:30} {r['cpu']:8.2f} {r['wall']:8.2f} {r['rss_mb']:8.1f} {counts[name]:7d}")
    mixer = results["mixer"]
    for name in list(results)[1:]:
        other = results[name]
        print(f"ratio mixer/{name}: CPU {mixer['cpu'] / other['cpu']:.2f}  wall {mixer['wall'] / other['wall']:.2f}  "
              f"memory {mixer['rss_mb'] / other['rss_mb']:.2f}")


if __name__ == "__main__":
    main()
