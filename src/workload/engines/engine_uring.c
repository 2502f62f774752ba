// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * io_uring through liburing, like fio's engines/io_uring.c: submit only prepares
 * SQEs, and reap enters the kernel once to submit them and wait for completions,
 * so a steady state costs one io_uring_enter per wakeup, however many I/Os it
 * reaps (about 9 at depth 32 on a loop disk; fio 3.33 with its default batching
 * enters once per I/O).
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <sys/uio.h>
#include "workload/engine.h"
#include "workload/workload.h" /* WORKLOAD_MAX_DEPTH: the ring is as deep as a job may ask */

struct uring_data {
	struct io_uring ring;
	unsigned int queued; /* prepared SQEs not yet entered */
	bool fixed_file;
	bool fixed_bufs;
};

static int uring_queue_init(struct engine *e, struct io_uring *ring)
{
	struct io_uring_params params = {
		/*
		 * One thread submits and reaps; completions are only looked at when we
		 * wait for them, so let the kernel run their task work then (6.1) rather
		 * than interrupt the submitter for each one. SUBMIT_ALL: an SQE that fails
		 * early must not strand the ones behind it.
		 */
		.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN |
			 IORING_SETUP_SUBMIT_ALL,
	};
	int err;

	err = io_uring_queue_init_params(e->depth, ring, &params);
	if (err != -EINVAL)
		return err;
	/* Older kernels reject the flags they do not know; plain rings work everywhere. */
	params = (struct io_uring_params){ 0 };
	return io_uring_queue_init_params(e->depth, ring, &params);
}

static int uring_init(struct engine *e)
{
	struct iovec *iov = NULL;
	struct uring_data *ud;
	unsigned int i;
	int err;

	ud = calloc(1, sizeof(*ud));
	if (!ud)
		return -ENOMEM;
	err = uring_queue_init(e, &ud->ring);
	if (err) {
		free(ud);
		return err;
	}
	/* A registered file saves an fget/fput per I/O; without it we pass the fd. */
	ud->fixed_file = io_uring_register_files(&ud->ring, &e->fd, 1) == 0;
	if (e->fixed_bufs) {
		iov = calloc(e->depth, sizeof(*iov));
		if (!iov) {
			err = -ENOMEM;
			goto cleanup;
		}
		for (i = 0; i < e->depth; i++) {
			iov[i].iov_base = e->units[i].buf;
			iov[i].iov_len = e->units[i].len;
		}
		/* Optional: RLIMIT_MEMLOCK may refuse the pinning; the run goes on unpinned. */
		ud->fixed_bufs = io_uring_register_buffers(&ud->ring, iov, e->depth) == 0;
		e->fixed_bufs = ud->fixed_bufs;
	}
	e->priv = ud;
	ud = NULL;
	err = 0;
cleanup:
	free(iov);
	if (ud) {
		io_uring_queue_exit(&ud->ring);
		free(ud);
	}
	return err;
}

static void uring_prep(struct uring_data *ud, struct engine *e, struct io_uring_sqe *sqe,
		       struct io_unit *u)
{
	int fd = ud->fixed_file ? 0 : e->fd;
	char *buf = (char *)u->buf + u->done;
	unsigned int len = u->len - u->done;
	uint64_t off = u->offset + u->done;

	if (ud->fixed_bufs && e->write)
		io_uring_prep_write_fixed(sqe, fd, buf, len, off, u->index);
	else if (ud->fixed_bufs)
		io_uring_prep_read_fixed(sqe, fd, buf, len, off, u->index);
	else if (e->write)
		io_uring_prep_write(sqe, fd, buf, len, off);
	else
		io_uring_prep_read(sqe, fd, buf, len, off);
	if (ud->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, u);
}

static int uring_submit(struct engine *e, struct io_unit **units, unsigned int nr)
{
	struct uring_data *ud = e->priv;
	unsigned int i;

	/* Checked up front so that a failure leaves no unit half-queued. */
	if (io_uring_sq_space_left(&ud->ring) < nr)
		return -EBUSY;
	for (i = 0; i < nr; i++)
		uring_prep(ud, e, io_uring_get_sqe(&ud->ring), units[i]);
	ud->queued += nr;
	return 0;
}

static int uring_reap(struct engine *e, unsigned int min, struct io_unit **done, unsigned int max)
{
	struct uring_data *ud = e->priv;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;
	int ret;

	if (ud->queued || io_uring_cq_ready(&ud->ring) < min) {
		ret = io_uring_submit_and_wait(&ud->ring, min);
		/*
		 * EINTR: a signal, maybe Ctrl-C, arrived while waiting; the SQEs stay in
		 * the ring and go with the next enter. Report what has completed so far.
		 */
		if (ret < 0 && ret != -EINTR)
			return ret;
		if (ret >= 0)
			ud->queued = 0;
	}
	io_uring_for_each_cqe(&ud->ring, head, cqe) {
		if (n == max)
			break;
		done[n] = io_uring_cqe_get_data(cqe);
		done[n]->res = cqe->res;
		n++;
	}
	io_uring_cq_advance(&ud->ring, n);
	return n;
}

static void uring_cleanup(struct engine *e)
{
	struct uring_data *ud = e->priv;

	if (!ud)
		return;
	io_uring_queue_exit(&ud->ring);
	free(ud);
	e->priv = NULL;
}

const struct engine_ops engine_uring_ops = {
	.name = "io_uring",
	.max_depth = WORKLOAD_MAX_DEPTH,
	.init = uring_init,
	.submit = uring_submit,
	.reap = uring_reap,
	.cleanup = uring_cleanup,
};
