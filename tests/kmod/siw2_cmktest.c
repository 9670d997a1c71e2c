// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_cmktest: an in-kernel rdma_cm consumer, to show that the iw_cm
 * verbs of siw2 work for kernel ULPs. One of two roles, chosen at load:
 *
 *   insmod siw2_cmktest.ko mode=client addr=IP port=N [count=C] [pd_len=L]
 *          [expect_pd=M] [reject=1] [timeout_ms=T] [resolve_ms=R]
 *   insmod siw2_cmktest.ko mode=server addr=IP port=N [count=C] [pd_len=L]
 *          [expect_pd=M] [reject=1] [timeout_ms=T]
 *
 * client: C sequential cycles of rdma_resolve_addr, rdma_resolve_route, a
 *   PD, CQ and RC QP of its own, rdma_connect with L bytes of private
 *   data, ESTABLISHED (carrying M bytes of pattern if expect_pd is given),
 *   rdma_disconnect, DISCONNECTED, teardown. With reject=1 every attempt
 *   must end with REJECTED instead (carrying M bytes if expect_pd is given).
 * server: rdma_bind_addr to IP:N and rdma_listen; C connection requests,
 *   each checked against expect_pd and accepted with L bytes (or rejected
 *   with them, reject=1); each accepted connection ends with DISCONNECTED
 *   from the client; then the listener is destroyed.
 *
 * Byte i of an N-byte private data block is (i * 7 + N) & 0xff, the
 * pattern tests/progs/siw2_cmtest.c sends and checks.
 *
 * The ids live in init_net: kernel ULPs (NFS, NVMe, iSER) connect from
 * kworkers of the initial network namespace. Everything runs in one work
 * item queued at load; the rdma_cm event handler only copies the event
 * into a queue and wakes the worker. Every wait is bounded by timeout_ms.
 *
 * Read-only parameters report on the run:
 *   result  "running", "pass N" (N connections done as expected) or
 *           "fail: REASON" (also logged as "siw2_cmktest: FAIL: REASON")
 *   done    connections completed so far
 *   phase   starting, resolving, connecting, connected, disconnecting,
 *           listening, cleanup, done
 *
 * Unloading stops the worker wherever it is and releases every object
 * first. A device removal (RDMA_CM_EVENT_DEVICE_REMOVAL) ends the run as
 * "fail: DEVICE_REMOVAL ..." once every object on the device is released.
 */

#include <linux/inet.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#define CMK_PD_MAX	255	/* rdma_conn_param.private_data_len is a u8 */
#define CMK_QP_DEPTH	4
#define CMK_RESULT_LEN	200

static char *mode = "client";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "client or server");

static char *addr = "";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr,
		 "client: the server's IPv4/IPv6 address; server: the address to listen on");

static ushort port = 7480;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port (default 7480)");

static int count = 1;
module_param(count, int, 0444);
MODULE_PARM_DESC(count,
		 "client: connect/disconnect cycles; server: requests to handle (default 1)");

static int pd_len;
module_param(pd_len, int, 0444);
MODULE_PARM_DESC(pd_len,
		 "private data bytes sent with rdma_connect, rdma_accept or rdma_reject (0..255)");

static int expect_pd = -1;
module_param(expect_pd, int, 0444);
MODULE_PARM_DESC(expect_pd,
		 "private data bytes of pattern expected in ESTABLISHED or REJECTED (client) or CONNECT_REQUEST (server); -1 unchecked (default)");

static bool reject;
module_param(reject, bool, 0444);
MODULE_PARM_DESC(reject,
		 "client: expect RDMA_CM_EVENT_REJECTED; server: reject every request");

static uint timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "limit of every wait for an event, in ms (100..600000, default 10000)");

static uint resolve_ms = 2000;
module_param(resolve_ms, uint, 0444);
MODULE_PARM_DESC(resolve_ms,
		 "rdma_resolve_addr/rdma_resolve_route timeout in ms (default 2000)");

