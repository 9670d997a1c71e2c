// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for the siw2 connection endpoint state machine
 * (drivers/siw2/siw2_cm_fsm.c): the transition table, and the dispatch of
 * pending inputs (abort, read, close, socket state, timeout) to actions.
 *
 * Requirement IDs refer to ../shared/specs/DIGEST.md (§2.1 MPA2-*, §3.1
 * BASE-MPA-*, §3.3 BASE-RDMAP-*). The expected transition table below is
 * written out edge by edge from the connection sequence of DIGEST §2.1.4
 * and the state/event contract of siw2_cm_fsm.h; it does not reuse the
 * driver's table or macros, and no expected value is computed with the
 * code under test. The expected dispatch (which action each input calls
 * for in each state, which events each action may take, what the IWCM
 * hears on an abort or a timeout) is written out the same way; only
 * actions_take_only_table_edges checks the driver's tables against each
 * other.
 */

#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "siw2_cm_fsm.h"

/* The enums as this suite knows them: a new state or event needs a row. */
#define N_STATES 11
#define N_EVENTS 20
#define N_INPUTS 5
#define N_ACTIONS 11

#define ST(x) SIW2_CEP_##x
#define EV(x) SIW2_CEV_##x
#define IN(x) SIW2_CEPI_##x
#define ACT(x) SIW2_CEA_##x
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

static const char * const in_name[N_INPUTS] = {
	[IN(ABORT)] = "abort",
	[IN(READ)] = "read",
	[IN(CLOSE)] = "close",
	[IN(STATE)] = "state",
	[IN(TIMEOUT)] = "timeout",
};

static const char * const act_name[N_ACTIONS] = {
	[ACT(NONE)] = "none",
	[ACT(FAIL)] = "fail",
	[ACT(ACCEPT)] = "accept",
	[ACT(TCP_UP)] = "tcp_up",
	[ACT(READ_REQ)] = "read_req",
	[ACT(READ_REP)] = "read_rep",
	[ACT(READ_RTR)] = "read_rtr",
	[ACT(READ_RRESP)] = "read_rresp",
	[ACT(WATCH)] = "watch",
	[ACT(FIN_WAIT)] = "fin_wait",
	[ACT(SHUTDOWN)] = "shutdown",
};

static const char *sn(unsigned int s)
{
	return s < N_STATES ? st_name[s] : "(out of range)";
}

static const char *en(unsigned int e)
{
	return e < N_EVENTS ? ev_name[e] : "(out of range)";
}

static const char *inn(unsigned int i)
{
	return i < N_INPUTS ? in_name[i] : "(out of range)";
}

