/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 connection endpoint state machine: states, events and the one
 * transition table. Pure data, so KUnit checks it in isolation; the
 * connection manager (siw2_cm.c) does the I/O and the upcalls.
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

enum siw2_cep_state siw2_cep_next(enum siw2_cep_state state,
				  enum siw2_cep_event event);
bool siw2_cep_timed(enum siw2_cep_state state);
const char *siw2_cep_state_name(enum siw2_cep_state state);
const char *siw2_cep_event_name(enum siw2_cep_event event);

#endif /* _SIW2_CM_FSM_H */
