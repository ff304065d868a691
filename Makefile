# mixer — build, demo, tests and benchmark on Debian 12.
SHELL := /bin/bash
APT_PACKAGES := libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev \
                pkg-config ffmpeg nginx libnginx-mod-rtmp python3
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
MIXER := .build/release/mixer

.PHONY: deps build demo test bench clean

## Installs the Debian packages that are missing (FFmpeg 5.1 libraries and CLI, nginx-rtmp).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	swift build -c release --product mixer

## Mixes the e-commerce co-host example (testsrc: inputs) into out/cohost.mp4 and out/cohost.png,
## and draws its layout (cells outlined and labelled) into out/cohost-layout.png.
demo: build
	mkdir -p out
	$(MIXER) run layouts/examples/cohost.json --snapshot out/cohost-frames --snapshot-every 75
	cp out/cohost-frames/frame-000075.png out/cohost.png
	$(MIXER) preview layouts/examples/cohost.json -o out/cohost-layout.png
	@echo "wrote out/cohost.mp4, out/cohost.png and out/cohost-layout.png"

## Unit, golden-frame and end-to-end tests.
test: deps
	swift build
	swift test --disable-swift-testing

## The 16-input grid job, mixer against the ffmpeg CLI in the same run.
bench: build
	python3 Benchmarks/grid16.py --mixer $(MIXER)
	python3 Benchmarks/live.py --mixer $(MIXER)
	python3 Benchmarks/daemon.py --mixer $(MIXER)
	python3 Benchmarks/voiceroom.py --mixer $(MIXER)

clean:
	rm -rf .build out bench-out
