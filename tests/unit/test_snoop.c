// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The snoop record reader (snoop__print_stream): records written as the drain thread
 * writes them come back as one line each, with every field where the header says;
 * process names are escaped; a wrong magic, another format, a truncated record are
 * refused with one line naming the file; a pipe reads as a file does.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/diag.h"
#include "trace/snoop.h"

/* A snoop file in memory: the header, then n records; extra bytes appended raw. */
static FILE *snoop_file(const struct blkio_event *ev, size_t n, const void *extra, size_t xlen,
			unsigned int version)
{
	struct snoop_header h = { .version = version, .record_size = sizeof(*ev) };
	FILE *f = tmpfile();

	assert_non_null(f);
	memcpy(h.magic, SNOOP_MAGIC, sizeof(h.magic));
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	if (n)
		assert_int_equal(fwrite(ev, sizeof(*ev), n, f), n);
	if (xlen)
		assert_int_equal(fwrite(extra, 1, xlen, f), xlen);
	rewind(f);
	return f;
}

/* What the reader prints for f, in out (caller frees); its return value. */
static int read_all(FILE *f, char **out, struct diag *d)
{
	size_t len = 0;
	FILE *o = open_memstream(out, &len);
	int ret;

	assert_non_null(o);
	memset(d, 0, sizeof(*d));
	ret = snoop__print_stream(f, "t.snoop", o, d);
	fclose(o);
	fclose(f);
	return ret;
}

static struct blkio_event event(uint32_t pid, const char *comm, uint8_t op, uint32_t bytes)
{
	struct blkio_event e = {
		.ts_ns = 1500000000ULL,
		.sector = 2048,
		.queue_ns = 2500,
		.device_ns = 120500,
		.bytes = bytes,
		.dev = BLKIO_DEV(7, 3),
		.pid = pid,
		.segments = 4,
		.depth = 2,
		.op = op,
	};

	memcpy(e.comm, comm, strnlen(comm, sizeof(e.comm)));
	return e;
}

static void test_records(void **state)
{
	struct blkio_event ev[3] = { event(42, "fio", BLKIO_OP_READ, 16384),
				     event(43, "dd\nfake", BLKIO_OP_WRITE, 4096),
				     event(0, "", BLKIO_OP_FLUSH, 0) };
	struct diag d;
	char *out = NULL, *line;

	(void)state;
	ev[2].sector = SNOOP_NO_SECTOR;
	ev[2].error = 1;
	assert_int_equal(read_all(snoop_file(ev, 3, NULL, 0, SNOOP_VERSION), &out, &d), 0);
	/* A header line, then one line per record. */
	line = strchr(out, '\n');
	assert_non_null(line);
	assert_non_null(strstr(out, "TIME(s)"));
	assert_non_null(strstr(line, "1.500000000        42      fio                7:3    read  "
				     "        2048    16384     4     2        2.5      120.5 \n"));
	/* A newline in a process name is escaped, never printed raw. */
	assert_non_null(strstr(line, " 43      dd\\x0afake "));
	/* No sector for a flush; the error flagged; no process known. */
	assert_non_null(
		strstr(line, "0       ?                  7:3    flush            -        0"));
	assert_non_null(strstr(line, " error\n"));
	free(out);
}

static void test_refusals(void **state)
{
	struct blkio_event e = event(1, "x", BLKIO_OP_READ, 512);
	struct diag d;
	char *out = NULL;
	FILE *f;

	(void)state;
	/* A truncated last record. */
	assert_int_equal(read_all(snoop_file(&e, 1, &e, 10, SNOOP_VERSION), &out, &d), -EINVAL);
	assert_true(d.usage);
	assert_string_equal(d.msg, "t.snoop: truncated after 1 records");
	free(out);
	/* Another format. */
	out = NULL;
	assert_int_equal(read_all(snoop_file(&e, 1, NULL, 0, SNOOP_VERSION + 1), &out, &d),
			 -EINVAL);
	assert_non_null(strstr(d.msg, "t.snoop: snoop format 2 with 72-byte records"));
	free(out);
	/* Not a snoop file at all. */
	out = NULL;
	f = tmpfile();
	assert_non_null(f);
	fputs("{\"schema\": \"blktrace-bench/1\"}\n", f);
	rewind(f);
	assert_int_equal(read_all(f, &out, &d), -EINVAL);
	assert_string_equal(d.msg, "t.snoop: not a blktrace-bench snoop file");
	free(out);
	/* An empty file: not one either; a header alone: no records, fine. */
	out = NULL;
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(read_all(f, &out, &d), -EINVAL);
	free(out);
	out = NULL;
	assert_int_equal(read_all(snoop_file(&e, 0, NULL, 0, SNOOP_VERSION), &out, &d), 0);
	assert_null(strchr(strchr(out, '\n') + 1, '\n'));
	free(out);
}

/*
 * A pipe (--snoop-text - or /dev/stdin): no position to ask for, so the reader counts
 * bytes; a whole stream reads clean, a part of a record at its end is still a cut.
 */
static void test_pipe(void **state)
{
	struct blkio_event ev[2] = { event(42, "fio", BLKIO_OP_READ, 4096),
				     event(43, "dd", BLKIO_OP_WRITE, 8192) };
	struct snoop_header h = { .version = SNOOP_VERSION, .record_size = sizeof(ev[0]) };
	int cut, p[2];
	struct diag d;
	char *out;
	FILE *f;

	(void)state;
	memcpy(h.magic, SNOOP_MAGIC, sizeof(h.magic));
	for (cut = 0; cut <= 1; cut++) {
		/* 16 + 2 x 72 bytes: far below a pipe's buffer, written before reading */
		assert_int_equal(pipe(p), 0);
		assert_int_equal(write(p[1], &h, sizeof(h)), sizeof(h));
		assert_int_equal(write(p[1], ev, sizeof(ev) - cut * 10), sizeof(ev) - cut * 10);
		close(p[1]);
		f = fdopen(p[0], "rb");
		assert_non_null(f);
		out = NULL;
		if (!cut) {
			assert_int_equal(read_all(f, &out, &d), 0);
			assert_non_null(strstr(out, " 43      dd "));
		} else {
			assert_int_equal(read_all(f, &out, &d), -EINVAL);
			assert_string_equal(d.msg, "t.snoop: truncated after 1 records");
		}
		free(out);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