static const char *an(unsigned int a)
{
	return a < N_ACTIONS ? act_name[a] : "(out of range)";
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

/*
 * Who looks at the socket for the inputs that need it (read, close,
 * socket state), one pair per line; every pair not listed is ignored.
 */
struct handler {
	enum siw2_cep_state state;
	enum siw2_cep_input in;
	enum siw2_cep_action action;
};

/* Pasted at once: READ is a macro of the kernel's own. */
#define H(s, i, a) { SIW2_CEP_##s, SIW2_CEPI_##i, SIW2_CEA_##a }

static const struct handler handlers_spec[] = {
	/* A listener takes connections; its socket's state means nothing. */
	H(LISTEN, READ, ACCEPT),
	/* Active: the handshake ends in a state change (BASE-MPA-11) */
	H(CONNECTING, STATE, TCP_UP),
	/* Reading a frame also notices the peer's FIN or a reset. */
	H(AWAIT_REQ, READ, READ_REQ),
	H(AWAIT_REQ, STATE, READ_REQ),
	/* The ULP decides; the peer's bytes wait, its FIN or RST does not. */
	H(REQ_RCVD, STATE, WATCH),
	H(AWAIT_REP, READ, READ_REP),
	H(AWAIT_REP, STATE, READ_REP),
	/* The RTR (MPA2-P2P-15) and the Read RTR's Response (MPA2-P2P-13) */
	H(AWAIT_RTR, READ, READ_RTR),
	H(AWAIT_RTR, STATE, READ_RTR),
	H(AWAIT_RRESP, READ, READ_RRESP),
	H(AWAIT_RRESP, STATE, READ_RRESP),
	/* RDMA mode: the QP reads the stream; the QP's close sends a FIN. */
	H(RDMA, CLOSE, SHUTDOWN),
	H(RDMA, STATE, WATCH),
	H(CLOSING, READ, FIN_WAIT),
	H(CLOSING, STATE, FIN_WAIT),
};

#define N_HANDLERS 15

/*
 * The expected action: abort and timeout close through the state's own
 * edge for them (as listed in spec[]) in every state alike; the other
 * inputs as handlers_spec[] lists.
 */
static enum siw2_cep_action spec_action(unsigned int s, unsigned int in)
{
	size_t i;

	if (in == IN(ABORT))
		return spec_next(s, EV(ABORT)) != INVALID ? ACT(FAIL) : ACT(NONE);
	if (in == IN(TIMEOUT))
		return spec_next(s, EV(TIMEOUT)) != INVALID ? ACT(FAIL) : ACT(NONE);
	for (i = 0; i < ARRAY_SIZE(handlers_spec); i++)
		if (handlers_spec[i].state == s && handlers_spec[i].in == in)
			return handlers_spec[i].action;
	return ACT(NONE);
}

#define EVB(x) BIT(EV(x))

/*
 * The events each action may take, written out from what it does: reading
 * a frame may meet the peer's FIN, a reset or a malformed frame, and the
 * QP may be gone when RDMA mode begins (abort); a failed handshake is a
 * reset or a TCP timeout; a close request meets a socket already reset. A
 * listener's accept steps only the new endpoints.
 */
static const u32 action_events_spec[N_ACTIONS] = {
	[ACT(NONE)] = 0,
	[ACT(FAIL)] = EVB(ABORT) | EVB(TIMEOUT),
	[ACT(ACCEPT)] = 0,
	[ACT(TCP_UP)] = EVB(TCP_UP) | EVB(RESET) | EVB(TIMEOUT),
	[ACT(READ_REQ)] = EVB(REQ) | EVB(PEER_CLOSE) | EVB(RESET) | EVB(PROTO) |
			  EVB(ABORT),
	[ACT(READ_REP)] = EVB(REP) | EVB(REP_READ_RTR) | EVB(REP_REJECT) |
			  EVB(PEER_CLOSE) | EVB(RESET) | EVB(PROTO) | EVB(ABORT),
	[ACT(READ_RTR)] = EVB(RTR) | EVB(PEER_CLOSE) | EVB(RESET) | EVB(PROTO) |
			  EVB(ABORT),
	[ACT(READ_RRESP)] = EVB(RRESP) | EVB(PEER_CLOSE) | EVB(RESET) |
			    EVB(PROTO) | EVB(ABORT),
	[ACT(WATCH)] = EVB(PEER_CLOSE) | EVB(RESET),
	[ACT(FIN_WAIT)] = EVB(DONE) | EVB(PEER_CLOSE) | EVB(RESET),
	[ACT(SHUTDOWN)] = EVB(ULP_CLOSE) | EVB(RESET),
};

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
	KUNIT_ASSERT_EQ(test, SIW2_CEPI_NUM, N_INPUTS);
	KUNIT_ASSERT_EQ(test, SIW2_CEA_NUM, N_ACTIONS);
	KUNIT_ASSERT_EQ(test, ARRAY_SIZE(handlers_spec), N_HANDLERS);

	for (i = 0; i < ARRAY_SIZE(handlers_spec); i++) {
		const struct handler *h = &handlers_spec[i];

		/* Abort and timeout have no per-state row. */
		KUNIT_EXPECT_NE(test, h->in, IN(ABORT));
		KUNIT_EXPECT_NE(test, h->in, IN(TIMEOUT));
		KUNIT_EXPECT_NE(test, h->action, ACT(NONE));
		KUNIT_EXPECT_NE(test, h->action, ACT(FAIL));
		for (j = i + 1; j < ARRAY_SIZE(handlers_spec); j++)
			KUNIT_EXPECT_FALSE_MSG(test, h->state == handlers_spec[j].state &&
					       h->in == handlers_spec[j].in,
					       "handler rows %zu and %zu: same pair", i, j);
	}

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

/* @req: the requirement the walk asserts ("ID: "), or "", for the message */
static void walk(struct kunit *test, const char *req, const char *what,
		 enum siw2_cep_state s, const struct step *steps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		enum siw2_cep_state next = siw2_cep_next(s, steps[i].ev);

		KUNIT_ASSERT_EQ_MSG(test, next, steps[i].to, "%s%s, step %zu: %s --%s-->",
				    req, what, i, sn(s), en(steps[i].ev));
		s = next;
	}
}

#define ASSERT_WALK(test, req, start, ...)				\
	do {								\
		static const struct step _s[] = { __VA_ARGS__ };	\
		walk(test, req, #__VA_ARGS__, ST(start), _s, ARRAY_SIZE(_s)); \
	} while (0)

#define WALK(test, start, ...) ASSERT_WALK(test, "", start, __VA_ARGS__)

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
	ASSERT_WALK(test, "MPA2-P2P-1: no RDMA mode before the RTR: ", IDLE,
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
					      "MPA2-GEN-1: %s --%s--> RDMA", sn(s), en(e));
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, n, ARRAY_SIZE(into_rdma),
			    "MPA2-GEN-1: RDMA mode only after the MPA exchange");
	for (i = 0; i < ARRAY_SIZE(into_rdma); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(into_rdma[i].from, into_rdma[i].ev),
				    ST(RDMA), "%s --%s-->", sn(into_rdma[i].from),
				    en(into_rdma[i].ev));
	/* A peer-to-peer accept waits for the RTR first. */
	KUNIT_EXPECT_EQ(test, siw2_cep_next(ST(REQ_RCVD), EV(ULP_ACCEPT_P2P)),
			ST(AWAIT_RTR));
}

