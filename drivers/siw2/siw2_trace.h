/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 trace events: enable with
 *   echo 1 > /sys/kernel/tracing/events/siw2/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM siw2

#if !defined(_SIW2_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _SIW2_TRACE_H

#include <linux/tracepoint.h>

#include "siw2_compat.h"
#include "siw2_mpa.h"

DECLARE_EVENT_CLASS(siw2_dev_class,
		    TP_PROTO(u32 dev_id, const char *netdev),
		    TP_ARGS(dev_id, netdev),
		    TP_STRUCT__entry(__field(u32, dev_id)
				     __string(netdev, netdev)),
		    TP_fast_assign(__entry->dev_id = dev_id;
				   siw2_assign_str(netdev, netdev);),
		    TP_printk("dev=%u netdev=%s", __entry->dev_id,
			      __get_str(netdev)));

DEFINE_EVENT(siw2_dev_class, siw2_dev_add,
	     TP_PROTO(u32 dev_id, const char *netdev),
	     TP_ARGS(dev_id, netdev));

DEFINE_EVENT(siw2_dev_class, siw2_dev_del,
	     TP_PROTO(u32 dev_id, const char *netdev),
	     TP_ARGS(dev_id, netdev));

TRACE_EVENT(siw2_port_state,
	    TP_PROTO(u32 dev_id, int from, int to),
	    TP_ARGS(dev_id, from, to),
	    TP_STRUCT__entry(__field(u32, dev_id)
			     __field(int, from)
			     __field(int, to)),
	    TP_fast_assign(__entry->dev_id = dev_id;
			   __entry->from = from;
			   __entry->to = to;),
	    TP_printk("dev=%u port state %d -> %d", __entry->dev_id,
		      __entry->from, __entry->to));

TRACE_EVENT(siw2_qp_state,
	    TP_PROTO(u32 qpn, const char *from, const char *to),
	    TP_ARGS(qpn, from, to),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __string(from, from)
			     __string(to, to)),
	    TP_fast_assign(__entry->qpn = qpn;
			   siw2_assign_str(from, from);
			   siw2_assign_str(to, to);),
	    TP_printk("qp=%u %s -> %s", __entry->qpn, __get_str(from),
		      __get_str(to)));

TRACE_EVENT(siw2_cep_state,
	    TP_PROTO(u32 id, const char *from, const char *ev, const char *to),
	    TP_ARGS(id, from, ev, to),
	    TP_STRUCT__entry(__field(u32, id)
			     __string(from, from)
			     __string(ev, ev)
			     __string(to, to)),
	    TP_fast_assign(__entry->id = id;
			   siw2_assign_str(from, from);
			   siw2_assign_str(ev, ev);
			   siw2_assign_str(to, to);),
	    TP_printk("cep=%u %s -%s-> %s", __entry->id, __get_str(from),
		      __get_str(ev), __get_str(to)));

TRACE_EVENT(siw2_cep_upcall,
	    TP_PROTO(u32 id, int event, int status),
	    TP_ARGS(id, event, status),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(int, event)
			     __field(int, status)),
	    TP_fast_assign(__entry->id = id;
			   __entry->event = event;
			   __entry->status = status;),
	    TP_printk("cep=%u iw_cm event %d status %d", __entry->id,
		      __entry->event, __entry->status));

TRACE_EVENT(siw2_cep_term,
	    TP_PROTO(u32 id, u8 layer, u8 etype, u8 code),
	    TP_ARGS(id, layer, etype, code),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(u8, layer)
			     __field(u8, etype)
			     __field(u8, code)),
	    TP_fast_assign(__entry->id = id;
			   __entry->layer = layer;
			   __entry->etype = etype;
			   __entry->code = code;),
	    TP_printk("cep=%u terminate layer %u etype %u code 0x%x",
		      __entry->id, __entry->layer, __entry->etype,
		      __entry->code));