/* One rdma_cm event, copied: its private data is gone after the handler. */
struct cmk_event {
	struct list_head entry;
	struct rdma_cm_id *id;
	enum rdma_cm_event_type type;
	int status;
	u8 pd_len;
	bool pd_missing;
	u8 pd[CMK_PD_MAX];
};

/* One connection and the verbs objects it owns. */
struct cmk_conn {
	struct list_head entry;
	struct rdma_cm_id *id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool established;
	int n;
};

static DEFINE_SPINLOCK(cmk_lock);	/* the event queue, result, flags */
static LIST_HEAD(cmk_events);
static DECLARE_WAIT_QUEUE_HEAD(cmk_wait);
static bool cmk_stop;			/* module unloading */
static bool cmk_lost;			/* an event could not be queued */
static bool cmk_failed;
static char cmk_result[CMK_RESULT_LEN] = "running";
static const char *cmk_phase = "starting";
static int cmk_done;
static bool cmk_server;
static struct sockaddr_storage cmk_addr;
static u8 cmk_pd[CMK_PD_MAX];
static struct work_struct cmk_work;

/* Worker only: the server's listener and connections. */
static struct rdma_cm_id *cmk_listen_id;
static LIST_HEAD(cmk_conns);

/* ---- read-only report parameters ---- */

static int cmk_param_ro(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int cmk_get_result(char *buf, const struct kernel_param *kp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cmk_lock, flags);
	n = scnprintf(buf, PAGE_SIZE, "%s\n", cmk_result);
	spin_unlock_irqrestore(&cmk_lock, flags);
	return n;
}

static int cmk_get_phase(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n", READ_ONCE(cmk_phase));
}

static int cmk_get_done(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", READ_ONCE(cmk_done));
}

static const struct kernel_param_ops cmk_result_ops = {
	.set = cmk_param_ro, .get = cmk_get_result,
};

static const struct kernel_param_ops cmk_phase_ops = {
	.set = cmk_param_ro, .get = cmk_get_phase,
};

static const struct kernel_param_ops cmk_done_ops = {
	.set = cmk_param_ro, .get = cmk_get_done,
};

module_param_cb(result, &cmk_result_ops, NULL, 0444);
MODULE_PARM_DESC(result, "running, pass N, or fail: REASON (read-only)");
module_param_cb(phase, &cmk_phase_ops, NULL, 0444);
MODULE_PARM_DESC(phase, "what the test is doing (read-only)");
module_param_cb(done, &cmk_done_ops, NULL, 0444);
MODULE_PARM_DESC(done, "connections completed so far (read-only)");

static void cmk_set_phase(const char *phase)
{
	WRITE_ONCE(cmk_phase, phase);
}

/* Record the first failure as the result; returns @rv (-EIO if 0). */
static __printf(2, 3) int cmk_fail(int rv, const char *fmt, ...)
{
	char msg[CMK_RESULT_LEN - 8];
	unsigned long flags;
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("siw2_cmktest: FAIL: %s\n", msg);
	spin_lock_irqsave(&cmk_lock, flags);
	if (!cmk_failed) {
		cmk_failed = true;
		scnprintf(cmk_result, sizeof(cmk_result), "fail: %s", msg);
	}
	spin_unlock_irqrestore(&cmk_lock, flags);
	return rv ? rv : -EIO;
}

static const char * const cmk_ev_names[] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

static const char *cmk_ev_name(enum rdma_cm_event_type t)
{
	if (t < ARRAY_SIZE(cmk_ev_names) && cmk_ev_names[t])
		return cmk_ev_names[t];
	return "UNKNOWN";
}

/* Events whose param.conn is filled in for iWARP. */
static bool cmk_conn_event(enum rdma_cm_event_type t)
{
	return t == RDMA_CM_EVENT_CONNECT_REQUEST ||
	       t == RDMA_CM_EVENT_ESTABLISHED ||
	       t == RDMA_CM_EVENT_REJECTED ||
	       t == RDMA_CM_EVENT_CONNECT_ERROR ||
	       t == RDMA_CM_EVENT_UNREACHABLE;
}