/*
 * siw2_cep_action() for one state against every input (and out-of-range
 * inputs): exactly the expected action, SIW2_CEA_NONE for the rest.
 */
static void dispatch_table_exhaustive(struct kunit *test)
{
	unsigned int s = *(const unsigned int *)test->param_value;
	unsigned int i;

	for (i = 0; i <= N_INPUTS + 1; i++) {
		unsigned int in = i <= N_INPUTS ? i : 255;
		enum siw2_cep_action exp = spec_action(s, in);

		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_action(s, in), exp,
				    "%s on %s: expected %s", sn(s), inn(in), an(exp));
	}
	if (s >= N_STATES)
		for (i = 0; i < N_INPUTS; i++)
			KUNIT_EXPECT_EQ(test, siw2_cep_action(s, i), ACT(NONE));
}

/*
 * Abort and timeout are handled in one place: in every state the input is
 * its own event and closes through the state's edge for it, whatever the
 * state. Every live state can be aborted (QP to ERR, destroy, unlisten);
 * exactly the timed states time out; no other input fails an endpoint
 * without a look at the socket.
 */
static void abort_timeout_handled_alike(struct kunit *test)
{
	static const unsigned int bad_inputs[] = {
		N_INPUTS, N_INPUTS + 1, 255, 0x7fffffff, 0xffffffff,
	};
	unsigned int s, in;
	size_t i;

	KUNIT_EXPECT_EQ(test, siw2_cep_input_event(IN(ABORT)), EV(ABORT));
	KUNIT_EXPECT_EQ(test, siw2_cep_input_event(IN(TIMEOUT)), EV(TIMEOUT));
	KUNIT_EXPECT_EQ(test, siw2_cep_input_event(IN(READ)), SIW2_CEV_NUM_EVENTS);
	KUNIT_EXPECT_EQ(test, siw2_cep_input_event(IN(CLOSE)), SIW2_CEV_NUM_EVENTS);
	KUNIT_EXPECT_EQ(test, siw2_cep_input_event(IN(STATE)), SIW2_CEV_NUM_EVENTS);
	for (i = 0; i < ARRAY_SIZE(bad_inputs); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_input_event(bad_inputs[i]),
				    SIW2_CEV_NUM_EVENTS, "input %u", bad_inputs[i]);

	for (s = 0; s < N_STATES; s++) {
		bool timed_s = in_list(timed, ARRAY_SIZE(timed), s);

		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_action(s, IN(ABORT)),
				    s == ST(CLOSED) ? ACT(NONE) : ACT(FAIL),
				    "%s on abort", sn(s));
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_action(s, IN(TIMEOUT)),
				    timed_s ? ACT(FAIL) : ACT(NONE),
				    "%s on timeout", sn(s));
		for (in = 0; in < N_INPUTS; in++) {
			if (in == IN(ABORT) || in == IN(TIMEOUT))
				continue;
			KUNIT_EXPECT_NE_MSG(test, siw2_cep_action(s, in), ACT(FAIL),
					    "%s on %s", sn(s), inn(in));
		}
	}
	/* RDMA mode and a listener have no step timer: a stale timeout is nothing. */
	KUNIT_EXPECT_EQ(test, siw2_cep_action(ST(RDMA), IN(TIMEOUT)), ACT(NONE));
	KUNIT_EXPECT_EQ(test, siw2_cep_action(ST(LISTEN), IN(TIMEOUT)), ACT(NONE));
}

/* The events each action may take, as written out above. */
static void action_events(struct kunit *test)
{
	static const unsigned int bad_actions[] = {
		N_ACTIONS, N_ACTIONS + 1, 255, 0x7fffffff, 0xffffffff,
	};
	unsigned int a;
	size_t i;

	for (a = 0; a < N_ACTIONS; a++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_action_events(a), action_events_spec[a],
				    "action %s", an(a));
	for (i = 0; i < ARRAY_SIZE(bad_actions); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_action_events(bad_actions[i]), 0,
				    "action %u", bad_actions[i]);
}

/*
 * The join of the two tables: wherever siw2_cep_action() sends an input,
 * every event its action may take has an edge out of that state (in the
 * driver's table and in spec[]), and a failing input's own event leads to
 * CLOSED. A handler that stepped an event its state does not accept would
 * leave the endpoint where it was.
 */
