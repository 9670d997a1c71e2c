// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for the siw2 connection endpoint state machine
 * (drivers/siw2/siw2_cm_fsm.c).
 *
 * Requirement IDs refer to ../shared/specs/DIGEST.md (§2.1 MPA2-*, §3.1
 * BASE-MPA-*, §3.3 BASE-RDMAP-*). The expected transition table below is
 * written out edge by edge from the connection sequence of DIGEST §2.1.4
 * and the state/event contract of siw2_cm_fsm.h; it does not reuse the
 * driver's table or macros, and no expected value is computed with the
 * code under test.
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/string.h>

#include "siw2_cm_fsm.h"

/* The enums as this suite knows them: a new state or event needs a row. */
#define N_STATES 11
#define N_EVENTS 20

#define ST(x) SIW2_CEP_##x
#define EV(x) SIW2_CEV_##x
#define INVALID SIW2_CEP_INVALID

/* Printable names, written out; also the expected siw2_cep_*_name(). */
static const char * const st_name[N_STATES] = {
	[ST(IDLE)] = "IDLE",
	[ST(LISTEN)] = "LISTEN",
	[ST(CONNECTING)] = "CONNECTING",
	[ST(AWAIT_REQ)] = "AWAIT_REQ",
	[ST(REQ_RCVD)] = "REQ_RCVD",
	[ST(AWAIT_REP)] = "AWAIT_REP",
	[ST(AWAIT_RTR)] = "AWAIT_RTR",
	[ST(AWAIT_RRESP)] = "AWAIT_RRESP",
	[ST(RDMA)] = "RDMA",
	[ST(CLOSING)] = "CLOSING",
	[ST(CLOSED)] = "CLOSED",
};

static const char * const ev_name[N_EVENTS] = {
	[EV(LISTEN)] = "listen",
	[EV(CONNECT)] = "connect",
	[EV(ACCEPTED)] = "accepted",
	[EV(TCP_UP)] = "tcp_up",
	[EV(REQ)] = "req",
	[EV(ULP_ACCEPT)] = "ulp_accept",
	[EV(ULP_ACCEPT_P2P)] = "ulp_accept_p2p",
	[EV(ULP_REJECT)] = "ulp_reject",
	[EV(REP)] = "rep",
	[EV(REP_READ_RTR)] = "rep_read_rtr",
	[EV(REP_REJECT)] = "rep_reject",
	[EV(RTR)] = "rtr",
	[EV(RRESP)] = "rresp",
	[EV(ULP_CLOSE)] = "ulp_close",
	[EV(PEER_CLOSE)] = "peer_close",
	[EV(DONE)] = "done",
	[EV(ABORT)] = "abort",
	[EV(RESET)] = "reset",
	[EV(PROTO)] = "proto",
	[EV(TIMEOUT)] = "timeout",
};

static const char *sn(unsigned int s)
{
	return s < N_STATES ? st_name[s] : "(out of range)";
}

static const char *en(unsigned int e)
{
	return e < N_EVENTS ? ev_name[e] : "(out of range)";
}

struct edge {
	enum siw2_cep_state from;
	enum siw2_cep_event ev;
	enum siw2_cep_state to;
};

#define T(f, e, t) { ST(f), EV(e), ST(t) }

/*
 * Every legal (state, event) -> next, one line each. Any pair not listed
 * here must give SIW2_CEP_INVALID.
 */
