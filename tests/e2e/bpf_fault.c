// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A fault for tests/e2e/test_serve_reload.sh, preloaded into serve (LD_PRELOAD): the
 * bpf() calls that attach a program (BPF_RAW_TRACEPOINT_OPEN, BPF_LINK_CREATE, as libbpf
 * makes them through syscall()) fail with EMFILE, as they do at the open file limit:
 *   BPF_FAULT_ONCE=FILE   the next attach after FILE appears fails, and FILE is removed;
 *   BPF_FAULT_WHILE=FILE  every attach fails while FILE exists.
 * Loading is left alone; the test sets a real open file limit (prlimit) for that. Built
 * by the test: cc -shared -fPIC -o bpf_fault.so bpf_fault.c -ldl
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

static int fault_now(void)
{
	const char *once = getenv("BPF_FAULT_ONCE"), *during = getenv("BPF_FAULT_WHILE");

	if (once && !unlink(once))
		return 1;
	return during && !access(during, F_OK);
}

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	long a[6];
	va_list ap;
	int i;

	/* The kernel takes six words; glibc's syscall() reads six whatever was passed. */
	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "syscall");
	if (nr == __NR_bpf && (a[0] == BPF_RAW_TRACEPOINT_OPEN || a[0] == BPF_LINK_CREATE) &&
	    fault_now()) {
		errno = EMFILE;
		return -1;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
