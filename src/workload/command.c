// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Command mode's load: the user's command, run to its end; see command.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include "base/clock.h"
#include "base/diag.h"
#include "base/stop_signals.h"
#include "workload/command.h"

/* A CLOEXEC pipe carries execvp's errno back: EOF means the exec worked. */
int command__run(char **argv, double *seconds)
{
	int pipefd[2], status, child_err = 0;
	double t0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	t0 = clock__seconds(CLOCK_MONOTONIC);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (pid == 0) {
		/* exec resets our handlers to the defaults (a HUP nohup ignores stays so). */
		close(pipefd[0]);
		execvp(argv[0], argv);
		child_err = errno;
		/* Should this write fail, the parent sees EOF and exit status 127. */
		if (write(pipefd[1], &child_err, sizeof(child_err)) != sizeof(child_err))
			child_err = 0;
		_exit(EXIT_NOEXEC);
	}
	close(pipefd[1]);
	do
		n = read(pipefd[0], &child_err, sizeof(child_err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);

	for (;;) {
		/*
		 * Forward a signal sent to us alone; the command decides what to do. Not
		 * SIGPIPE: that one is about our own output, not the command's.
		 */
		if (stop_signal) {
			if (stop_signal != SIGPIPE)
				kill(pid, stop_signal);
			stop_signal = 0;
		}
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			return -errno;
	}
	*seconds = clock__seconds(CLOCK_MONOTONIC) - t0;
	if (n == sizeof(child_err) && child_err)
		return -child_err;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
