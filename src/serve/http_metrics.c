// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The /metrics endpoint over libmicrohttpd; see http_metrics.h. */
#include <dlfcn.h>
#include <errno.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "base/clock.h"
#include "base/diag.h"
#include "serve/exporter.h"
#include "serve/http_metrics.h"
#include "base/stop_signals.h"

/* A connection from accept to close, as the slot policy sees it (http_metrics.h). */
struct http_conn {
	struct http_conn *prev, *next;
	int fd;
	double since;	/* CLOCK_MONOTONIC: accepted, or its last response sent */
	bool answering; /* a whole request came and is being answered */
	bool cut;	/* shut down by us: it holds no slot */
};

struct http_metrics {
	struct MHD_Daemon *daemon;
	struct exporter *e;
	FILE *notes; /* libmicrohttpd's own messages; NULL: not heard */
	/* The connections, oldest first; the server's thread and http_metrics__sweep's. */
	pthread_mutex_t lock;
	struct http_conn *head, *tail;
	unsigned int holding; /* connections not cut */
};

int http_metrics__parse_listen(const char *spec, struct http_listen *out, struct diag *d)
{
	/* Numeric only: a name would be looked up (DNS) and might not be what it seems. */
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE },
			*ai = NULL;
	const char *colon = strrchr(spec, ':');
	char host[256];
	size_t hlen;
	int err;

	memset(out, 0, sizeof(*out));
	if (!colon || colon == spec || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || strlen(colon + 1) > 5 ||
	    atoi(colon + 1) > 65535)
		return diag__usage(d,
				   "--listen: expected ADDR:PORT (127.0.0.1:9469, [::1]:9469), "
				   "not '%s'",
				   spec);
	hlen = colon - spec;
	if (spec[0] == '[' && hlen > 2 && spec[hlen - 1] == ']') { /* [v6]:port */
		spec++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		return diag__usage(d, "--listen: address too long: '%s'", spec);
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	err = getaddrinfo(host, colon + 1, &hints, &ai);
	if (err == EAI_NONAME)
		return diag__usage(d,
				   "--listen %s: not a numeric address (127.0.0.1:9469, "
				   "[::1]:9469): names are not looked up",
				   host);
	if (err || !ai) {
		if (ai)
			freeaddrinfo(ai);
		return diag__usage(d, "--listen %s: %s", host,
				   err ? gai_strerror(err) : "no address");
	}
	memcpy(&out->addr, ai->ai_addr, ai->ai_addrlen);
	out->len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

bool http_metrics__loopback(const struct http_listen *l)
{
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)&l->addr;
	const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&l->addr;

	if (l->addr.ss_family == AF_INET)
		return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
	if (l->addr.ss_family != AF_INET6)
		return false;
	if (IN6_IS_ADDR_V4MAPPED(&v6->sin6_addr))
		return v6->sin6_addr.s6_addr[12] == 127;
	return IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
}

/*
 * libmicrohttpd is opened when a server starts (dlopen), not linked: linked, it and the
 * TLS libraries it needs (gnutls, p11-kit, nettle, gmp...: 2.3 MiB of resident memory
 * here) are mapped and initialised by every command, trace included, which never serves
 * HTTP. Each function has the header's own prototype (typeof), so calls are checked as
 * before. The ABI has been libmicrohttpd.so.12 since 2014 (Debian: libmicrohttpd12).
 */
#define MHD_SONAME "libmicrohttpd.so.12"
#define MHD_FUNCS(X)                                                                               \
	X(start_daemon)                                                                            \
	X(stop_daemon)                                                                             \
	X(get_daemon_info)                                                                         \
	X(create_response_from_buffer)                                                             \
	X(create_response_from_buffer_with_free_callback_cls)                                      \
	X(add_response_header)                                                                     \
	X(queue_response)                                                                          \
	X(destroy_response)                                                                        \
	X(lookup_connection_value)                                                                 \
	X(get_connection_info)

