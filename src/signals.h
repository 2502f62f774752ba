/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The termination signals of commands that change something (trace, tune, verify):
 * every catchable signal whose default is to end the process sets stop_signal
 * instead, so the command ends the orderly way: the runs so far reported, changed
 * settings restored, the target closed, temporary files removed.
 */
#ifndef BLKTRACE_BENCH_SIGNALS_H
#define BLKTRACE_BENCH_SIGNALS_H

#include <signal.h>

/* The last signal caught, 0 when none: loops poll it, waits and sleeps are interrupted. */
extern volatile sig_atomic_t stop_signal;

/*
 * HUP, INT, TERM, QUIT, USR1, USR2, ALRM and PIPE, without SA_RESTART. INT and QUIT are
 * caught even when the shell started us ignoring them (a background job); HUP is left
 * ignored under nohup.
 */
void signals__catch(void);

#endif /* BLKTRACE_BENCH_SIGNALS_H */