static const struct edge spec[] = {
	/* Endpoint roles */
	T(IDLE, LISTEN, LISTEN),
	T(IDLE, CONNECT, CONNECTING),
	T(IDLE, ACCEPTED, AWAIT_REQ),
	T(IDLE, ABORT, CLOSED),
	/* A listener only goes away; its connections are new endpoints. */
	T(LISTEN, ABORT, CLOSED),
	T(LISTEN, RESET, CLOSED),

	/* Active: TCP handshake, then the Request is sent (BASE-MPA-11) */
	T(CONNECTING, TCP_UP, AWAIT_REP),
	T(CONNECTING, PEER_CLOSE, CLOSED),
	T(CONNECTING, RESET, CLOSED),
	T(CONNECTING, PROTO, CLOSED),
	T(CONNECTING, TIMEOUT, CLOSED),
	T(CONNECTING, ABORT, CLOSED),
	/* Active: the Reply (MPA2-P2P-13/15, BASE-MPA-12, MPA2-IRD-9) */
	T(AWAIT_REP, REP, RDMA),
	T(AWAIT_REP, REP_READ_RTR, AWAIT_RRESP),
	T(AWAIT_REP, REP_REJECT, CLOSED),
	T(AWAIT_REP, PEER_CLOSE, CLOSED),
	T(AWAIT_REP, RESET, CLOSED),
	T(AWAIT_REP, PROTO, CLOSED),
	T(AWAIT_REP, TIMEOUT, CLOSED),
	T(AWAIT_REP, ABORT, CLOSED),
	/* Active: the zero-length Read Response to the Read RTR */
	T(AWAIT_RRESP, RRESP, RDMA),
	T(AWAIT_RRESP, PEER_CLOSE, CLOSED),
	T(AWAIT_RRESP, RESET, CLOSED),
	T(AWAIT_RRESP, PROTO, CLOSED),
	T(AWAIT_RRESP, TIMEOUT, CLOSED),
	T(AWAIT_RRESP, ABORT, CLOSED),

	/* Passive: the Request */
	T(AWAIT_REQ, REQ, REQ_RCVD),
	T(AWAIT_REQ, PEER_CLOSE, CLOSED),
	T(AWAIT_REQ, RESET, CLOSED),
	T(AWAIT_REQ, PROTO, CLOSED),
	T(AWAIT_REQ, TIMEOUT, CLOSED),
	T(AWAIT_REQ, ABORT, CLOSED),
	/* Passive: the ULP decides (MPA2-IRD-5, BASE-MPA-12) */
	T(REQ_RCVD, ULP_ACCEPT, RDMA),
	T(REQ_RCVD, ULP_ACCEPT_P2P, AWAIT_RTR),
	T(REQ_RCVD, ULP_REJECT, CLOSED),
	T(REQ_RCVD, PEER_CLOSE, CLOSED),
	T(REQ_RCVD, RESET, CLOSED),
	T(REQ_RCVD, PROTO, CLOSED),
	T(REQ_RCVD, TIMEOUT, CLOSED),
	T(REQ_RCVD, ABORT, CLOSED),
	/* Passive, peer-to-peer: no FPDU before the RTR (MPA fencing) */
	T(AWAIT_RTR, RTR, RDMA),
	T(AWAIT_RTR, PEER_CLOSE, CLOSED),
	T(AWAIT_RTR, RESET, CLOSED),
	T(AWAIT_RTR, PROTO, CLOSED),
	T(AWAIT_RTR, TIMEOUT, CLOSED),
	T(AWAIT_RTR, ABORT, CLOSED),

	/* RDMA mode: graceful close or abortive (BASE-RDMAP-8) */
	T(RDMA, ULP_CLOSE, CLOSING),
	T(RDMA, PEER_CLOSE, CLOSED),
	T(RDMA, RESET, CLOSED),
	T(RDMA, PROTO, CLOSED),
	T(RDMA, ABORT, CLOSED),
	T(CLOSING, ULP_CLOSE, CLOSING),
	T(CLOSING, DONE, CLOSED),
	T(CLOSING, PEER_CLOSE, CLOSED),
	T(CLOSING, RESET, CLOSED),
	T(CLOSING, PROTO, CLOSED),
	T(CLOSING, TIMEOUT, CLOSED),
	T(CLOSING, ABORT, CLOSED),
	/* CLOSED: nothing */
};

#define N_EDGES 58

static enum siw2_cep_state spec_next(unsigned int s, unsigned int e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].from == s && spec[i].ev == e)
			return spec[i].to;
	return INVALID;
}

/* The states that wait on the peer (or the ULP) under a timeout. */
static const enum siw2_cep_state timed[] = {
	ST(CONNECTING), ST(AWAIT_REQ), ST(REQ_RCVD), ST(AWAIT_REP),
	ST(AWAIT_RTR), ST(AWAIT_RRESP), ST(CLOSING),
};

static const enum siw2_cep_state untimed[] = {
	ST(IDLE), ST(LISTEN), ST(RDMA), ST(CLOSED),
};

static bool in_list(const enum siw2_cep_state *list, size_t n, unsigned int s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == s)
			return true;
	return false;
}