static struct {
#define MHD_POINTER(f) __typeof__(MHD_##f) *f;
	MHD_FUNCS(MHD_POINTER)
#undef MHD_POINTER
} mhd;

/* Open the library once (the main thread, before any server thread). */
static int mhd_open(struct diag *d)
{
	static bool opened;
	void *lib;

	if (opened)
		return 0;
	lib = dlopen(MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return diag__fail(d, -ENOENT,
				  "serve needs libmicrohttpd (Debian: libmicrohttpd12): %s",
				  dlerror());
#define MHD_LOOKUP(f)                                                                              \
	if (!(*(void **)&mhd.f = dlsym(lib, "MHD_" #f))) {                                         \
		diag__fail(d, -ENOENT, "%s has no MHD_" #f ": %s", MHD_SONAME, dlerror());         \
		dlclose(lib);                                                                      \
		return -ENOENT;                                                                    \
	}
	MHD_FUNCS(MHD_LOOKUP)
#undef MHD_LOOKUP
	opened = true; /* kept open for the process's life, as a linked library is */
	return 0;
}

/* libmicrohttpd's own messages: bad clients are normal on a server, heard only with -v. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	const struct http_metrics *h = cls;

	if (!h->notes)
		return;
	fputs("blktrace-bench: http: ", h->notes);
	vfprintf(h->notes, fmt, ap);
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned int status, const char *text,
				  const char *allow)
{
	struct MHD_Response *r =
		mhd.create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (allow)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	ret = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ret;
}

static void put_exposition(void *cls)
{
	exposition__put(cls);
}

static enum MHD_Result reply_metrics(struct http_metrics *h, struct MHD_Connection *c)
{
	const char *accept =
		mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	enum om_format fmt = openmetrics__negotiate(accept);
	struct MHD_Response *r;
	struct exposition *x;
	enum MHD_Result ret;

	if (exporter__render(h->e, fmt, &x))
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot read the BPF maps\n",
				  NULL);
	/* The response holds a reference; the last one sent frees the text. */
	r = mhd.create_response_from_buffer_with_free_callback_cls(x->len, x->text, put_exposition,
								   x);
	if (!r) {
		exposition__put(x);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, openmetrics__content_type(fmt));
	ret = mhd.queue_response(c, MHD_HTTP_OK, r);
	mhd.destroy_response(r);
	return ret;
}

static struct http_conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *info =
		mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return info ? info->socket_context : NULL;
}

/*
 * Close a connection from outside libmicrohttpd's handling of it: shut down, its socket
 * wakes the server's thread, which closes it. Only under h->lock and before its CLOSED
 * notice: the notice comes before libmicrohttpd closes the descriptor, so fd is still
 * this connection's.
 */
static void cut(struct http_metrics *h, struct http_conn *k)
{
	shutdown(k->fd, SHUT_RDWR);
	k->cut = true;
	h->holding--;
}

/* Connections that have waited HTTP_REQUEST_SECONDS for a whole request: cut. Locked. */
static void cut_overdue(struct http_metrics *h, double now)
{
	struct http_conn *k;

	for (k = h->head; k; k = k->next)
		if (!k->cut && !k->answering && now - k->since >= HTTP_REQUEST_SECONDS)
			cut(h, k);
}

/*
 * One more than HTTP_MAX_CONNECTIONS: the newest takes the place of the one that has
 * waited longest for its request, if that one has waited HTTP_GRACE_SECONDS (a scraper
 * sends its request at once, a slow client does not); else it is refused at once.
 * Locked.
 */
static void make_room(struct http_metrics *h, struct http_conn *newest, double now)
{
	struct http_conn *k, *oldest = NULL;

	for (k = h->head; k; k = k->next)
		if (k != newest && !k->cut && !k->answering &&
		    (!oldest || k->since < oldest->since))
			oldest = k;
	if (oldest && now - oldest->since >= HTTP_GRACE_SECONDS)
		cut(h, oldest);
	else
		cut(h, newest);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *info;
	struct http_metrics *h = cls;
	struct http_conn *k = *socket_context;
	double now = clock__now();

	pthread_mutex_lock(&h->lock);
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED && k) {
		*(k->prev ? &k->prev->next : &h->head) = k->next;
		*(k->next ? &k->next->prev : &h->tail) = k->prev;
		h->holding -= !k->cut;
		free(k);
	} else if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		info = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		k = info ? calloc(1, sizeof(*k)) : NULL;
		if (k) {
			k->fd = info->connect_fd;
			k->since = now;
			k->prev = h->tail;
			*(h->tail ? &h->tail->next : &h->head) = k;
			h->tail = k;
			h->holding++;
			cut_overdue(h, now);
			if (h->holding > HTTP_MAX_CONNECTIONS)
				make_room(h, k, now);
		} else if (info) {
			shutdown(info->connect_fd, SHUT_RDWR); /* untracked: not kept */
		}
		*socket_context = k;
	}
	pthread_mutex_unlock(&h->lock);
}