/* A Terminate sent or received on a QP's stream (RFC 5040 4.8). */
TRACE_EVENT(siw2_dp_term,
	    TP_PROTO(u32 qpn, const char *dir, u8 layer, u8 etype, u8 code),
	    TP_ARGS(qpn, dir, layer, etype, code),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __string(dir, dir)
			     __field(u8, layer)
			     __field(u8, etype)
			     __field(u8, code)),
	    TP_fast_assign(__entry->qpn = qpn;
			   siw2_assign_str(dir, dir);
			   __entry->layer = layer;
			   __entry->etype = etype;
			   __entry->code = code;),
	    TP_printk("qp=%u %s terminate layer %u etype %u code 0x%x",
		      __entry->qpn, __get_str(dir), __entry->layer,
		      __entry->etype, __entry->code));

/* An Atomic Request executed on the target (the Responder side). */
TRACE_EVENT(siw2_dp_atomic,
	    TP_PROTO(u32 qpn, u8 aop, u32 req_id, u64 orig),
	    TP_ARGS(qpn, aop, req_id, orig),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u8, aop)
			     __field(u32, req_id)
			     __field(u64, orig)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->aop = aop;
			   __entry->req_id = req_id;
			   __entry->orig = orig;),
	    TP_printk("qp=%u atomic aop %u req_id %u orig 0x%llx",
		      __entry->qpn, __entry->aop, __entry->req_id,
		      __entry->orig));

/*
 * A received DDP segment placed or taken, its CRC checked (RX end): the
 * RDMAP opcode, L, and for a tagged one the STag and TO the payload went
 * to, and whether it ran in the socket's data_ready (softirq) or in the
 * work item. Lets a trace show what was placed before what (COMMIT-ORD-1).
 */
TRACE_EVENT(siw2_dp_rx_seg,
	    TP_PROTO(u32 qpn, u8 opcode, bool last, u32 stag, u64 to, u32 len),
	    TP_ARGS(qpn, opcode, last, stag, to, len),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u8, opcode)
			     __field(bool, last)
			     __field(u32, stag)
			     __field(u64, to)
			     __field(u32, len)
			     __field(bool, softirq)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->opcode = opcode;
			   __entry->last = last;
			   __entry->stag = stag;
			   __entry->to = to;
			   __entry->len = len;
			   __entry->softirq = !!in_serving_softirq();),
	    TP_printk("qp=%u rx op 0x%x last %u stag 0x%x to 0x%llx len %u softirq %u",
		      __entry->qpn, __entry->opcode, __entry->last,
		      __entry->stag, __entry->to, __entry->len,
		      __entry->softirq));

/*
 * An FPDU framed by the TX engine and about to go to TCP: its RDMAP
 * opcode, MPA length on the wire, and whether a workqueue worker (rather
 * than the poster's system call or a timer) ran the engine. With
 * siw2_dp_rx_seg and siw2_dp_cqe it times a message layer by layer
 * (tools/lat-breakdown.py).
 */
TRACE_EVENT(siw2_dp_tx_fpdu,
	    TP_PROTO(u32 qpn, u8 opcode, u32 len),
	    TP_ARGS(qpn, opcode, len),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u8, opcode)
			     __field(u32, len)
			     __field(bool, worker)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->opcode = opcode;
			   __entry->len = len;
			   __entry->worker = !!(current->flags & PF_WQ_WORKER);),
	    TP_printk("qp=%u tx op 0x%x len %u worker %u",
		      __entry->qpn, __entry->opcode, __entry->len,
		      __entry->worker));

/* A completion queued on a CQ (kernel array or user ring). */
TRACE_EVENT(siw2_dp_cqe,
	    TP_PROTO(u32 cq_id, u32 qpn, u8 opcode, u8 status, u32 byte_len),
	    TP_ARGS(cq_id, qpn, opcode, status, byte_len),
	    TP_STRUCT__entry(__field(u32, cq_id)
			     __field(u32, qpn)
			     __field(u8, opcode)
			     __field(u8, status)
			     __field(u32, byte_len)
			     __field(bool, softirq)),
	    TP_fast_assign(__entry->cq_id = cq_id;
			   __entry->qpn = qpn;
			   __entry->opcode = opcode;
			   __entry->status = status;
			   __entry->byte_len = byte_len;
			   __entry->softirq = !!in_serving_softirq();),
	    TP_printk("cq=%u qp=%u cqe opcode %u status %u len %u softirq %u",
		      __entry->cq_id, __entry->qpn, __entry->opcode,
		      __entry->status, __entry->byte_len, __entry->softirq));

