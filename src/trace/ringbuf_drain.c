// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A BPF ring buffer drained by a thread on a timer. See ringbuf_drain.h. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include "trace/ringbuf_drain.h"
#include "base/stop_signals.h"

struct ringbuf_drain {
	struct ring_buffer *rb;
	pthread_t thread;
	struct timespec tick;
	ringbuf_tick_fn on_tick;
	void *ctx;
	volatile int stop;
	int err;
};

static void *drain(void *arg)
{
	struct ringbuf_drain *r = arg;
	int n;

	while (!r->stop && !r->err) {
		if (r->on_tick)
			r->err = r->on_tick(r->ctx, true);
		n = r->err ? 0 : ring_buffer__consume(r->rb);
		if (n < 0 && !r->err)
			r->err = n;
		if (r->on_tick && !r->err)
			r->err = r->on_tick(r->ctx, false);
		nanosleep(&r->tick, NULL);
	}
	return NULL;
}

/*
 * The thread takes no stop signal (it inherits this mask): one must reach the main
 * thread, whose sleep it ends, even when the kernel would pick this one. 0 or -errno.
 */
static int start_thread(struct ringbuf_drain *r)
{
	sigset_t old;
	int err;

	stop_signals__block(&old);
	err = -pthread_create(&r->thread, NULL, drain, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

int ringbuf_drain__start(int map_fd, ring_buffer_sample_fn fn, void *ctx, unsigned int tick_ms,
			 struct ringbuf_drain **out)
{
	return ringbuf_drain__start_ticked(map_fd, fn, NULL, ctx, tick_ms, out);
}

int ringbuf_drain__start_ticked(int map_fd, ring_buffer_sample_fn fn, ringbuf_tick_fn tick,
				void *ctx, unsigned int tick_ms, struct ringbuf_drain **out)
{
	struct ringbuf_drain *r;
	int err;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->tick.tv_sec = tick_ms / 1000;
	r->tick.tv_nsec = (long)(tick_ms % 1000) * 1000000;
	r->on_tick = tick;
	r->ctx = ctx;
	r->rb = ring_buffer__new(map_fd, fn, ctx, NULL);
	if (!r->rb) {
		err = -errno;
		goto cleanup;
	}
	err = start_thread(r);
	if (err)
		goto cleanup;
	*out = r;
	return 0;
cleanup:
	ring_buffer__free(r->rb);
	free(r);
	return err;
}

int ringbuf_drain__stop(struct ringbuf_drain *r)
{
	int err, n;

	if (!r)
		return 0;
	r->stop = 1;
	pthread_join(r->thread, NULL);
	/* What the programs wrote before they were detached. */
	if (!r->err) {
		n = ring_buffer__consume(r->rb);
		if (n < 0)
			r->err = n;
	}
	err = r->err;
	ring_buffer__free(r->rb);
	free(r);
	return err;
}
