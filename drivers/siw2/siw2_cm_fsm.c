// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the connection endpoint state machine.
 *
 * One table of transitions: every state in which the endpoint waits for
 * the peer (or, in REQ_RCVD, for the ULP) has a timeout edge (no
 * connection can hang) and reaches CLOSED on reset, protocol error or
 * abort. Only the MPA exchange leads to RDMA mode: a listener never does,
 * and nothing leaves CLOSED. A FIN from the peer in RDMA mode closes at
 * once (CLOSING is only for a close this side started).
 *
 * How the connection manager handles what is pending for an endpoint
 * follows from it (siw2_cep_action()): an abort or a timeout is handled
 * the same way in every state, through that state's own edge; reading and
 * socket changes go to the one action listed for the state, which may
 * only take events the state has edges for (siw2_cep_action_events()).
 */

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
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

/**
 * siw2_cep_input_event - the event an input is by itself
 * @input: pending input
 *
 * Return: SIW2_CEV_ABORT or SIW2_CEV_TIMEOUT for those inputs; for the
 * others (whose event depends on what the socket holds) and for invalid
 * values, SIW2_CEV_NUM_EVENTS.
 */
enum siw2_cep_event siw2_cep_input_event(enum siw2_cep_input input)
{
	switch (input) {
	case SIW2_CEPI_ABORT:
		return SIW2_CEV_ABORT;
	case SIW2_CEPI_TIMEOUT:
		return SIW2_CEV_TIMEOUT;
	default:
		return SIW2_CEV_NUM_EVENTS;
	}
}

struct siw2_cep_handler {
	u8 state;
	u8 input;
	u8 action;
};

#define ON(s, i, a) { SIW2_CEP_##s, SIW2_CEPI_##i, SIW2_CEA_##a }

/*
 * The inputs that need a look at the socket, and who looks in which state.
 * A pair not listed is ignored: a listener's state changes, bytes in
 * REQ_RCVD (they wait for the ULP's decision) or in RDMA mode (the QP
 * reads them), a second close request.
 */
static const struct siw2_cep_handler siw2_cep_handlers[] = {
	ON(LISTEN, READ, ACCEPT),
	ON(CONNECTING, STATE, TCP_UP),
	/* Reading also notices the end of the stream. */
	ON(AWAIT_REQ, READ, READ_REQ),
	ON(AWAIT_REQ, STATE, READ_REQ),
	ON(REQ_RCVD, STATE, WATCH),
	ON(AWAIT_REP, READ, READ_REP),
	ON(AWAIT_REP, STATE, READ_REP),
	ON(AWAIT_RTR, READ, READ_RTR),
	ON(AWAIT_RTR, STATE, READ_RTR),
	ON(AWAIT_RRESP, READ, READ_RRESP),
	ON(AWAIT_RRESP, STATE, READ_RRESP),
	ON(RDMA, CLOSE, SHUTDOWN),
	ON(RDMA, STATE, WATCH),
	ON(CLOSING, READ, FIN_WAIT),
	ON(CLOSING, STATE, FIN_WAIT),
};

/**
 * siw2_cep_action - what to do about a pending input in a state
 * @state: the endpoint's state
 * @input: the input
 *
 * Abort and timeout are handled alike in every state: SIW2_CEA_FAIL where
 * the state has an edge for the input's event, else nothing. The other
 * inputs go to the action the state lists for them.
 *
 * Return: the action; SIW2_CEA_NONE for a pair not handled and for
 * invalid values.
 */
enum siw2_cep_action siw2_cep_action(enum siw2_cep_state state,
				     enum siw2_cep_input input)
{
	enum siw2_cep_event ev = siw2_cep_input_event(input);
	size_t i;

	if (ev != SIW2_CEV_NUM_EVENTS)
		return siw2_cep_next(state, ev) != SIW2_CEP_INVALID ?
		       SIW2_CEA_FAIL : SIW2_CEA_NONE;
	for (i = 0; i < ARRAY_SIZE(siw2_cep_handlers); i++)
		if (siw2_cep_handlers[i].state == state &&
		    siw2_cep_handlers[i].input == input)
			return siw2_cep_handlers[i].action;
	return SIW2_CEA_NONE;
}

#define EV(e) BIT(SIW2_CEV_##e)

/*
 * The events each action may take, from the state it runs in. An action
 * that reads the socket may also fail: the peer's FIN, a reset, a
 * malformed or unexpected frame, or the QP gone when RDMA mode begins.
 */
static const u32 siw2_cep_action_evs[SIW2_CEA_NUM] = {
	[SIW2_CEA_FAIL] = EV(ABORT) | EV(TIMEOUT),
	[SIW2_CEA_TCP_UP] = EV(TCP_UP) | EV(RESET) | EV(TIMEOUT),
	[SIW2_CEA_READ_REQ] = EV(REQ) | EV(PEER_CLOSE) | EV(RESET) |
			      EV(PROTO) | EV(ABORT),
	[SIW2_CEA_READ_REP] = EV(REP) | EV(REP_READ_RTR) | EV(REP_REJECT) |
			      EV(PEER_CLOSE) | EV(RESET) | EV(PROTO) |
			      EV(ABORT),
	[SIW2_CEA_READ_RTR] = EV(RTR) | EV(PEER_CLOSE) | EV(RESET) |
			      EV(PROTO) | EV(ABORT),
	[SIW2_CEA_READ_RRESP] = EV(RRESP) | EV(PEER_CLOSE) | EV(RESET) |
				EV(PROTO) | EV(ABORT),
	[SIW2_CEA_WATCH] = EV(PEER_CLOSE) | EV(RESET),
	[SIW2_CEA_FIN_WAIT] = EV(DONE) | EV(PEER_CLOSE) | EV(RESET),
	[SIW2_CEA_SHUTDOWN] = EV(ULP_CLOSE) | EV(RESET),
};

/**
 * siw2_cep_action_events - the events an action may take
 * @action: action
 *
 * A listener's ACCEPT takes none itself (each connection it takes is a new
 * endpoint); SIW2_CEA_FAIL takes the input's own event.
 *
 * Return: a bit set over enum siw2_cep_event; 0 for invalid values.
 */
u32 siw2_cep_action_events(enum siw2_cep_action action)
{
	BUILD_BUG_ON(SIW2_CEV_NUM_EVENTS > 32);
	return action < SIW2_CEA_NUM ? siw2_cep_action_evs[action] : 0;
}

/**
 * siw2_cep_fail_status - the IWCM's status for an abort or timeout close
 * @state: the state the endpoint leaves
 * @event: SIW2_CEV_ABORT or SIW2_CEV_TIMEOUT
 *
 * During connection setup the connection fails: the CONNECT_REPLY (or the
 * CLOSE after a peer-to-peer accept) carries the reason. A listener, or a
 * connection in or past RDMA mode, just ends.
 *
 * Return: -ETIMEDOUT or -ECONNABORTED during setup, else 0.
 */
int siw2_cep_fail_status(enum siw2_cep_state state,
			 enum siw2_cep_event event)
{
	switch (state) {
	case SIW2_CEP_CONNECTING:
	case SIW2_CEP_AWAIT_REQ:
	case SIW2_CEP_REQ_RCVD:
	case SIW2_CEP_AWAIT_REP:
	case SIW2_CEP_AWAIT_RTR:
	case SIW2_CEP_AWAIT_RRESP:
		return event == SIW2_CEV_TIMEOUT ? -ETIMEDOUT : -ECONNABORTED;
	default:
		return 0;
	}
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