/* ---- the event handler ---- */

/*
 * Records the event and wakes the worker: never waits for the peer or the
 * worker, and destroys an id only by returning non-zero for a
 * CONNECT_REQUEST it cannot queue (the rdma_cm then destroys the new id,
 * which rejects the request).
 */
static int cmk_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *p = &ev->param.conn;
	struct cmk_event *e;
	unsigned long flags;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		spin_lock_irqsave(&cmk_lock, flags);
		cmk_lost = true;
		spin_unlock_irqrestore(&cmk_lock, flags);
		wake_up(&cmk_wait);
		/*
		 * A new id is not known to the worker yet: returning non-zero
		 * makes the rdma_cm destroy it (and reject the request). Any
		 * other id belongs to the worker, which destroys it.
		 */
		return ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ? -ENOMEM : 0;
	}
	e->id = id;
	e->type = ev->event;
	e->status = ev->status;
	if (cmk_conn_event(ev->event) && p->private_data_len) {
		e->pd_len = p->private_data_len;
		if (p->private_data)
			memcpy(e->pd, p->private_data, e->pd_len);
		else
			e->pd_missing = true;
	}
	spin_lock_irqsave(&cmk_lock, flags);
	list_add_tail(&e->entry, &cmk_events);
	spin_unlock_irqrestore(&cmk_lock, flags);
	wake_up(&cmk_wait);
	return 0;
}

/* ---- the worker's side of the queue ---- */

/*
 * The first queued event for @id (for any id if NULL), taken off the
 * queue; a device removal for any id goes first. Caller holds cmk_lock.
 */
static struct cmk_event *cmk_find(struct rdma_cm_id *id)
{
	struct cmk_event *e, *found = NULL;

	list_for_each_entry(e, &cmk_events, entry) {
		if (e->type == RDMA_CM_EVENT_DEVICE_REMOVAL)
			return e;
		if (!found && (!id || e->id == id))
			found = e;
	}
	return found;
}

static bool cmk_ready(struct rdma_cm_id *id)
{
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&cmk_lock, flags);
	ready = cmk_find(id) || cmk_lost || cmk_stop;
	spin_unlock_irqrestore(&cmk_lock, flags);
	return ready;
}

/* Drop queued events of an id that is gone (or not ours any more). */
static void cmk_purge(struct rdma_cm_id *id)
{
	struct cmk_event *e, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&cmk_lock, flags);
	list_for_each_entry_safe(e, tmp, &cmk_events, entry) {
		if (e->id == id) {
			list_del(&e->entry);
			kfree(e);
		}
	}
	spin_unlock_irqrestore(&cmk_lock, flags);
}

/*
 * Wait at most timeout_ms for the next event of @id (any id if NULL).
 * Returns the event (the caller frees it), or an ERR_PTR after recording
 * the failure: timeout, unload, a lost event, or a device removal.
 */
static struct cmk_event *cmk_next(struct rdma_cm_id *id, const char *what)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(timeout_ms);
	struct cmk_event *e;
	unsigned long flags;
	long left;
	int rv;

	for (;;) {
		spin_lock_irqsave(&cmk_lock, flags);
		e = cmk_find(id);
		if (e)
			list_del(&e->entry);
		spin_unlock_irqrestore(&cmk_lock, flags);
		if (e)
			break;
		if (READ_ONCE(cmk_lost))
			return ERR_PTR(cmk_fail(-ENOMEM,
						"an event was lost (no memory) before %s",
						what));
		if (READ_ONCE(cmk_stop))
			return ERR_PTR(cmk_fail(-EINTR,
						"module unloaded while waiting for %s",
						what));
		left = (long)(deadline - jiffies);
		if (left <= 0)
			return ERR_PTR(cmk_fail(-ETIMEDOUT,
						"timeout (%u ms) waiting for %s",
						timeout_ms, what));
		/* Short slices: no hung-task report for a long timeout_ms. */
		wait_event_interruptible_timeout(cmk_wait, cmk_ready(id),
						 min_t(long, left, HZ));
	}
	if (e->type == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		rv = cmk_fail(-ENODEV, "DEVICE_REMOVAL of %s while waiting for %s",
			      e->id->device ? dev_name(&e->id->device->dev) :
					      "?", what);
		kfree(e);
		return ERR_PTR(rv);
	}
	return e;
}