/* The enums and the expected table agree with each other. */
static void spec_table_self_check(struct kunit *test)
{
	size_t i, j;

	KUNIT_ASSERT_EQ(test, SIW2_CEP_NUM_STATES, N_STATES);
	KUNIT_ASSERT_EQ(test, SIW2_CEV_NUM_EVENTS, N_EVENTS);
	KUNIT_ASSERT_EQ(test, SIW2_CEP_INVALID, SIW2_CEP_NUM_STATES);
	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(spec), N_EDGES);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(timed) + ARRAY_SIZE(untimed), N_STATES);

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		KUNIT_EXPECT_LT(test, spec[i].from, N_STATES);
		KUNIT_EXPECT_LT(test, spec[i].ev, N_EVENTS);
		KUNIT_EXPECT_LT(test, spec[i].to, N_STATES);
		for (j = i + 1; j < ARRAY_SIZE(spec); j++)
			KUNIT_EXPECT_FALSE_MSG(test, spec[i].from == spec[j].from &&
					       spec[i].ev == spec[j].ev,
					       "spec rows %zu and %zu: same pair", i, j);
	}
	for (i = 0; i < ARRAY_SIZE(timed); i++)
		KUNIT_EXPECT_FALSE_MSG(test, in_list(untimed, ARRAY_SIZE(untimed), timed[i]),
				       "%s both timed and untimed", sn(timed[i]));
}

/* Rows of the exhaustive check: every state, then two invalid values. */
static const unsigned int table_rows[] = {
	ST(IDLE), ST(LISTEN), ST(CONNECTING), ST(AWAIT_REQ), ST(REQ_RCVD),
	ST(AWAIT_REP), ST(AWAIT_RTR), ST(AWAIT_RRESP), ST(RDMA), ST(CLOSING),
	ST(CLOSED), N_STATES, 255,
};

static void table_row_desc(const unsigned int *s, char *desc)
{
	if (*s < N_STATES)
		strscpy(desc, st_name[*s], KUNIT_PARAM_DESC_SIZE);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "state_%u_out_of_range", *s);
}

KUNIT_ARRAY_PARAM(table_row, table_rows, table_row_desc);

/*
 * siw2_cep_next() for one state against every event (and two out-of-range
 * events): exactly the listed edges, SIW2_CEP_INVALID for every other pair.
 */
static void transition_table_exhaustive(struct kunit *test)
{
	unsigned int s = *(const unsigned int *)test->param_value;
	unsigned int e, legal = 0;

	for (e = 0; e <= N_EVENTS + 1; e++) {
		unsigned int ev = e <= N_EVENTS ? e : 255;
		enum siw2_cep_state exp = spec_next(s, ev);

		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(s, ev), exp,
				    "%s --%s--> expected %s", sn(s), en(ev),
				    exp == INVALID ? "INVALID" : sn(exp));
		legal += exp != INVALID;
	}
	/* Out-of-range rows have no edge at all. */
	if (s >= N_STATES)
		KUNIT_EXPECT_EQ(test, legal, 0);
}

struct step {
	enum siw2_cep_event ev;
	enum siw2_cep_state to;
};

static void walk(struct kunit *test, const char *what, enum siw2_cep_state s,
		 const struct step *steps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		enum siw2_cep_state next = siw2_cep_next(s, steps[i].ev);

		KUNIT_ASSERT_EQ_MSG(test, next, steps[i].to, "%s, step %zu: %s --%s-->",
				    what, i, sn(s), en(steps[i].ev));
		s = next;
	}
}

#define WALK(test, start, ...)						\
	do {								\
		static const struct step _s[] = { __VA_ARGS__ };	\
		walk(test, #__VA_ARGS__, ST(start), _s, ARRAY_SIZE(_s)); \
	} while (0)

#define STEP(e, t) { EV(e), ST(t) }

/*
 * Active side, client-server or Write RTR: TCP, Request, accepting Reply
 * (the Write RTR, if any, is sent with it: MPA2-P2P-13/15), RDMA mode, then
 * a graceful close (BASE-MPA-11, MPA2-GEN-1).
 */
static void active_path_base_mpa_11(struct kunit *test)
{
	WALK(test, IDLE,
	     STEP(CONNECT, CONNECTING), STEP(TCP_UP, AWAIT_REP), STEP(REP, RDMA),
	     STEP(ULP_CLOSE, CLOSING), STEP(DONE, CLOSED));
	/* A second close while closing changes nothing. */
	WALK(test, RDMA, STEP(ULP_CLOSE, CLOSING), STEP(ULP_CLOSE, CLOSING),
	     STEP(PEER_CLOSE, CLOSED));
}

/*
 * Active side, Read RTR: after the accepting Reply the Initiator sends the
 * zero-length Read and waits for its Response before RDMA mode
 * (MPA2-P2P-13/15, DIGEST 2.1.3 D).
 */
static void active_read_rtr_path_mpa2_p2p_13(struct kunit *test)
{
	WALK(test, IDLE,
	     STEP(CONNECT, CONNECTING), STEP(TCP_UP, AWAIT_REP),
	     STEP(REP_READ_RTR, AWAIT_RRESP), STEP(RRESP, RDMA),
	     STEP(ULP_CLOSE, CLOSING), STEP(DONE, CLOSED));
	/* The Read RTR is answered once; no second Read RTR. */
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(AWAIT_RRESP), EV(REP_READ_RTR)), INVALID);
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(AWAIT_RRESP), EV(REP)), INVALID);
}

