// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: a connection without TCP, for the wire fuzzer (SIW2_FUZZ=1 builds
 * only). What the fuzzer injects is queued as socket buffers, which the
 * receive engine reads as it reads a TCP socket's (tcp_read_sock()
 * semantics: an actor takes octets from the head buffer); what the
 * transmit engine sends is kept for the fuzzer to read. A full output
 * buffer pushes back as a full socket does (-EAGAIN); reading it makes
 * room, as TCP's write space does. The debugfs file that drives it is
 * siw2_fuzz.c.
 */

#include <linux/kref.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "siw2.h"
#include "siw2_fuzz.h"

/* Output kept between reads: a few Read Responses of the largest size. */
#define SIW2_FUZZ_OUT_MAX	(1024 * 1024)
/* The segment size the transmit engine plans FPDUs for (Ethernet's). */
#define SIW2_FUZZ_MSS		1460

/**
 * struct siw2_fuzz_llp - one connection without TCP
 * @ref: held by the fuzz file and by the QP while its @fuzz points here
 * @qp_lock: guards @qp
 * @qp: the QP using it, or NULL once that QP is gone
 * @rxq: injected input not yet read
 * @rx_off: octets of @rxq's head already read (the receive engine only)
 * @out_lock: guards the output
 * @out: output, of SIW2_FUZZ_OUT_MAX octets
 * @out_len: how many of them are taken
 * @blocked: a send found @out full: reading makes the engine run again
 */
struct siw2_fuzz_llp {
	struct kref ref;
	struct mutex qp_lock; /* @qp */
	struct siw2_qp *qp;
	struct sk_buff_head rxq;
	unsigned int rx_off;
	struct mutex out_lock; /* @out, @out_len, @blocked */
	u8 *out;
	size_t out_len;
	bool blocked;
};

/**
 * siw2_fuzz_llp_alloc - a connection without TCP, not yet used by a QP
 *
 * Return: the connection, or NULL.
 */
struct siw2_fuzz_llp *siw2_fuzz_llp_alloc(void)
{
	struct siw2_fuzz_llp *llp = kzalloc(sizeof(*llp), GFP_KERNEL);

	if (!llp)
		return NULL;
	llp->out = kvmalloc(SIW2_FUZZ_OUT_MAX, GFP_KERNEL);
	if (!llp->out) {
		kfree(llp);
		return NULL;
	}
	kref_init(&llp->ref);
	mutex_init(&llp->qp_lock);
	mutex_init(&llp->out_lock);
	skb_queue_head_init(&llp->rxq);
	return llp;
}

/**
 * siw2_fuzz_llp_get - another reference
 * @llp: connection
 */
void siw2_fuzz_llp_get(struct siw2_fuzz_llp *llp)
{
	kref_get(&llp->ref);
}

static void siw2_fuzz_llp_free(struct kref *ref)
{
	struct siw2_fuzz_llp *llp = container_of(ref, struct siw2_fuzz_llp,
						 ref);

	skb_queue_purge(&llp->rxq);
	kvfree(llp->out);
	mutex_destroy(&llp->qp_lock);
	mutex_destroy(&llp->out_lock);
	kfree(llp);
}

/**
 * siw2_fuzz_llp_put - drop a reference; the last frees the connection
 * @llp: connection, or NULL
 */
void siw2_fuzz_llp_put(struct siw2_fuzz_llp *llp)
{
	if (llp)
		kref_put(&llp->ref, siw2_fuzz_llp_free);
}

/**
 * siw2_fuzz_llp_reset - start a new stream: no input, no output
 * @llp: connection, whose QP's engines do not run
 * @qp: the QP that uses it from now on, or NULL
 */
void siw2_fuzz_llp_reset(struct siw2_fuzz_llp *llp, struct siw2_qp *qp)
{
	skb_queue_purge(&llp->rxq);
	llp->rx_off = 0;
	mutex_lock(&llp->out_lock);
	llp->out_len = 0;
	llp->blocked = false;
	mutex_unlock(&llp->out_lock);
	mutex_lock(&llp->qp_lock);
	llp->qp = qp;
	mutex_unlock(&llp->qp_lock);
}

/**
 * siw2_fuzz_llp_qp - the QP using the connection, with a reference
 * @llp: connection
 *
 * Return: the QP (the caller puts it), or NULL.
 */
struct siw2_qp *siw2_fuzz_llp_qp(struct siw2_fuzz_llp *llp)
{
	struct siw2_qp *qp;

