// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The signals that end a command the orderly way; see stop_signals.h. */
#include <pthread.h>
#include <stddef.h>
#include "base/stop_signals.h"

volatile sig_atomic_t stop_signal;
volatile sig_atomic_t reread_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_reread(int sig)
{
	reread_signal = sig;
}

/*
 * Every catchable signal whose default is to end the process ends us the orderly way
 * instead: the runs so far reported, a swept setting restored, the target closed. A
 * dropped SSH session (HUP), a stray kill -USR1 or an alarm must not leave a knob
 * changed. INT and QUIT are caught even when the shell started us ignoring them (a
 * background job), as INT always was. No SA_RESTART: a signal must interrupt our
 * sleeps and waits.
 */
static const int stop_signals[] = {
	SIGHUP, SIGINT, SIGTERM, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE,
};

void stop_signals__catch(void)
{
	struct sigaction sa = { .sa_handler = on_signal }, old;
	size_t i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		/* Under nohup a hangup must not end us: it cannot kill us either. */
		if (stop_signals[i] == SIGHUP && !sigaction(SIGHUP, NULL, &old) &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(stop_signals[i], &sa, NULL);
	}
}

void stop_signals__catch_service(void)
{
	struct sigaction sa = { .sa_handler = on_reread }, old;

	stop_signals__catch();
	sigemptyset(&sa.sa_mask);
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler == on_signal)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void stop_signals__block(sigset_t *old)
{
	sigset_t set;
	size_t i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&set, stop_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
}