/* Passive side, client-server: Request, ULP accept, RDMA mode. */
static void passive_path_client_server_base_mpa_11(struct kunit *test)
{
	WALK(test, IDLE,
	     STEP(ACCEPTED, AWAIT_REQ), STEP(REQ, REQ_RCVD), STEP(ULP_ACCEPT, RDMA),
	     STEP(PEER_CLOSE, CLOSED));
}

/*
 * Passive side, peer-to-peer: after the Reply the Responder waits for the
 * RTR before RDMA mode; it sends no FPDU before (MPA fencing, DIGEST 2.1.4
 * step 5, BASE-MPA-11).
 */
static void passive_path_p2p_rtr_mpa2_p2p_15(struct kunit *test)
{
	WALK(test, IDLE,
	     STEP(ACCEPTED, AWAIT_REQ), STEP(REQ, REQ_RCVD),
	     STEP(ULP_ACCEPT_P2P, AWAIT_RTR), STEP(RTR, RDMA),
	     STEP(ULP_CLOSE, CLOSING), STEP(DONE, CLOSED));
	/* A Request or a second accept is not an RTR. */
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(AWAIT_RTR), EV(REQ)), INVALID);
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(AWAIT_RTR), EV(ULP_ACCEPT)), INVALID);
	/* An RTR outside peer-to-peer setup is not an event. */
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(REQ_RCVD), EV(RTR)), INVALID);
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(RDMA), EV(RTR)), INVALID);
}

/*
 * Rejects: the ULP rejects (R=1 Reply, MPA2-IRD-5) or the Initiator gets a
 * Reply with R=1; either way the connection closes (BASE-MPA-12). Failed
 * negotiation (TERM 2/0/6 or 7, MPA2-IRD-9, MPA2-P2P-14; a bad frame, TERM
 * 2/0/4) is a protocol error and closes too.
 */
static void reject_paths_base_mpa_12(struct kunit *test)
{
	WALK(test, IDLE,
	     STEP(ACCEPTED, AWAIT_REQ), STEP(REQ, REQ_RCVD), STEP(ULP_REJECT, CLOSED));
	WALK(test, IDLE,
	     STEP(CONNECT, CONNECTING), STEP(TCP_UP, AWAIT_REP), STEP(REP_REJECT, CLOSED));
	WALK(test, AWAIT_REP, STEP(PROTO, CLOSED));
	WALK(test, AWAIT_REQ, STEP(PROTO, CLOSED));
	WALK(test, AWAIT_RTR, STEP(PROTO, CLOSED));
	/* Reject only while the Request/Reply is being decided. */
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(AWAIT_RTR), EV(ULP_REJECT)), INVALID);
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(RDMA), EV(ULP_REJECT)), INVALID);
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(AWAIT_RRESP), EV(REP_REJECT)), INVALID);
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(RDMA), EV(REP_REJECT)), INVALID);
}

/*
 * No connection hangs: every timed state, and exactly the listed ones,
 * reaches CLOSED on a timeout, a reset, a protocol error, the peer's FIN
 * and an abort.
 */