/* ---- connections ---- */

static int cmk_pd_check(const struct cmk_event *e, int n)
{
	const char *what = cmk_ev_name(e->type);
	int i;

	if (expect_pd < 0)
		return 0;
	if (e->pd_missing)
		return cmk_fail(-EPROTO,
				"connection %d: %s: private data length %u but no data",
				n, what, e->pd_len);
	if (e->pd_len != expect_pd)
		return cmk_fail(-EPROTO,
				"connection %d: %s: private data length %u, expected %d",
				n, what, e->pd_len, expect_pd);
	for (i = 0; i < e->pd_len; i++)
		if (e->pd[i] != (u8)(i * 7 + expect_pd))
			return cmk_fail(-EPROTO,
					"connection %d: %s: private data byte %d is 0x%02x, expected 0x%02x",
					n, what, i, e->pd[i],
					(u8)(i * 7 + expect_pd));
	return 0;
}

static void cmk_conn_param(struct rdma_conn_param *p)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pd_len ? cmk_pd : NULL;
	p->private_data_len = pd_len;
	p->responder_resources = 1;
	p->initiator_depth = 1;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

/* A PD, a CQ and an RC QP on the id's device: iWARP connects a QP. */
static int cmk_conn_qp(struct cmk_conn *c)
{
	struct ib_device *dev = c->id->device;
	struct ib_qp_init_attr a = {};
	int rv;

	c->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(c->pd)) {
		rv = PTR_ERR(c->pd);
		c->pd = NULL;
		return cmk_fail(rv, "connection %d: ib_alloc_pd: %d", c->n, rv);
	}
	c->cq = ib_alloc_cq(dev, NULL, 2 * CMK_QP_DEPTH, 0, IB_POLL_DIRECT);
	if (IS_ERR(c->cq)) {
		rv = PTR_ERR(c->cq);
		c->cq = NULL;
		return cmk_fail(rv, "connection %d: ib_alloc_cq: %d", c->n, rv);
	}
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	a.qp_type = IB_QPT_RC;
	a.sq_sig_type = IB_SIGNAL_REQ_WR;
	a.cap.max_send_wr = CMK_QP_DEPTH;
	a.cap.max_recv_wr = CMK_QP_DEPTH;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	rv = rdma_create_qp(c->id, c->pd, &a);
	if (rv)
		return cmk_fail(rv, "connection %d: rdma_create_qp: %d", c->n,
				rv);
	return 0;
}

/*
 * QP (aborting the connection if it is still up), CQ and PD, then the id:
 * a device being removed waits for the id, and must find no PD or CQ of
 * ours left when it goes on.
 */
static void cmk_conn_release(struct cmk_conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->id) {
		rdma_destroy_id(c->id);
		cmk_purge(c->id);
	}
	c->id = NULL;
	c->cq = NULL;
	c->pd = NULL;
}

/* Wait for @want on the connection's id; any other event fails. */
static int cmk_expect(struct cmk_conn *c, enum rdma_cm_event_type want)
{
	struct cmk_event *e = cmk_next(c->id, cmk_ev_name(want));
	int rv = 0;

	if (IS_ERR(e))
		return PTR_ERR(e);
	if (e->type != want)
		rv = cmk_fail(-EPROTO,
			      "connection %d: %s (status %d) while waiting for %s",
			      c->n, cmk_ev_name(e->type), e->status,
			      cmk_ev_name(want));
	kfree(e);
	return rv;
}

/* ---- client ---- */