/* A request answered: the connection waits for the next one from now. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct http_metrics *h = cls;
	struct http_conn *k = conn_of(c);

	(void)req_cls;
	(void)toe;
	if (!k)
		return;
	pthread_mutex_lock(&h->lock);
	k->answering = false;
	k->since = clock__now();
	pthread_mutex_unlock(&h->lock);
}

void http_metrics__sweep(struct http_metrics *h)
{
	if (!h)
		return;
	pthread_mutex_lock(&h->lock);
	cut_overdue(h, clock__now());
	pthread_mutex_unlock(&h->lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_size, void **req_cls)
{
	struct http_metrics *h = cls;
	struct http_conn *k = conn_of(c);

	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)req_cls;
	if (k) {
		pthread_mutex_lock(&h->lock);
		k->answering = true;
		pthread_mutex_unlock(&h->lock);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n",
				  "GET, HEAD");
	if (!strcmp(url, "/metrics"))
		return reply_metrics(cls, c);
	if (!strcmp(url, "/"))
		return reply_text(c, MHD_HTTP_OK, "blktrace-bench exporter: see /metrics\n", NULL);
	return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL);
}

int http_metrics__start(const struct http_listen *l, struct exporter *e, FILE *notes,
			struct http_metrics **out, struct diag *d)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	struct http_metrics *h = calloc(1, sizeof(*h));
	sigset_t old;
	int err;

	*out = NULL;
	if (!h)
		return diag__fail(d, -ENOMEM, "out of memory");
	err = mhd_open(d);
	if (err) {
		free(h);
		return err;
	}
	h->e = e;
	h->notes = notes;
	pthread_mutex_init(&h->lock, NULL);
	if (l->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The server's thread leaves the stop signals to the main thread's sleeps. */
	stop_signals__block(&old);
	errno = 0;
	/*
	 * One slot above HTTP_MAX_CONNECTIONS: at its own limit libmicrohttpd stops
	 * accepting, and connections wait in the backlog; on_connection makes room or
	 * refuses before it gets there. No per-address limit: a scraper on this host
	 * shares 127.0.0.1 with every local user.
	 */
	h->daemon = mhd.start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &l->addr,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS + 1,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_IDLE_SECONDS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_BYTES,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_NOTIFY_COMPLETED,
		on_completed, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h, MHD_OPTION_END);
	err = errno ? -errno : -EADDRNOTAVAIL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		char host[128] = "?", port[16] = "?";

		getnameinfo((const struct sockaddr *)&l->addr, l->len, host, sizeof(host), port,
			    sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return diag__fail(d, err, "cannot listen on %s port %s: %s", host, port,
				  strerror(-err));
	}
	*out = h;
	return 0;
}

unsigned int http_metrics__port(const struct http_metrics *h)
{
	const union MHD_DaemonInfo *info =
		mhd.get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);

	return info ? info->port : 0;
}

void http_metrics__stop(struct http_metrics *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->daemon); /* every connection closed, each one's notice given */
	pthread_mutex_destroy(&h->lock);
	free(h);
}