static void timed_states_exit_to_closed(struct kunit *test)
{
	static const enum siw2_cep_event exits[] = {
		EV(TIMEOUT), EV(RESET), EV(PROTO), EV(PEER_CLOSE), EV(ABORT),
	};
	unsigned int s;
	size_t i;

	for (s = 0; s < N_STATES; s++) {
		bool exp = in_list(timed, ARRAY_SIZE(timed), s);

		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_timed(s), exp, "%s", sn(s));
		if (!siw2_cep_timed(s))
			continue;
		for (i = 0; i < ARRAY_SIZE(exits); i++)
			KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(s, exits[i]), ST(CLOSED),
					    "%s --%s-->", sn(s), en(exits[i]));
	}
}

/* Untimed: exactly IDLE, LISTEN, RDMA and CLOSED; nothing out of range. */
static void untimed_states_exactly_four(struct kunit *test)
{
	unsigned int s, n = 0;

	for (s = 0; s < N_STATES; s++) {
		bool exp = in_list(untimed, ARRAY_SIZE(untimed), s);

		KUNIT_EXPECT_EQ_MSG(test, !siw2_cep_timed(s), exp, "%s", sn(s));
		n += !siw2_cep_timed(s);
	}
	KUNIT_EXPECT_EQ(test, n, 4);
	KUNIT_EXPECT_FALSE(test, siw2_cep_timed(ST(IDLE)));
	KUNIT_EXPECT_FALSE(test, siw2_cep_timed(ST(LISTEN)));
	KUNIT_EXPECT_FALSE(test, siw2_cep_timed(ST(RDMA)));
	KUNIT_EXPECT_FALSE(test, siw2_cep_timed(ST(CLOSED)));
	KUNIT_EXPECT_FALSE(test, siw2_cep_timed(N_STATES));
	KUNIT_EXPECT_FALSE(test, siw2_cep_timed(255));
}

/* CLOSED is terminal: no event leaves it, not even an abort. */
static void closed_has_no_exit(struct kunit *test)
{
	unsigned int e;

	for (e = 0; e < N_EVENTS; e++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(ST(CLOSED), e), INVALID,
				    "CLOSED --%s-->", en(e));
}

/* The QP can always tear an endpoint down (QP to ERR, destroy, unlisten). */
static void abort_closes_every_live_state(struct kunit *test)
{
	unsigned int s;

	for (s = 0; s < N_STATES; s++) {
		if (s == ST(CLOSED))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(s, EV(ABORT)), ST(CLOSED),
				    "%s --abort-->", sn(s));
	}
}

/* Bit set of the states reachable from @start through siw2_cep_next(). */
static u32 reachable(struct kunit *test, unsigned int start)
{
	u32 seen = BIT(start), todo = BIT(start);

	while (todo) {
		unsigned int s = __ffs(todo);
		unsigned int e;

		todo &= ~BIT(s);
		for (e = 0; e < N_EVENTS; e++) {
			unsigned int n = siw2_cep_next(s, e);

			if (n == INVALID)
				continue;
			KUNIT_ASSERT_LT(test, n, N_STATES);
			if (!(seen & BIT(n))) {
				seen |= BIT(n);
				todo |= BIT(n);
			}
		}
	}
	return seen;
}

/* A listener never enters RDMA mode: it only goes away. */
static void listen_never_reaches_rdma(struct kunit *test)
{
	u32 r = reachable(test, ST(LISTEN));

	KUNIT_EXPECT_FALSE(test, r & BIT(ST(RDMA)));
	KUNIT_EXPECT_EQ(test, r, BIT(ST(LISTEN)) | BIT(ST(CLOSED)));
}

/*
 * Every state is reachable from IDLE (no dead rows), and CLOSED from every
 * state (no trap besides CLOSED).
 */
static void every_state_reachable_and_closable(struct kunit *test)
{
	unsigned int s;

	KUNIT_EXPECT_EQ(test, reachable(test, ST(IDLE)), (u32)GENMASK(N_STATES - 1, 0));
	for (s = 0; s < N_STATES; s++)
		KUNIT_EXPECT_TRUE_MSG(test, reachable(test, s) & BIT(ST(CLOSED)),
				      "CLOSED not reachable from %s", sn(s));
}

/*
 * RDMA mode follows the MPA exchange only: an accepting Reply (with no RTR
 * or a Write RTR sent), the Read RTR's Response, a client-server accept, or
 * the RTR (BASE-MPA-11, MPA2-P2P-1/15, MPA2-GEN-1).
 */
