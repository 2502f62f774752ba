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
#include <microhttpd.h>
#include "diag.h"
#include "exporter.h"
#include "http_metrics.h"
#include "stop_signals.h"

struct http_metrics {
	struct MHD_Daemon *daemon;
	struct exporter *e;
	int verbose;
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
	X(lookup_connection_value)

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

	if (!h->verbose)
		return;
	fputs("blktrace-bench: http: ", stderr);
	vfprintf(stderr, fmt, ap);
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_size, void **req_cls)
{
	(void)version;
	(void)upload_data;
	(void)upload_size;
	(void)req_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n",
				  "GET, HEAD");
	if (!strcmp(url, "/metrics"))
		return reply_metrics(cls, c);
	if (!strcmp(url, "/"))
		return reply_text(c, MHD_HTTP_OK, "blktrace-bench exporter: see /metrics\n", NULL);
	return reply_text(c, MHD_HTTP_NOT_FOUND, "not found: the metrics are at /metrics\n", NULL);
}

int http_metrics__start(const struct http_listen *l, struct exporter *e, int verbose,
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
	h->verbose = verbose;
	if (l->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The server's thread leaves the stop signals to the main thread's sleeps. */
	stop_signals__block(&old);
	errno = 0;
	h->daemon = mhd.start_daemon(
		flags, 0, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR, &l->addr,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_IDLE_SECONDS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONNECTION_BYTES,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, h, MHD_OPTION_END);
	err = errno ? -errno : -EADDRNOTAVAIL;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->daemon) {
		char host[128] = "?", port[16] = "?";

		getnameinfo((const struct sockaddr *)&l->addr, l->len, host, sizeof(host), port,
			    sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
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
	mhd.stop_daemon(h->daemon);
	free(h);
}
