/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * I/O engines: how the built-in workload moves bytes, as fio's ioengines do.
 *
 * One driver loop (src/workload/workload.c) serves synchronous and asynchronous engines:
 *
 *	init(e)                      once, after the driver has built e->units
 *	loop:
 *		submit(e, units, nr)     hand over nr units; the engine may start them
 *		                         now (io_uring: prepared, entered later) or run
 *		                         them to completion now (psync)
 *		reap(e, min, done, max)  at least min finished units, at most max
 *	cleanup(e)                   after every submitted unit has been reaped
 *
 * A unit transfers bytes [done, len) of its I/O at offset + done: the driver owns
 * short-transfer continuation, so an engine issues exactly one system call (or one
 * SQE) per submitted unit and reports its raw result in `res`. Engines never print
 * and never read the clock; the driver stamps batches.
 */
#ifndef BLKTRACE_BENCH_ENGINE_H
#define BLKTRACE_BENCH_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct io_unit {
	void *buf;	    /* aligned to 4096, len bytes (rounded up to 4096) */
	uint64_t offset;    /* of the whole I/O */
	uint32_t len;	    /* of the whole I/O */
	uint32_t done;	    /* already transferred by earlier short attempts */
	int64_t res;	    /* engine: bytes moved by this attempt or -errno */
	uint64_t start_ns;  /* driver: stamp of the batch that first submitted it */
	unsigned int index; /* position in engine->units; the registered buffer index */
};

struct engine {
	const struct engine_ops *ops;
	int fd;
	bool write;
	bool fixed_bufs;       /* in: asked for registered buffers; out: in use */
	unsigned int depth;    /* units in flight at most; <= ops->max_depth */
	struct io_unit *units; /* depth units, owned by the driver */
	void *priv;	       /* engine state between init and cleanup */
};

struct engine_ops {
	const char *name;
	unsigned int max_depth; /* 1 for engines that complete inside submit */
	int (*init)(struct engine *e);
	/* Returns 0 or -errno; on error none of the nr units is in flight. */
	int (*submit)(struct engine *e, struct io_unit **units, unsigned int nr);
	/*
	 * Returns the number of finished units stored in done[] (<= max), fewer than
	 * min only when a signal interrupted the wait (so the caller can look at its
	 * stop flag), or -errno.
	 */
	int (*reap)(struct engine *e, unsigned int min, struct io_unit **done, unsigned int max);
	void (*cleanup)(struct engine *e);
};

extern const struct engine_ops engine_psync_ops;
extern const struct engine_ops engine_uring_ops;

/* The engine called name ("psync", "io_uring"), NULL when there is none. */
const struct engine_ops *engine__find(const char *name);

#endif /* BLKTRACE_BENCH_ENGINE_H */
