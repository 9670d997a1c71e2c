/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the rdma_cm test programs siw2_fastpath and siw2_exverbs share: a
 * monotonic clock, CM event waits with deadlines, address resolution,
 * listening and route resolution.
 * The including program defines fail() (print its FAIL line, exit 1).
 */
#ifndef SIW2_PROGS_CM_COMMON_H
#define SIW2_PROGS_CM_COMMON_H

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rdma/rdma_cma.h>

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));

static inline void fail_errno(const char *what)
{
	fail("%s: %s (errno %d)", what, strerror(errno), errno);
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A slower guest kernel (the debug kernel) stretches every wait the way
 * it stretches the harness's own: tests/vm/guest-init.sh exports
 * SIW2_TIMEOUT_SCALE. Without it a server's wait for a connection ran out
 * while the client still resolved its address, and the client then got
 * REJECTED -111 from the closed listener.
 */
static inline double tmo_scale(void)
{
	const char *s = getenv("SIW2_TIMEOUT_SCALE");
	double v = s ? atof(s) : 1;

	return v >= 1 ? v : 1;
}

/* The next CM event within secs (<= 0: one already there), or NULL. */
static inline struct rdma_cm_event *cm_next_event(struct rdma_event_channel *ch,
						  double secs)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	double deadline = now_s() + secs;
	struct rdma_cm_event *ev;
	int ms;

	while (rdma_get_cm_event(ch, &ev)) {
		if (errno != EAGAIN && errno != EINTR)
			fail_errno("rdma_get_cm_event");
		ms = (int)((deadline - now_s()) * 1000);
		if (ms <= 0)
			return NULL;
		poll(&pfd, 1, ms);
	}
	return ev;
}

/* The next CM event, within secs, which must be want; else fail(). */
static inline struct rdma_cm_event *cm_get_event(struct rdma_event_channel *ch,
						 int secs,
						 enum rdma_cm_event_type want,
						 const char *what)
{
	struct rdma_cm_event *ev = cm_next_event(ch, secs * tmo_scale());

	if (!ev)
		fail("timeout (%.0f s) waiting for %s", secs * tmo_scale(), what);
	if (ev->event != want)
		fail("%s (status %d) while waiting for %s%s",
		     rdma_event_str(ev->event), ev->status, what,
		     ev->event == RDMA_CM_EVENT_REJECTED ?
		     " (refused: see the server's output)" : "");
	return ev;
}

/* Ack CM events until DISCONNECTED or secs pass; true if it came. */
static inline bool cm_wait_disconnected(struct rdma_event_channel *ch,
					double secs)
{
	double deadline = now_s() + secs * tmo_scale();
	struct rdma_cm_event *ev;
	bool disc;

	while ((ev = cm_next_event(ch, deadline - now_s()))) {
		disc = ev->event == RDMA_CM_EVENT_DISCONNECTED;
		rdma_ack_cm_event(ev);
		if (disc)
			return true;
	}
	return false;
}

/* Numeric address and port for a TCP port space CM ID; else fail(). */
static inline struct addrinfo *cm_resolve(const char *addr, const char *port,
					  bool passive)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			    (passive ? AI_PASSIVE : 0),
		.ai_socktype = SOCK_STREAM,
	}, *res;
	int rc = getaddrinfo(addr, port, &hints, &res);

	if (rc)
		fail("address '%s' port '%s': %s", addr, port,
		     gai_strerror(rc));
	return res;
}

/* A listening CM ID on addr:port; prints "LISTENING addr:port". */
static inline struct rdma_cm_id *cm_listen(struct rdma_event_channel *ch,
					   const char *addr, const char *port)
{
	struct addrinfo *ai = cm_resolve(addr, port, true);
	struct rdma_cm_id *lid;

	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	if (rdma_bind_addr(lid, ai->ai_addr))
		fail_errno("rdma_bind_addr");
	freeaddrinfo(ai);
	if (rdma_listen(lid, 1))
		fail_errno("rdma_listen");
	printf("LISTENING %s:%s\n", addr, port);
	fflush(stdout);
	return lid;
}

/* An active CM ID with address and route to addr:port resolved. */
static inline struct rdma_cm_id *cm_route(struct rdma_event_channel *ch,
					  int secs, const char *addr,
					  const char *port)
{
	struct addrinfo *ai = cm_resolve(addr, port, false);
	struct rdma_cm_id *cid;

	if (rdma_create_id(ch, &cid, NULL, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	if (rdma_resolve_addr(cid, NULL, ai->ai_addr, 5000))
		fail_errno("rdma_resolve_addr");
	freeaddrinfo(ai);
	rdma_ack_cm_event(cm_get_event(ch, secs, RDMA_CM_EVENT_ADDR_RESOLVED,
				       "ADDR_RESOLVED"));
	if (rdma_resolve_route(cid, 5000))
		fail_errno("rdma_resolve_route");
	rdma_ack_cm_event(cm_get_event(ch, secs, RDMA_CM_EVENT_ROUTE_RESOLVED,
				       "ROUTE_RESOLVED"));
	return cid;
}

#endif