/* The answer to rdma_connect(): ESTABLISHED, or REJECTED with reject=1. */
static int cmk_client_answer(struct cmk_conn *c, struct cmk_event *e)
{
	enum rdma_cm_event_type want = reject ? RDMA_CM_EVENT_REJECTED :
						RDMA_CM_EVENT_ESTABLISHED;

	if (e->type != want)
		return cmk_fail(-EPROTO,
				"connection %d: %s (status %d), expected %s",
				c->n, cmk_ev_name(e->type), e->status,
				cmk_ev_name(want));
	if (reject && e->status != -ECONNREFUSED)
		return cmk_fail(-EPROTO,
				"connection %d: REJECTED with status %d, expected %d (ECONNREFUSED)",
				c->n, e->status, -ECONNREFUSED);
	if (c->n == 1)
		pr_info("siw2_cmktest: connection 1: %s status %d pd %u\n",
			cmk_ev_name(e->type), e->status, e->pd_len);
	return cmk_pd_check(e, c->n);
}

static int cmk_client_cycle(int n)
{
	struct cmk_conn c = { .n = n };
	struct rdma_conn_param p;
	struct cmk_event *e;
	int rv;

	cmk_set_phase("resolving");
	c.id = rdma_create_id(&init_net, cmk_handler, NULL, RDMA_PS_TCP,
			      IB_QPT_RC);
	if (IS_ERR(c.id)) {
		rv = PTR_ERR(c.id);
		c.id = NULL;
		return cmk_fail(rv, "connection %d: rdma_create_id: %d", n, rv);
	}
	rv = rdma_resolve_addr(c.id, NULL, (struct sockaddr *)&cmk_addr,
			       resolve_ms);
	if (rv) {
		cmk_fail(rv, "connection %d: rdma_resolve_addr: %d", n, rv);
		goto out;
	}
	rv = cmk_expect(&c, RDMA_CM_EVENT_ADDR_RESOLVED);
	if (rv)
		goto out;
	rv = rdma_resolve_route(c.id, resolve_ms);
	if (rv) {
		cmk_fail(rv, "connection %d: rdma_resolve_route: %d", n, rv);
		goto out;
	}
	rv = cmk_expect(&c, RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (rv)
		goto out;
	rv = cmk_conn_qp(&c);
	if (rv)
		goto out;

	cmk_conn_param(&p);
	cmk_set_phase("connecting");
	rv = rdma_connect(c.id, &p);
	if (rv) {
		cmk_fail(rv, "connection %d: rdma_connect: %d", n, rv);
		goto out;
	}
	e = cmk_next(c.id, reject ? "REJECTED" : "ESTABLISHED");
	if (IS_ERR(e)) {
		rv = PTR_ERR(e);
		goto out;
	}
	rv = cmk_client_answer(&c, e);
	kfree(e);
	if (rv || reject)
		goto out;

	cmk_set_phase("connected");
	rv = rdma_disconnect(c.id);
	if (rv) {
		cmk_fail(rv, "connection %d: rdma_disconnect: %d", n, rv);
		goto out;
	}
	cmk_set_phase("disconnecting");
	rv = cmk_expect(&c, RDMA_CM_EVENT_DISCONNECTED);
out:
	cmk_conn_release(&c);
	return rv;
}

static int cmk_client(void)
{
	int n, rv;

	for (n = 1; n <= count; n++) {
		rv = cmk_client_cycle(n);
		if (rv)
			return rv;
		WRITE_ONCE(cmk_done, n);
	}
	return 0;
}

/* ---- server ---- */

static struct cmk_conn *cmk_conn_find(struct rdma_cm_id *id)
{
	struct cmk_conn *c;

	list_for_each_entry(c, &cmk_conns, entry)
		if (c->id == id)
			return c;
	return NULL;
}

static void cmk_conn_drop(struct cmk_conn *c)
{
	list_del(&c->entry);
	cmk_conn_release(c);
	kfree(c);
}

/* A CONNECT_REQUEST: its new id is ours now; accept or reject it. */
static int cmk_server_request(struct cmk_event *e, int n)
{
	struct rdma_conn_param p;
	struct cmk_conn *c;
	int rv;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		/* The id must go: destroying it rejects the request. */
		rdma_destroy_id(e->id);
		cmk_purge(e->id);
		return cmk_fail(-ENOMEM, "request %d: out of memory", n);
	}
	c->id = e->id;
	c->n = n;
	list_add_tail(&c->entry, &cmk_conns);
	if (n == 1)
		pr_info("siw2_cmktest: request 1: pd %u from %pISpc\n",
			e->pd_len, &c->id->route.addr.dst_addr);
	rv = cmk_pd_check(e, n);
	if (rv)
		return rv;

	if (reject) {
		rv = rdma_reject(c->id, pd_len ? cmk_pd : NULL, pd_len,
				 IB_CM_REJ_CONSUMER_DEFINED);
		if (rv)
			return cmk_fail(rv, "request %d: rdma_reject: %d", n,
					rv);
		cmk_conn_drop(c);
		return 1;	/* done with this one */
	}

	rv = cmk_conn_qp(c);
	if (rv)
		return rv;
	cmk_conn_param(&p);
	/* Outside the handler, rdma_accept() needs the handler lock. */
	rdma_lock_handler(c->id);
	rv = rdma_accept(c->id, &p);
	rdma_unlock_handler(c->id);
	if (rv)
		return cmk_fail(rv, "request %d: rdma_accept: %d", n, rv);
	return 0;
}

