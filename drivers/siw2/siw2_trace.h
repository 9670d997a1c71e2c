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

DECLARE_EVENT_CLASS(siw2_dev_class,
		    TP_PROTO(u32 dev_id, const char *netdev),
		    TP_ARGS(dev_id, netdev),
		    TP_STRUCT__entry(__field(u32, dev_id)
				     __string(netdev, netdev)),
		    TP_fast_assign(__entry->dev_id = dev_id;
				   __assign_str(netdev);),
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
			   __assign_str(from);
			   __assign_str(to);),
	    TP_printk("qp=%u %s -> %s", __entry->qpn, __get_str(from),
		      __get_str(to)));

#endif /* _SIW2_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE siw2_trace
#include <trace/define_trace.h>