/*
 * An RDMA Commit answered by the Responder: @lines is how many CPU cache
 * lines were written back (0 for a range that is not durable).
 */
TRACE_EVENT(siw2_dp_commit,
	    TP_PROTO(u32 qpn, u32 req_id, u64 to, u32 len, u32 lines,
		     u32 status),
	    TP_ARGS(qpn, req_id, to, len, lines, status),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, req_id)
			     __field(u64, to)
			     __field(u32, len)
			     __field(u32, lines)
			     __field(u32, status)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->req_id = req_id;
			   __entry->to = to;
			   __entry->len = len;
			   __entry->lines = lines;
			   __entry->status = status;),
	    TP_printk("qp=%u commit req_id %u to 0x%llx len %u lines %u status %u",
		      __entry->qpn, __entry->req_id, __entry->to,
		      __entry->len, __entry->lines, __entry->status));

/*
 * A Commit's log update stored (SIW2-DEC-1): @lines is 1 when its word
 * was written back, 0 when its MR is not durable.
 */
TRACE_EVENT(siw2_dp_commit_log,
	    TP_PROTO(u32 qpn, u32 req_id, u64 to, u32 lines, u32 status),
	    TP_ARGS(qpn, req_id, to, lines, status),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, req_id)
			     __field(u64, to)
			     __field(u32, lines)
			     __field(u32, status)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->req_id = req_id;
			   __entry->to = to;
			   __entry->lines = lines;
			   __entry->status = status;),
	    TP_printk("qp=%u commit log req_id %u to 0x%llx lines %u status %u",
		      __entry->qpn, __entry->req_id, __entry->to,
		      __entry->lines, __entry->status));

DECLARE_EVENT_CLASS(siw2_cep_why_class,
		    TP_PROTO(u32 id, const char *why),
		    TP_ARGS(id, why),
		    TP_STRUCT__entry(__field(u32, id)
				     __string(why, why)),
		    TP_fast_assign(__entry->id = id;
				   siw2_assign_str(why, why);),
		    TP_printk("cep=%u %s", __entry->id, __get_str(why)));

DEFINE_EVENT(siw2_cep_why_class, siw2_cep_bad_mpa,
	     TP_PROTO(u32 id, const char *why),
	     TP_ARGS(id, why));

DEFINE_EVENT(siw2_cep_why_class, siw2_cep_refuse,
	     TP_PROTO(u32 id, const char *why),
	     TP_ARGS(id, why));

TRACE_EVENT(siw2_cep_port_busy,
	    TP_PROTO(u32 id, u16 port),
	    TP_ARGS(id, port),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(u16, port)),
	    TP_fast_assign(__entry->id = id;
			   __entry->port = port;),
	    TP_printk("cep=%u rdma_cm port %u held by a TCP socket: kernel-chosen wire port",
		      __entry->id, __entry->port));

TRACE_EVENT(siw2_cep_conn,
	    TP_PROTO(u32 id, bool active, const struct siw2_mpa_conn *conn,
		     bool fenced),
	    TP_ARGS(id, active, conn, fenced),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(bool, active)
			     __field(u8, rev)
			     __field(bool, crc)
			     __field(bool, p2p)
			     __field(u8, rtr)
			     __field(u16, ird)
			     __field(u16, ord)
			     __field(u8, caps)
			     __field(bool, fenced)),
	    TP_fast_assign(__entry->id = id;
			   __entry->active = active;
			   __entry->rev = conn->rev;
			   __entry->crc = conn->crc;
			   __entry->p2p = conn->p2p;
			   __entry->rtr = conn->rtr;
			   __entry->ird = conn->ird;
			   __entry->ord = conn->ord;
			   __entry->caps = conn->caps;
			   __entry->fenced = fenced;),
	    TP_printk("cep=%u %s rdma mode: rev %u crc %d p2p %d rtr 0x%x ird %u ord %u caps 0x%x fence %d",
		      __entry->id, __entry->active ? "active" : "passive",
		      __entry->rev, __entry->crc, __entry->p2p,
		      __entry->rtr, __entry->ird, __entry->ord,
		      __entry->caps, __entry->fenced));

#endif /* _SIW2_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE siw2_trace
#include <trace/define_trace.h>
