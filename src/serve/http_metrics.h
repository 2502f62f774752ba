/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The /metrics endpoint: libmicrohttpd serving an exporter's exposition from a thread of
 * its own. GET and HEAD only (405 otherwise), /metrics (and / naming it), nothing else
 * (404). Bounded, and answering whoever else holds connections:
 *  - at most HTTP_MAX_CONNECTIONS at once. One more takes the place of the connection
 *    that has waited longest for its request, if that one has waited HTTP_GRACE_SECONDS
 *    (a scraper sends its request at once: a slow client cannot keep it out); else it is
 *    closed at once, never left in the listen backlog;
 *  - a connection gets HTTP_REQUEST_SECONDS for a whole request (from accept, or from
 *    its last response): a client sending a byte now and then is cut then;
 *  - HTTP_IDLE_SECONDS without progress closes a connection (a response not read);
 *  - HTTP_CONNECTION_BYTES of memory per connection (larger headers are answered 431
 *    and closed).
 * A scrape reads the exporter's latest rendering or renders one from map reads: it never
 * waits for tracing, nor tracing for it.
 */
#ifndef BLKTRACE_BENCH_HTTP_METRICS_H
#define BLKTRACE_BENCH_HTTP_METRICS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

#define HTTP_DEFAULT_LISTEN "127.0.0.1:9469"
#define HTTP_MAX_CONNECTIONS 64
#define HTTP_GRACE_SECONDS 0.5
#define HTTP_REQUEST_SECONDS 5.0
#define HTTP_IDLE_SECONDS 10
#define HTTP_CONNECTION_BYTES (32 * 1024)

struct diag;
struct exporter;
struct http_metrics;

struct http_listen {
	struct sockaddr_storage addr;
	socklen_t len;
};

/*
 * ADDR:PORT as --listen takes it: "127.0.0.1:9469", "[::1]:9469", "0.0.0.0:9469"; a
 * numeric address, never a name to look up; port 0 picks a free one. Bad input with d,
 * or 0.
 */
int http_metrics__parse_listen(const char *spec, struct http_listen *out, struct diag *d);
/* Is it a loopback address (127.0.0.0/8, ::1), which only this host can reach? */
bool http_metrics__loopback(const struct http_listen *l);

/*
 * Listen and serve e until http_metrics__stop. 0, or a negative errno with d (the
 * address in use, not ours...). notes: where libmicrohttpd's own messages go (NULL: nowhere).
 */
int http_metrics__start(const struct http_listen *l, struct exporter *e, FILE *notes,
			struct http_metrics **out, struct diag *d);
/* The port it listens on (the one chosen for port 0). */
unsigned int http_metrics__port(const struct http_metrics *h);
/*
 * Cut the connections past HTTP_REQUEST_SECONDS without a whole request; the server
 * cuts them too whenever one arrives. Call it every second or so. NULL is fine.
 */
void http_metrics__sweep(struct http_metrics *h);
/* Stop listening, close every connection, join the thread. NULL is fine. */
void http_metrics__stop(struct http_metrics *h);

#endif /* BLKTRACE_BENCH_HTTP_METRICS_H */
