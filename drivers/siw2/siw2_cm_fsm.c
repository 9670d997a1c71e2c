// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the connection endpoint state machine as one table.
 *
 * Every state in which the endpoint waits for the peer (or, in REQ_RCVD,
 * for the ULP) has a timeout edge (no connection can hang) and reaches
 * CLOSED on reset, protocol error or abort. Only the MPA exchange leads
 * to RDMA mode: a listener never does, and nothing leaves CLOSED. A FIN
 * from the peer in RDMA mode closes at once (CLOSING is only for a close
 * this side started).
 */

#include <linux/kernel.h>

#include "siw2_cm_fsm.h"

struct siw2_cep_edge {
	u8 from;
	u8 event;
	u8 to;
};

#define EDGE(f, e, t) { SIW2_CEP_##f, SIW2_CEV_##e, SIW2_CEP_##t }

static const struct siw2_cep_edge siw2_cep_edges[] = {
	EDGE(IDLE, LISTEN, LISTEN),
	EDGE(IDLE, CONNECT, CONNECTING),
	EDGE(IDLE, ACCEPTED, AWAIT_REQ),
	EDGE(IDLE, ABORT, CLOSED),

	EDGE(LISTEN, ABORT, CLOSED),
	EDGE(LISTEN, RESET, CLOSED),

	/* Active side (RFC 5044 7.1, RFC 6581 9) */
	EDGE(CONNECTING, TCP_UP, AWAIT_REP),
	EDGE(CONNECTING, PEER_CLOSE, CLOSED),
	EDGE(CONNECTING, RESET, CLOSED),
	EDGE(CONNECTING, PROTO, CLOSED),
	EDGE(CONNECTING, TIMEOUT, CLOSED),
	EDGE(CONNECTING, ABORT, CLOSED),
	EDGE(AWAIT_REP, REP, RDMA),
	EDGE(AWAIT_REP, REP_READ_RTR, AWAIT_RRESP),
	EDGE(AWAIT_REP, REP_REJECT, CLOSED),
	EDGE(AWAIT_REP, PEER_CLOSE, CLOSED),
	EDGE(AWAIT_REP, RESET, CLOSED),
	EDGE(AWAIT_REP, PROTO, CLOSED),
	EDGE(AWAIT_REP, TIMEOUT, CLOSED),
	EDGE(AWAIT_REP, ABORT, CLOSED),
	EDGE(AWAIT_RRESP, RRESP, RDMA),
	EDGE(AWAIT_RRESP, PEER_CLOSE, CLOSED),
	EDGE(AWAIT_RRESP, RESET, CLOSED),
	EDGE(AWAIT_RRESP, PROTO, CLOSED),
	EDGE(AWAIT_RRESP, TIMEOUT, CLOSED),
	EDGE(AWAIT_RRESP, ABORT, CLOSED),

	/* Passive side */
	EDGE(AWAIT_REQ, REQ, REQ_RCVD),
	EDGE(AWAIT_REQ, PEER_CLOSE, CLOSED),
	EDGE(AWAIT_REQ, RESET, CLOSED),
	EDGE(AWAIT_REQ, PROTO, CLOSED),
	EDGE(AWAIT_REQ, TIMEOUT, CLOSED),
	EDGE(AWAIT_REQ, ABORT, CLOSED),
	EDGE(REQ_RCVD, ULP_ACCEPT, RDMA),
	EDGE(REQ_RCVD, ULP_ACCEPT_P2P, AWAIT_RTR),
	EDGE(REQ_RCVD, ULP_REJECT, CLOSED),
	EDGE(REQ_RCVD, PEER_CLOSE, CLOSED),
	EDGE(REQ_RCVD, RESET, CLOSED),
	EDGE(REQ_RCVD, PROTO, CLOSED),
	EDGE(REQ_RCVD, TIMEOUT, CLOSED),
	EDGE(REQ_RCVD, ABORT, CLOSED),
	EDGE(AWAIT_RTR, RTR, RDMA),
	EDGE(AWAIT_RTR, PEER_CLOSE, CLOSED),
	EDGE(AWAIT_RTR, RESET, CLOSED),
	EDGE(AWAIT_RTR, PROTO, CLOSED),
	EDGE(AWAIT_RTR, TIMEOUT, CLOSED),
	EDGE(AWAIT_RTR, ABORT, CLOSED),

	/* Teardown (RFC 5040 6.2: graceful via the LLP, else abortive) */
	EDGE(RDMA, ULP_CLOSE, CLOSING),
	EDGE(RDMA, PEER_CLOSE, CLOSED),
	EDGE(RDMA, RESET, CLOSED),
	EDGE(RDMA, PROTO, CLOSED),
	EDGE(RDMA, ABORT, CLOSED),
	EDGE(CLOSING, DONE, CLOSED),
	EDGE(CLOSING, ULP_CLOSE, CLOSING),
	EDGE(CLOSING, PEER_CLOSE, CLOSED),
	EDGE(CLOSING, RESET, CLOSED),
	EDGE(CLOSING, PROTO, CLOSED),
	EDGE(CLOSING, TIMEOUT, CLOSED),
	EDGE(CLOSING, ABORT, CLOSED),
};