	mutex_lock(&llp->qp_lock);
	qp = llp->qp;
	if (qp)
		siw2_qp_get(qp);
	mutex_unlock(&llp->qp_lock);
	return qp;
}

/**
 * siw2_fuzz_llp_orphan - the QP using the connection is being destroyed
 * @llp: connection, or NULL
 *
 * The fuzz file finds no QP from now on; the QP keeps its reference
 * until its engines have stopped.
 */
void siw2_fuzz_llp_orphan(struct siw2_fuzz_llp *llp)
{
	if (!llp)
		return;
	mutex_lock(&llp->qp_lock);
	llp->qp = NULL;
	mutex_unlock(&llp->qp_lock);
}

/**
 * siw2_fuzz_llp_put_rx - queue one segment of input
 * @llp: connection
 * @skb: the segment; the connection owns it
 */
void siw2_fuzz_llp_put_rx(struct siw2_fuzz_llp *llp, struct sk_buff *skb)
{
	skb_queue_tail(&llp->rxq, skb);
}

/**
 * siw2_fuzz_llp_read - hand queued input to the receive engine
 * @llp: connection; only the QP's receive work item reads it
 * @desc: how much (@desc->count), for @actor
 * @actor: takes octets of one buffer, returns how many it took
 *
 * Return: true when @desc->count ran out with input left.
 */
bool siw2_fuzz_llp_read(struct siw2_fuzz_llp *llp, read_descriptor_t *desc,
			sk_read_actor_t actor)
{
	unsigned long flags;
	struct sk_buff *skb;
	int n;

	while (desc->count) {
		/* The fuzz file appends meanwhile; the head stays ours. */
		spin_lock_irqsave(&llp->rxq.lock, flags);
		skb = skb_peek(&llp->rxq);
		spin_unlock_irqrestore(&llp->rxq.lock, flags);
		if (!skb)
			break;
		n = actor(desc, skb, llp->rx_off, skb->len - llp->rx_off);
		if (n <= 0)
			break;
		llp->rx_off += n;
		if (llp->rx_off < skb->len)
			break;
		skb_unlink(skb, &llp->rxq);
		consume_skb(skb);
		llp->rx_off = 0;
	}
	return !desc->count && !skb_queue_empty_lockless(&llp->rxq);
}

/**
 * siw2_fuzz_llp_send - what the transmit engine sends
 * @llp: connection
 * @msg: the octets (its iterator advances over what was taken)
 *
 * Return: octets taken, or -EAGAIN when the output is full.
 */
int siw2_fuzz_llp_send(struct siw2_fuzz_llp *llp, struct msghdr *msg)
{
	size_t want = msg_data_left(msg);
	size_t n;

	mutex_lock(&llp->out_lock);
	n = min(want, SIW2_FUZZ_OUT_MAX - llp->out_len);
	if (n)
		n = copy_from_iter(llp->out + llp->out_len, n, &msg->msg_iter);
	llp->out_len += n;
	if (n < want)
		llp->blocked = true;
	mutex_unlock(&llp->out_lock);
	return n ? n : -EAGAIN;
}

/**
 * siw2_fuzz_llp_take - copy output to the fuzzer and drop it
 * @llp: connection
 * @buf: where to
 * @max: at most this many octets
 * @more: set when output is left
 * @blocked: set when a send found the output full since the last take
 *
 * Return: octets copied, or -EFAULT.
 */
ssize_t siw2_fuzz_llp_take(struct siw2_fuzz_llp *llp, char __user *buf,
			   size_t max, bool *more, bool *blocked)
{
	size_t n;

	mutex_lock(&llp->out_lock);
	n = min(max, llp->out_len);
	if (copy_to_user(buf, llp->out, n)) {
		mutex_unlock(&llp->out_lock);
		return -EFAULT;
	}
	memmove(llp->out, llp->out + n, llp->out_len - n);
	llp->out_len -= n;
	*more = llp->out_len;
	*blocked = llp->blocked;
	llp->blocked = false;
	mutex_unlock(&llp->out_lock);
	return n;
}

/**
 * siw2_fuzz_llp_mss - the segment size the transmit engine plans for
 * @llp: connection
 *
 * Return: SIW2_FUZZ_MSS.
 */
u32 siw2_fuzz_llp_mss(struct siw2_fuzz_llp *llp)
{
	return SIW2_FUZZ_MSS;
}