static int cmk_server_loop(void)
{
	struct cmk_conn *c;
	struct cmk_event *e;
	int requests = 0, rv = 0;

	while (!rv && READ_ONCE(cmk_done) < count) {
		e = cmk_next(NULL, list_empty(&cmk_conns) ? "CONNECT_REQUEST" :
			     "CONNECT_REQUEST/ESTABLISHED/DISCONNECTED");
		if (IS_ERR(e))
			return PTR_ERR(e);
		c = e->type == RDMA_CM_EVENT_CONNECT_REQUEST ? NULL :
		    cmk_conn_find(e->id);
		switch (e->type) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (requests == count) {
				rdma_destroy_id(e->id);
				cmk_purge(e->id);
				rv = cmk_fail(-EPROTO,
					      "request %d: more requests than count=%d",
					      requests + 1, count);
				break;
			}
			rv = cmk_server_request(e, ++requests);
			if (rv == 1) {
				WRITE_ONCE(cmk_done, cmk_done + 1);
				rv = 0;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (!c || c->established) {
				rv = cmk_fail(-EPROTO, "unexpected ESTABLISHED (status %d)",
					      e->status);
				break;
			}
			c->established = true;
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			if (!c || !c->established) {
				rv = cmk_fail(-EPROTO,
					      "DISCONNECTED (status %d) before ESTABLISHED",
					      e->status);
				break;
			}
			/* Completes the close; it may fail harmlessly. */
			rdma_disconnect(c->id);
			cmk_conn_drop(c);
			WRITE_ONCE(cmk_done, cmk_done + 1);
			break;
		default:
			rv = cmk_fail(-EPROTO, "%s (status %d) on %s id",
				      cmk_ev_name(e->type), e->status,
				      e->id == cmk_listen_id ? "the listening" :
				      c ? "a connection's" : "an unknown");
		}
		kfree(e);
	}
	return rv;
}

static int cmk_server_run(void)
{
	int rv;

	cmk_listen_id = rdma_create_id(&init_net, cmk_handler, NULL,
				       RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(cmk_listen_id)) {
		rv = PTR_ERR(cmk_listen_id);
		cmk_listen_id = NULL;
		return cmk_fail(rv, "rdma_create_id: %d", rv);
	}
	rv = rdma_bind_addr(cmk_listen_id, (struct sockaddr *)&cmk_addr);
	if (rv)
		return cmk_fail(rv, "rdma_bind_addr %pISpc: %d", &cmk_addr, rv);
	rv = rdma_listen(cmk_listen_id, 16);
	if (rv)
		return cmk_fail(rv, "rdma_listen %pISpc: %d", &cmk_addr, rv);
	pr_info("siw2_cmktest: listening on %pISpc (%s)\n", &cmk_addr,
		cmk_listen_id->device ?
		dev_name(&cmk_listen_id->device->dev) : "any device");
	cmk_set_phase("listening");
	return cmk_server_loop();
}