static void actions_take_only_table_edges(struct kunit *test)
{
	unsigned int s, in, e, used = 0;

	for (s = 0; s < N_STATES; s++) {
		for (in = 0; in < N_INPUTS; in++) {
			enum siw2_cep_action a = siw2_cep_action(s, in);
			u32 evs = siw2_cep_action_events(a);

			KUNIT_ASSERT_LT(test, a, N_ACTIONS);
			used |= BIT(a);
			if (a == ACT(FAIL)) {
				e = siw2_cep_input_event(in);
				KUNIT_EXPECT_EQ_MSG(test, siw2_cep_next(s, e), ST(CLOSED),
						    "%s on %s", sn(s), inn(in));
				KUNIT_EXPECT_TRUE(test, evs & BIT(e));
				continue;
			}
			for (e = 0; e < N_EVENTS; e++) {
				if (!(evs & BIT(e)))
					continue;
				KUNIT_EXPECT_NE_MSG(test, siw2_cep_next(s, e), INVALID,
						    "%s on %s: %s takes %s", sn(s), inn(in),
						    an(a), en(e));
				KUNIT_EXPECT_NE_MSG(test, spec_next(s, e), INVALID,
						    "spec: %s --%s-->", sn(s), en(e));
			}
		}
	}
	/* Every action is found somewhere: none is dead. */
	KUNIT_EXPECT_EQ(test, used, (u32)GENMASK(N_ACTIONS - 1, 0));
}

/*
 * A state that waits on the peer notices a socket state change (FIN, RST)
 * and, where it waits for a frame, its bytes; the ULP's decision and RDMA
 * mode leave the bytes alone (the ULP decides first; the QP reads them).
 */
static void waiting_states_watch_the_socket(struct kunit *test)
{
	static const enum siw2_cep_state reading[] = {
		ST(AWAIT_REQ), ST(AWAIT_REP), ST(AWAIT_RTR), ST(AWAIT_RRESP),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(timed); i++)
		KUNIT_EXPECT_NE_MSG(test, siw2_cep_action(timed[i], IN(STATE)), ACT(NONE),
				    "%s ignores the socket", sn(timed[i]));
	KUNIT_EXPECT_NE(test, siw2_cep_action(ST(RDMA), IN(STATE)), ACT(NONE));
	for (i = 0; i < ARRAY_SIZE(reading); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_action(reading[i], IN(READ)),
				    siw2_cep_action(reading[i], IN(STATE)),
				    "%s: read and state", sn(reading[i]));
	KUNIT_EXPECT_EQ(test, siw2_cep_action(ST(REQ_RCVD), IN(READ)), ACT(NONE));
	KUNIT_EXPECT_EQ(test, siw2_cep_action(ST(RDMA), IN(READ)), ACT(NONE));
	/* Only RDMA mode closes gracefully; a second close request is nothing. */
	KUNIT_EXPECT_EQ(test, siw2_cep_action(ST(RDMA), IN(CLOSE)), ACT(SHUTDOWN));
	KUNIT_EXPECT_EQ(test, siw2_cep_action(ST(CLOSING), IN(CLOSE)), ACT(NONE));
}

/*
 * What the IWCM hears when an abort or a timeout closes an endpoint: the
 * reason during setup (a failed CONNECT_REPLY, or the CLOSE after a
 * peer-to-peer accept), nothing wrong for a listener or a connection in or
 * past RDMA mode.
 */
static void fail_status_for_the_iwcm(struct kunit *test)
{
	static const enum siw2_cep_state setup[] = {
		ST(CONNECTING), ST(AWAIT_REQ), ST(REQ_RCVD), ST(AWAIT_REP),
		ST(AWAIT_RTR), ST(AWAIT_RRESP),
	};
	static const enum siw2_cep_state ends[] = {
		ST(IDLE), ST(LISTEN), ST(RDMA), ST(CLOSING),
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(setup); i++) {
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_fail_status(setup[i], EV(TIMEOUT)),
				    -ETIMEDOUT, "%s", sn(setup[i]));
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_fail_status(setup[i], EV(ABORT)),
				    -ECONNABORTED, "%s", sn(setup[i]));
	}
	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_fail_status(ends[i], EV(TIMEOUT)), 0,
				    "%s", sn(ends[i]));
		KUNIT_EXPECT_EQ_MSG(test, siw2_cep_fail_status(ends[i], EV(ABORT)), 0,
				    "%s", sn(ends[i]));
	}
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
	KUNIT_CASE_PARAM(dispatch_table_exhaustive, table_row_gen_params),
	KUNIT_CASE(abort_timeout_handled_alike),
	KUNIT_CASE(action_events),
	KUNIT_CASE(actions_take_only_table_edges),
	KUNIT_CASE(waiting_states_watch_the_socket),
	KUNIT_CASE(fail_status_for_the_iwcm),
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
