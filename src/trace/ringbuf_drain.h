/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A BPF ring buffer drained by a thread of its own, on a timer: the programs submit
 * without wakeups (cheaper per record), so nothing would wake an epoll. Used by --snoop
 * (snoop.c) and --blktrace (btrace_out.c); the callback runs on the drain thread.
 */
#ifndef BLKTRACE_BENCH_RINGBUF_DRAIN_H
#define BLKTRACE_BENCH_RINGBUF_DRAIN_H

#include <stdbool.h>
#include <bpf/libbpf.h>

struct ringbuf_drain;

/*
 * Drain map_fd into fn(ctx, data, size) every tick_ms; fn returning non-zero stops the
 * draining with that error. 0, or -errno.
 */
int ringbuf_drain__start(int map_fd, ring_buffer_sample_fn fn, void *ctx, unsigned int tick_ms,
			 struct ringbuf_drain **out);
/*
 * The same, with tick(ctx, true) before each drain and tick(ctx, false) after it (on
 * the drain thread; not at the last drain, ringbuf_drain__stop's); tick returning
 * non-zero stops the draining with that error.
 */
typedef int (*ringbuf_tick_fn)(void *ctx, bool before);
int ringbuf_drain__start_ticked(int map_fd, ring_buffer_sample_fn fn, ringbuf_tick_fn tick,
				void *ctx, unsigned int tick_ms, struct ringbuf_drain **out);
/*
 * Stop (after the programs are detached) and drain what is left; 0 or the first error
 * (fn's, or the ring buffer's). NULL is safe.
 */
int ringbuf_drain__stop(struct ringbuf_drain *r);

#endif /* BLKTRACE_BENCH_RINGBUF_DRAIN_H */
