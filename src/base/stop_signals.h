/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The signals that end a command the orderly way (a workload's runs reported and its
 * setting restored, a trace reported, a tune's settings put back, a server stopped): HUP,
 * INT, TERM, QUIT, USR1, USR2, ALRM and PIPE (a server's: not HUP nor PIPE). Their
 * handler only notes the signal in stop_signal, which the command's loops and sleeps
 * check; no SA_RESTART, so a signal interrupts them.
 */
#ifndef BLKTRACE_BENCH_STOP_SIGNALS_H
#define BLKTRACE_BENCH_STOP_SIGNALS_H

#include <signal.h>

/* The last stop signal received, 0 while none. */
extern volatile sig_atomic_t stop_signal;
/* A service's SIGHUP, not yet acted on (stop_signals__catch_service); the loop clears it. */
extern volatile sig_atomic_t reread_signal;

/*
 * Catch them. INT and QUIT even when the shell started us ignoring them (a background
 * job); a HUP that nohup ignores stays ignored.
 */
void stop_signals__catch(void);
/*
 * A service (serve): the same, but SIGHUP asks for its configuration to be read again
 * (reread_signal; a SIGHUP ignored at start stays ignored), and SIGPIPE is ignored: a
 * closed stderr or a client gone is no reason to stop (systemd restarts only a failure).
 */
void stop_signals__catch_service(void);
/* Block them in the calling thread (before starting a thread that must not get them). */
void stop_signals__block(sigset_t *old);

#endif /* BLKTRACE_BENCH_STOP_SIGNALS_H */
