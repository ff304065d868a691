#include "CFFmpegShims.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/time.h>

int mx_AVERROR(int posix_error) { return AVERROR(posix_error); }
const int mx_AVERROR_EOF = AVERROR_EOF;
const int mx_AVERROR_EAGAIN = AVERROR(EAGAIN);
const int mx_AVERROR_EXIT = AVERROR_EXIT;
const int64_t mx_AV_NOPTS_VALUE = AV_NOPTS_VALUE;
AVRational mx_AV_TIME_BASE_Q(void) { return AV_TIME_BASE_Q; }

void mx_av_strerror(int code, char *buffer, size_t size) {
    if (av_strerror(code, buffer, size) < 0) {
        snprintf(buffer, size, "FFmpeg error %d", code);
    }
}

static void (*_Atomic log_sink)(int, const char *) = NULL;

static void mx_log_callback(void *avcl, int level, const char *fmt, va_list vl) {
    void (*sink)(int, const char *) = atomic_load(&log_sink);
    if (sink == NULL || level > av_log_get_level()) return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof line, &print_prefix);
    sink(level, line);
}

void mx_log_install(void (*sink)(int level, const char *line)) {
    atomic_store(&log_sink, sink);
    av_log_set_callback(mx_log_callback);
}

uint8_t *mx_frame_data(const AVFrame *frame, int plane) { return frame->data[plane]; }
int mx_frame_linesize(const AVFrame *frame, int plane) { return frame->linesize[plane]; }

struct mx_interrupt {
    atomic_int stop;
    atomic_llong deadline_us;  // av_gettime_relative() value, 0 = none
};

mx_interrupt *mx_interrupt_new(void) {
    mx_interrupt *interrupt = calloc(1, sizeof *interrupt);
    return interrupt;
}

void mx_interrupt_free(mx_interrupt *interrupt) { free(interrupt); }

void mx_interrupt_request_stop(mx_interrupt *interrupt) { atomic_store(&interrupt->stop, 1); }

int mx_interrupt_stop_requested(const mx_interrupt *interrupt) {
    return atomic_load(&((mx_interrupt *)interrupt)->stop);
}

void mx_interrupt_arm(mx_interrupt *interrupt, int64_t timeout_us) {
    atomic_store(&interrupt->deadline_us, timeout_us > 0 ? av_gettime_relative() + timeout_us : 0);
}

static int mx_interrupt_check(void *opaque) {
    mx_interrupt *interrupt = opaque;
    if (atomic_load(&interrupt->stop)) return 1;
    long long deadline = atomic_load(&interrupt->deadline_us);
    return deadline != 0 && av_gettime_relative() > deadline;
}

AVIOInterruptCB mx_interrupt_callback(mx_interrupt *interrupt) {
    AVIOInterruptCB cb = { mx_interrupt_check, interrupt };
    return cb;
}

void mx_interrupt_attach(mx_interrupt *interrupt, AVFormatContext *context) {
    context->interrupt_callback = mx_interrupt_callback(interrupt);
}