/**
 * siw2_cep_next - the state an event leads to
 * @state: current state
 * @event: what happened
 *
 * Return: the next state, or SIW2_CEP_INVALID if @state does not accept
 * @event (the caller then ignores the event).
 */
enum siw2_cep_state siw2_cep_next(enum siw2_cep_state state,
				  enum siw2_cep_event event)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(siw2_cep_edges); i++)
		if (siw2_cep_edges[i].from == state &&
		    siw2_cep_edges[i].event == event)
			return siw2_cep_edges[i].to;
	return SIW2_CEP_INVALID;
}

/**
 * siw2_cep_timed - does a state wait on the peer under a timeout
 * @state: state
 *
 * Return: true for every state that only the peer can make progress in.
 */
bool siw2_cep_timed(enum siw2_cep_state state)
{
	return siw2_cep_next(state, SIW2_CEV_TIMEOUT) != SIW2_CEP_INVALID;
}

static const char * const siw2_cep_state_names[SIW2_CEP_NUM_STATES] = {
	[SIW2_CEP_IDLE] = "IDLE",
	[SIW2_CEP_LISTEN] = "LISTEN",
	[SIW2_CEP_CONNECTING] = "CONNECTING",
	[SIW2_CEP_AWAIT_REQ] = "AWAIT_REQ",
	[SIW2_CEP_REQ_RCVD] = "REQ_RCVD",
	[SIW2_CEP_AWAIT_REP] = "AWAIT_REP",
	[SIW2_CEP_AWAIT_RTR] = "AWAIT_RTR",
	[SIW2_CEP_AWAIT_RRESP] = "AWAIT_RRESP",
	[SIW2_CEP_RDMA] = "RDMA",
	[SIW2_CEP_CLOSING] = "CLOSING",
	[SIW2_CEP_CLOSED] = "CLOSED",
};

static const char * const siw2_cep_event_names[SIW2_CEV_NUM_EVENTS] = {
	[SIW2_CEV_LISTEN] = "listen",
	[SIW2_CEV_CONNECT] = "connect",
	[SIW2_CEV_ACCEPTED] = "accepted",
	[SIW2_CEV_TCP_UP] = "tcp_up",
	[SIW2_CEV_REQ] = "req",
	[SIW2_CEV_ULP_ACCEPT] = "ulp_accept",
	[SIW2_CEV_ULP_ACCEPT_P2P] = "ulp_accept_p2p",
	[SIW2_CEV_ULP_REJECT] = "ulp_reject",
	[SIW2_CEV_REP] = "rep",
	[SIW2_CEV_REP_READ_RTR] = "rep_read_rtr",
	[SIW2_CEV_REP_REJECT] = "rep_reject",
	[SIW2_CEV_RTR] = "rtr",
	[SIW2_CEV_RRESP] = "rresp",
	[SIW2_CEV_ULP_CLOSE] = "ulp_close",
	[SIW2_CEV_PEER_CLOSE] = "peer_close",
	[SIW2_CEV_DONE] = "done",
	[SIW2_CEV_ABORT] = "abort",
	[SIW2_CEV_RESET] = "reset",
	[SIW2_CEV_PROTO] = "proto",
	[SIW2_CEV_TIMEOUT] = "timeout",
};

/**
 * siw2_cep_state_name - printable name of an endpoint state
 * @state: state
 *
 * Return: the name, or "?" for an invalid value.
 */
const char *siw2_cep_state_name(enum siw2_cep_state state)
{
	return state < SIW2_CEP_NUM_STATES ? siw2_cep_state_names[state] : "?";
}

/**
 * siw2_cep_event_name - printable name of an endpoint event
 * @event: event
 *
 * Return: the name, or "?" for an invalid value.
 */
const char *siw2_cep_event_name(enum siw2_cep_event event)
{
	return event < SIW2_CEV_NUM_EVENTS ? siw2_cep_event_names[event] : "?";
}
