#ifndef CFFMPEG_SHIMS_H
#define CFFMPEG_SHIMS_H
// Real functions for what Swift cannot import from FFmpeg: function-like macros
// (AVERROR), cast macros (AV_NOPTS_VALUE), compound literals (AV_TIME_BASE_Q),
// fixed C arrays (AVFrame.data) and variadic logging. Each is defined once in shims.c.
#include <stdint.h>
#include <stddef.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>

int mx_AVERROR(int posix_error);
extern const int mx_AVERROR_EOF;
extern const int mx_AVERROR_EAGAIN;
extern const int mx_AVERROR_EXIT;
extern const int64_t mx_AV_NOPTS_VALUE;
AVRational mx_AV_TIME_BASE_Q(void);

/// Writes FFmpeg's message for `code` into `buffer` (never a format string).
void mx_av_strerror(int code, char *buffer, size_t size);

/// Routes FFmpeg's log through `sink`, formatted by av_log_format_line2 and
/// filtered by level before formatting. Pass NULL to silence FFmpeg.
void mx_log_install(void (*sink)(int level, const char *line));

/// Plane pointers and strides of a frame, without Swift tuple access.
uint8_t *mx_frame_data(const AVFrame *frame, int plane);
int mx_frame_linesize(const AVFrame *frame, int plane);

/// A stop flag and an optional deadline checked by FFmpeg's interrupt callback,
/// so that blocking network reads and writes always return.
typedef struct mx_interrupt mx_interrupt;
mx_interrupt *mx_interrupt_new(void);
void mx_interrupt_free(mx_interrupt *interrupt);
void mx_interrupt_request_stop(mx_interrupt *interrupt);
int mx_interrupt_stop_requested(const mx_interrupt *interrupt);
/// Arms a deadline `timeout_us` from now (0 disarms it).
void mx_interrupt_arm(mx_interrupt *interrupt, int64_t timeout_us);
/// Installs the callback on a format context that already exists.
void mx_interrupt_attach(mx_interrupt *interrupt, AVFormatContext *context);
/// The callback structure, for avformat_open_input / avio_open2.
AVIOInterruptCB mx_interrupt_callback(mx_interrupt *interrupt);

#endif