/* ---- the work item ---- */

/* Release everything: listener first (no new requests), then the rest. */
static void cmk_cleanup(void)
{
	struct cmk_conn *c, *tmp;
	struct cmk_event *e;
	unsigned long flags;

	cmk_set_phase("cleanup");
	if (cmk_listen_id) {
		rdma_destroy_id(cmk_listen_id);
		cmk_purge(cmk_listen_id);
		cmk_listen_id = NULL;
	}
	list_for_each_entry_safe(c, tmp, &cmk_conns, entry)
		cmk_conn_drop(c);
	/* Requests not looked at yet: their ids are ours to destroy. */
	for (;;) {
		spin_lock_irqsave(&cmk_lock, flags);
		e = list_first_entry_or_null(&cmk_events, struct cmk_event,
					     entry);
		if (e)
			list_del(&e->entry);
		spin_unlock_irqrestore(&cmk_lock, flags);
		if (!e)
			break;
		if (e->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_destroy_id(e->id);
			cmk_purge(e->id);
		}
		kfree(e);
	}
}

static void cmk_work_fn(struct work_struct *work)
{
	unsigned long flags;
	int rv;

	rv = cmk_server ? cmk_server_run() : cmk_client();
	cmk_cleanup();
	spin_lock_irqsave(&cmk_lock, flags);
	if (!rv && !cmk_failed)
		scnprintf(cmk_result, sizeof(cmk_result), "pass %d", cmk_done);
	spin_unlock_irqrestore(&cmk_lock, flags);
	pr_info("siw2_cmktest: %s %s %pISpc: %s\n",
		cmk_server ? "server" : "client", cmk_server ? "on" : "to",
		&cmk_addr, cmk_result);
	cmk_set_phase("done");
}

static int __init siw2_cmktest_init(void)
{
	char portstr[8];
	int i, rv;

	if (!strcmp(mode, "server")) {
		cmk_server = true;
	} else if (strcmp(mode, "client")) {
		pr_err("siw2_cmktest: mode must be client or server, not '%s'\n",
		       mode);
		return -EINVAL;
	}
	if (count < 1 || pd_len < 0 || pd_len > CMK_PD_MAX ||
	    expect_pd < -1 || expect_pd > CMK_PD_MAX ||
	    timeout_ms < 100 || timeout_ms > 600000 ||
	    resolve_ms < 1 || resolve_ms > 600000 || !port) {
		pr_err("siw2_cmktest: a parameter is out of range\n");
		return -EINVAL;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	rv = inet_pton_with_scope(&init_net, AF_UNSPEC, addr, portstr,
				  &cmk_addr);
	if (rv) {
		pr_err("siw2_cmktest: addr '%s' is not an IPv4/IPv6 address\n",
		       addr);
		return -EINVAL;
	}
	for (i = 0; i < pd_len; i++)
		cmk_pd[i] = (u8)(i * 7 + pd_len);
	INIT_WORK(&cmk_work, cmk_work_fn);
	queue_work(system_unbound_wq, &cmk_work);
	return 0;
}

static void __exit siw2_cmktest_exit(void)
{
	unsigned long flags;

	spin_lock_irqsave(&cmk_lock, flags);
	cmk_stop = true;
	spin_unlock_irqrestore(&cmk_lock, flags);
	wake_up(&cmk_wait);
	flush_work(&cmk_work);
}

module_init(siw2_cmktest_init);
module_exit(siw2_cmktest_exit);
MODULE_DESCRIPTION("siw2 in-kernel rdma_cm consumer test");
MODULE_LICENSE("Dual BSD/GPL");
