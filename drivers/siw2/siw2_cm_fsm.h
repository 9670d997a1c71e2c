/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 connection endpoint state machine: states, events, the transition
 * table, and which action each pending input calls for in each state.
 * Pure data, so KUnit checks it in isolation; the connection manager
 * (siw2_cm.c) does the I/O and the upcalls.
 */
#ifndef _SIW2_CM_FSM_H
#define _SIW2_CM_FSM_H

#include <linux/types.h>

/* One connection endpoint (listener or TCP connection). */
enum siw2_cep_state {
	SIW2_CEP_IDLE,		/* allocated, no socket role yet */
	SIW2_CEP_LISTEN,	/* listening socket */
	SIW2_CEP_CONNECTING,	/* active: TCP handshake in progress */
	SIW2_CEP_AWAIT_REQ,	/* passive: TCP up, reading the MPA Request */
	SIW2_CEP_REQ_RCVD,	/* passive: Request handed to the ULP */
	SIW2_CEP_AWAIT_REP,	/* active: Request sent, reading the Reply */
	SIW2_CEP_AWAIT_RTR,	/* passive, peer-to-peer: Reply sent, reading the RTR */
	SIW2_CEP_AWAIT_RRESP,	/* active: Read RTR sent, reading its Response */
	SIW2_CEP_RDMA,		/* RDMA mode: FPDUs flow, the QP owns the stream */
	SIW2_CEP_CLOSING,	/* FIN sent, waiting for the peer's */
	SIW2_CEP_CLOSED,	/* socket released; terminal */
	SIW2_CEP_NUM_STATES
};

/* What can happen to an endpoint. */
enum siw2_cep_event {
	SIW2_CEV_LISTEN,	/* iw_create_listen */
	SIW2_CEV_CONNECT,	/* iw_connect: non-blocking connect started */
	SIW2_CEV_ACCEPTED,	/* passive: TCP connection taken from a listener */
	SIW2_CEV_TCP_UP,	/* active: handshake done, Request sent */
	SIW2_CEV_REQ,		/* passive: valid Request received */
	SIW2_CEV_ULP_ACCEPT,	/* iw_accept, client-server: Reply sent */
	SIW2_CEV_ULP_ACCEPT_P2P,/* iw_accept, peer-to-peer: Reply sent */
	SIW2_CEV_ULP_REJECT,	/* iw_reject: Reject Reply sent */
	SIW2_CEV_REP,		/* active: accepting Reply, no RTR or Write RTR sent */
	SIW2_CEV_REP_READ_RTR,	/* active: accepting Reply, Read RTR sent */
	SIW2_CEV_REP_REJECT,	/* active: Reply with R=1 */
	SIW2_CEV_RTR,		/* passive: valid RTR received */
	SIW2_CEV_RRESP,		/* active: Read RTR Response received */
	SIW2_CEV_ULP_CLOSE,	/* QP to SQD: graceful close, FIN sent */
	SIW2_CEV_PEER_CLOSE,	/* FIN received */
	SIW2_CEV_DONE,		/* both directions closed */
	SIW2_CEV_ABORT,		/* QP to ERR, QP destroyed, listener gone */
	SIW2_CEV_RESET,		/* RST or socket error */
	SIW2_CEV_PROTO,		/* malformed or unexpected input */
	SIW2_CEV_TIMEOUT,	/* the current step took too long */
	SIW2_CEV_NUM_EVENTS
};

/* siw2_cep_next() result for an event the state does not accept. */
#define SIW2_CEP_INVALID SIW2_CEP_NUM_STATES

/*
 * Work pending for an endpoint, in the order it is handled: what the
 * socket callbacks, the step timer and the QP report. Abort and timeout
 * are events of their own; the others need a look at the socket first.
 */
enum siw2_cep_input {
	SIW2_CEPI_ABORT,	/* QP to ERR, QP destroyed, listener gone */
	SIW2_CEPI_READ,		/* bytes arrived, or a connection to accept */
	SIW2_CEPI_CLOSE,	/* QP to SQD: graceful close */
	SIW2_CEPI_STATE,	/* TCP state changed */
	SIW2_CEPI_TIMEOUT,	/* the step timer fired */
	SIW2_CEPI_NUM
};

/* What the connection manager does about an input (siw2_cep_action()). */
enum siw2_cep_action {
	SIW2_CEA_NONE,		/* nothing: the state ignores the input */
	SIW2_CEA_FAIL,		/* close through the input's own event */
	SIW2_CEA_ACCEPT,	/* listener: take the queued TCP connections */
	SIW2_CEA_TCP_UP,	/* active: if the handshake is done, send the Request */
	SIW2_CEA_READ_REQ,	/* passive: read the MPA Request */
	SIW2_CEA_READ_REP,	/* active: read the MPA Reply */
	SIW2_CEA_READ_RTR,	/* passive, peer-to-peer: read the RTR */
	SIW2_CEA_READ_RRESP,	/* active: read the Read RTR's Response */
	SIW2_CEA_WATCH,		/* close if the peer closed or the socket failed */
	SIW2_CEA_FIN_WAIT,	/* closing: the peer's FIN or a failure ends it */
	SIW2_CEA_SHUTDOWN,	/* graceful close: send the FIN */
	SIW2_CEA_NUM
};

enum siw2_cep_state siw2_cep_next(enum siw2_cep_state state,
				  enum siw2_cep_event event);
bool siw2_cep_timed(enum siw2_cep_state state);
enum siw2_cep_event siw2_cep_input_event(enum siw2_cep_input input);
enum siw2_cep_action siw2_cep_action(enum siw2_cep_state state,
				     enum siw2_cep_input input);
u32 siw2_cep_action_events(enum siw2_cep_action action);
int siw2_cep_fail_status(enum siw2_cep_state state,
			 enum siw2_cep_event event);
const char *siw2_cep_state_name(enum siw2_cep_state state);
const char *siw2_cep_event_name(enum siw2_cep_event event);

#endif /* _SIW2_CM_FSM_H */