static void rdma_entered_only_after_mpa(struct kunit *test)
{
	static const struct edge into_rdma[] = {
		T(AWAIT_REP, REP, RDMA),
		T(AWAIT_RRESP, RRESP, RDMA),
		T(REQ_RCVD, ULP_ACCEPT, RDMA),
		T(AWAIT_RTR, RTR, RDMA),
	};
	unsigned int s, e, n = 0;
	size_t i;

	for (s = 0; s < N_STATES; s++) {
		for (e = 0; e < N_EVENTS; e++) {
			if (siw2_cep_next(s, e) != ST(RDMA))
				continue;
			n++;
			KUNIT_EXPECT_TRUE_MSG(test, e == EV(REP) || e == EV(RRESP) ||
					      e == EV(ULP_ACCEPT) || e == EV(RTR),
					      "%s --%s--> RDMA", sn(s), en(e));
		}
	}
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(into_rdma));
	for (i = 0; i < ARRAY_SIZE(into_rdma); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(into_rdma[i].from, into_rdma[i].ev),
				    ST(RDMA), "%s --%s-->", sn(into_rdma[i].from),
				    en(into_rdma[i].ev));
	/* A peer-to-peer accept waits for the RTR first. */
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(REQ_RCVD), EV(ULP_ACCEPT_P2P)),
			ST(AWAIT_RTR));
}

/* Out-of-range values, -1 (a negative value passed by mistake) included. */
static const unsigned int bad_states[] = {
	N_STATES, N_STATES + 1, 255, 0x7fffffff, 0xffffffff,
};

static const unsigned int bad_events[] = {
	N_EVENTS, N_EVENTS + 1, 255, 0x7fffffff, 0xffffffff,
};

static void state_names(struct kunit *test)
{
	unsigned int s, t;
	size_t i;

	for (s = 0; s < N_STATES; s++) {
		const char *name = siw2_cep_state_name(s);

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "state %u", s);
		KUNIT_EXPECT_STREQ(test, name, st_name[s]);
		for (t = 0; t < s; t++)
			KUNIT_EXPECT_STRNEQ(test, name, siw2_cep_state_name(t));
	}
	for (i = 0; i < ARRAY_SIZE(bad_states); i++)
		KUNIT_EXPECT_STREQ_MSG(test, siw2_cep_state_name(bad_states[i]), "?",
				       "state %u", bad_states[i]);
}

static void event_names(struct kunit *test)
{
	unsigned int e, f;
	size_t i;

	for (e = 0; e < N_EVENTS; e++) {
		const char *name = siw2_cep_event_name(e);

		KUNIT_ASSERT_NOT_NULL_MSG(test, name, "event %u", e);
		KUNIT_EXPECT_STREQ(test, name, ev_name[e]);
		for (f = 0; f < e; f++)
			KUNIT_EXPECT_STRNEQ(test, name, siw2_cep_event_name(f));
	}
	for (i = 0; i < ARRAY_SIZE(bad_events); i++)
		KUNIT_EXPECT_STREQ_MSG(test, siw2_cep_event_name(bad_events[i]), "?",
				       "event %u", bad_events[i]);
}

static struct kunit_case siw2_cm_fsm_cases[] = {
	KUNIT_CASE(spec_table_self_check),
	KUNIT_CASE_PARAM(transition_table_exhaustive, table_row_gen_params),
	KUNIT_CASE(active_path_base_mpa_11),
	KUNIT_CASE(active_read_rtr_path_mpa2_p2p_13),
	KUNIT_CASE(passive_path_client_server_base_mpa_11),
	KUNIT_CASE(passive_path_p2p_rtr_mpa2_p2p_15),
	KUNIT_CASE(reject_paths_base_mpa_12),
	KUNIT_CASE(timed_states_exit_to_closed),
	KUNIT_CASE(untimed_states_exactly_four),
	KUNIT_CASE(closed_has_no_exit),
	KUNIT_CASE(abort_closes_every_live_state),
	KUNIT_CASE(listen_never_reaches_rdma),
	KUNIT_CASE(every_state_reachable_and_closable),
	KUNIT_CASE(rdma_entered_only_after_mpa),
	KUNIT_CASE(state_names),
	KUNIT_CASE(event_names),
	{}
};

static struct kunit_suite siw2_cm_fsm_suite = {
	.name = "siw2_cm_fsm",
	.test_cases = siw2_cm_fsm_cases,
};

kunit_test_suites(&siw2_cm_fsm_suite);

MODULE_LICENSE("Dual BSD/GPL");
