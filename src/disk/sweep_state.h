/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What makes a --set sweep safe against other sweeps and against its own death.
 *
 * A lock per disk: flock() on DIR/DISK.lock, which holds the holder's PID, so a
 * second sweep of the same disk is refused naming the PID, and the kernel drops the
 * lock however the holder ends. A state file DIR/DISK.state holds the original values
 * of the settings being swept, written (atomically: a temporary file renamed into
 * place) before the first change and removed once they are all back, and the values
 * the run wrote: each write is recorded before it is made (sweep_state__put). A state
 * file found while nobody holds the lock was left by a run that died (SIGKILL, a crash,
 * a power cut with DIR on disk): the next run on that disk, or `blktrace-bench restore
 * DISK`, puts each original back where the value in force is still one the dead run
 * wrote, and leaves (and names) one somebody set since. It names the disk's MAJ:MIN, its
 * diskseq (which changes when a loop device is re-attached, a disk replaced; "-" on
 * kernels without one) and the boot: state about another disk or an earlier boot is
 * discarded, and a file without these lines is refused, not applied.
 *
 * DIR is SWEEP_STATE_DIR unless the caller passes another (tests, --state-dir). It is
 * opened once and checked on its descriptor (state_dir.h); its files are reached through
 * that descriptor only.
 */
#ifndef BLKTRACE_BENCH_SWEEP_STATE_H
#define BLKTRACE_BENCH_SWEEP_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "disk/device.h"

#define SWEEP_STATE_DIR "/run/blktrace-bench"

struct sweep_state;

/* Paths the module reads besides DIR; NULL members take the defaults. */
struct sweep_env {
	const char *dir;     /* NULL: SWEEP_STATE_DIR */
	const char *boot_id; /* NULL: /proc/sys/kernel/random/boot_id */
};

struct diag;

/*
 * Take dev's lock (the whole disk's, whatever partition dev names), creating DIR when
 * needed. 0; -EBUSY with "DISK is being swept by PID N" in d, bad input like a DIR that
 * is no directory, a symbolic link, or that others may write; another -errno, a runtime
 * failure in d (the boot id unreadable included).
 */
int sweep_state__lock(const struct sweep_env *env, const struct device *dev,
		      struct sweep_state **out, struct diag *d);

/*
 * Under the lock: put back what a dead run left in the state file and remove it, each
 * value said on msgs ("restored max_sectors_kb=1280 on loop0, left by PID 123 ...", or
 * "left max_sectors_kb=64 on loop0 as it is: ... set since").
 * Returns the number of values restored (0: nothing was left), or a negative errno
 * when one could not be (the state file stays, for the next try; d says what: a
 * runtime failure, a state file that is not ours included).
 */
int sweep_state__recover(struct sweep_state *s, FILE *msgs, struct diag *d);

/* Record the original value of queue/NAME before it is first changed. 0 or -errno. */
int sweep_state__save(struct sweep_state *s, const char *name, const char *original);

/*
 * Write value to queue/name of the locked disk, name's original saved before: the value
 * is recorded in the state file first, then written, then what the kernel shows of every
 * saved setting is recorded (a scheduler change resets nr_requests). 0, or the write's
 * -errno (or the state file's, when it cannot be written: then nothing is written).
 */
int sweep_state__put(struct sweep_state *s, const char *name, const char *value);

/* Everything is back: forget the state. 0 or -errno. */
int sweep_state__clear(struct sweep_state *s);

/* Release the lock; NULL is fine. The state file, if any, stays. */
void sweep_state__unlock(struct sweep_state *s);

/*
 * The end of a run that held s (NULL is fine): with every setting it changed back
 * (restored), the state file goes; without, it stays for `blktrace-bench restore DEV`,
 * said on notes; then the lock is released.
 */
void sweep_state__release(struct sweep_state *s, bool restored, FILE *notes);

/*
 * For a run that changes nothing itself: when dev has a state file and nobody holds its
 * lock, recover it (lock, recover, unlock). Returns what sweep_state__recover does,
 * 0 when there is nothing to do or a live sweep holds the lock.
 */
int sweep_state__recover_idle(const struct sweep_env *env, const struct device *dev, FILE *msgs,
			      struct diag *d);

#endif /* BLKTRACE_BENCH_SWEEP_STATE_H */
