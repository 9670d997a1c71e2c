// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the fuzz injection file, /sys/kernel/debug/siw2/<ibdev>/fuzz
 * (SIW2_FUZZ=1 builds only; include/uapi/rdma/siw2-fuzz.h). The wire
 * fuzzer's cost was one TCP connection, MPA exchange and QP per few cases;
 * here a QP the fuzz target created once enters RTS on a connection
 * without TCP (siw2_fuzz_llp.c) as often as its cases end it, and every
 * injected octet still goes through the receive engine as TCP's would,
 * every answer through the transmit engine.
 *
 * One open file drives one QP at a time. A read() returns once the QP's
 * engines have nothing left to do: the fuzzer's verdict needs all the
 * QP will say in answer, and no timeout can tell that.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/uaccess.h>

#include <uapi/rdma/siw2-fuzz.h>

#include "siw2.h"
#include "siw2_fuzz.h"

/* An injected segment: TCP's largest, in practice; a command's input. */
#define SIW2_FUZZ_SEG_MAX	(64 * 1024)
#define SIW2_FUZZ_DATA_MAX	(1024 * 1024)

/**
 * struct siw2_fuzz - one open fuzz file
 * @sdev: its device
 * @lock: serialises commands and reads
 * @llp: the connection it gives its QP
 */
struct siw2_fuzz {
	struct siw2_device *sdev;
	struct mutex lock; /* commands */
	struct siw2_fuzz_llp *llp;
};

static int siw2_fuzz_open(struct inode *inode, struct file *file)
{
	struct siw2_fuzz *fz = kzalloc(sizeof(*fz), GFP_KERNEL);

	if (!fz)
		return -ENOMEM;
	fz->llp = siw2_fuzz_llp_alloc();
	if (!fz->llp) {
		kfree(fz);
		return -ENOMEM;
	}
	fz->sdev = inode->i_private;
	mutex_init(&fz->lock);
	file->private_data = fz;
	return stream_open(inode, file);
}

/* The file's QP, attached to the connection still, with a reference. */
static struct siw2_qp *siw2_fuzz_live_qp(struct siw2_fuzz *fz)
{
	struct siw2_qp *qp = siw2_fuzz_llp_qp(fz->llp);

	if (qp && siw2_qp_fuzz(qp) != fz->llp) {
		siw2_qp_put(qp);
		return NULL;
	}
	return qp;
}

static void siw2_fuzz_disarm(struct siw2_fuzz *fz)
{
	struct siw2_qp *qp = siw2_fuzz_live_qp(fz);

	if (qp) {
		siw2_qp_fuzz_down(qp);
		siw2_qp_put(qp);
	}
	siw2_fuzz_llp_reset(fz->llp, NULL);
}

static int siw2_fuzz_release(struct inode *inode, struct file *file)
{
	struct siw2_fuzz *fz = file->private_data;

	siw2_fuzz_disarm(fz);
	siw2_fuzz_llp_put(fz->llp);
	mutex_destroy(&fz->lock);
	kfree(fz);
	return 0;
}

static int siw2_fuzz_arm(struct siw2_fuzz *fz, const struct siw2_fuzz_cmd *c)
{
	struct siw2_mpa_conn conn = {
		.rev = c->arg[1],
		.crc = c->arg[2],
		.caps = c->arg[3],
		.ird = min_t(u32, c->arg[4], SIW2_MAX_IRD),
		.ord = min_t(u32, c->arg[5], SIW2_MAX_ORD),
	};
	struct siw2_qp *qp, *old;
	int rv;

	if (conn.rev < 1 || conn.rev > 2 || c->arg[2] > 1 ||
	    (conn.rev == 1 && conn.caps) ||
	    conn.caps & ~SIW2_MPA_CAPS)
		return -EINVAL;
	old = siw2_fuzz_live_qp(fz);
	if (old) {
		siw2_qp_put(old);
		return -EBUSY;
	}
	xa_lock(&fz->sdev->qp_xa);
	qp = xa_load(&fz->sdev->qp_xa, c->arg[0]);
	if (qp)
		siw2_qp_get(qp);
	xa_unlock(&fz->sdev->qp_xa);
	if (!qp)
		return -ENOENT;
	siw2_fuzz_llp_reset(fz->llp, qp);
	rv = siw2_qp_fuzz_up(qp, fz->llp, &conn);
	if (rv)
		siw2_fuzz_llp_reset(fz->llp, NULL);
	siw2_qp_put(qp);
	return rv;
}

/*
 * Each segment of the user's @buf as one socket buffer, copied straight
 * into it; all or none are queued. The caller kicks the receive engine.
 */
static int siw2_fuzz_segments(struct siw2_fuzz *fz, const char __user *buf,
			      size_t len)
{
	struct sk_buff_head q;
	struct sk_buff *skb;
	size_t off = 0;
	int rv = -EINVAL;
	u32 seg;

	__skb_queue_head_init(&q);
	while (off < len) {
		if (len - off < sizeof(seg))
			goto out;
		if (copy_from_user(&seg, buf + off, sizeof(seg))) {
			rv = -EFAULT;
			goto out;
		}
		off += sizeof(seg);
		if (!seg || seg > SIW2_FUZZ_SEG_MAX || seg > len - off)
			goto out;
		skb = alloc_skb(seg, GFP_KERNEL);
		if (!skb) {
			rv = -ENOMEM;
			goto out;
		}
		__skb_queue_tail(&q, skb);
		if (copy_from_user(skb_put(skb, seg), buf + off, seg)) {
			rv = -EFAULT;
			goto out;
		}
		off += seg;
	}
	while ((skb = __skb_dequeue(&q)))
		siw2_fuzz_llp_put_rx(fz->llp, skb);
	return 0;
out:
	__skb_queue_purge(&q);
	return rv;
}

static int siw2_fuzz_data(struct siw2_fuzz *fz, const char __user *buf,
			  size_t len)
{
	struct siw2_qp *qp;
	int rv;

	if (!len || len > SIW2_FUZZ_DATA_MAX)
		return -EINVAL;
	qp = siw2_fuzz_live_qp(fz);
	if (!qp)
		return -EPIPE;
	rv = siw2_fuzz_segments(fz, buf, len);
	/* All segments queued, one run reads them, one at a time. */
	if (!rv)
		siw2_rx_kick(qp);
	siw2_qp_put(qp);
	return rv;
}

static ssize_t siw2_fuzz_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct siw2_fuzz *fz = file->private_data;
	struct siw2_fuzz_cmd c;
	struct siw2_qp *qp;
	int rv;

	if (count < sizeof(c) || copy_from_user(&c, buf, sizeof(c)))
		return -EINVAL;
	if (count != sizeof(c) + (c.op == SIW2_FUZZ_DATA ? c.len : 0))
		return -EINVAL;
	mutex_lock(&fz->lock);
	switch (c.op) {
	case SIW2_FUZZ_ARM:
		rv = siw2_fuzz_arm(fz, &c);
		break;
	case SIW2_FUZZ_DATA:
		rv = siw2_fuzz_data(fz, buf + sizeof(c), c.len);
		break;
	case SIW2_FUZZ_DOWN:
		qp = siw2_fuzz_live_qp(fz);
		rv = qp ? 0 : -ENOTCONN;
		if (qp) {
			siw2_qp_fuzz_down(qp);
			siw2_qp_put(qp);
		}
		break;
	case SIW2_FUZZ_DISARM:
		siw2_fuzz_disarm(fz);
		rv = 0;
		break;
	default:
		rv = -EINVAL;
		break;
	}
	mutex_unlock(&fz->lock);
	return rv ? rv : count;
}

/*
 * Until the engines are done: input read, answers sent, a failure's work
 * run. The receive engine queues itself and the transmit engine; the
 * transmit engine itself, its linger timer and the failure work; nothing
 * else queues any of them while the file holds the QP. So each is waited
 * for after those that may queue it, and "done" is idle (neither pending
 * nor running: work_busy()) in that order, with the timer asked after
 * the engine that arms it.
 */
static void siw2_fuzz_settle(struct siw2_qp *qp)
{
	for (;;) {
		flush_work(&qp->rx_work);
		if (work_busy(&qp->rx_work))
			continue;
		flush_work(&qp->tx_work);
		if (work_busy(&qp->tx_work))
			continue;
		if (hrtimer_active(&qp->tx_linger)) {
			usleep_range(50, 100);
			continue;
		}
		flush_work(&qp->fail_work);
		if (!work_busy(&qp->fail_work))
			return;
	}
}

static ssize_t siw2_fuzz_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct siw2_fuzz *fz = file->private_data;
	struct siw2_fuzz_rep rep = {};
	bool more, blocked;
	struct siw2_qp *qp;
	ssize_t n;

	if (count < sizeof(rep))
		return -EINVAL;
	mutex_lock(&fz->lock);
	rep.closed = 1;
	qp = siw2_fuzz_live_qp(fz);
	if (qp) {
		siw2_fuzz_settle(qp);
		/* Out of RTS its connection ends, as the CM would close it. */
		if (READ_ONCE(qp->state) != SIW2_QP_RTS)
			siw2_qp_fuzz_down(qp);
		rep.state = READ_ONCE(qp->ib_state);
		rep.closed = siw2_qp_fuzz(qp) != fz->llp;
	}
	n = siw2_fuzz_llp_take(fz->llp, buf + sizeof(rep),
			       count - sizeof(rep), &more, &blocked);
	/* Room again: the transmit engine goes on, as on TCP's write space. */
	if (qp && blocked && !rep.closed)
		siw2_tx_kick(qp);
	if (qp)
		siw2_qp_put(qp);
	mutex_unlock(&fz->lock);
	if (n < 0)
		return n;
	rep.len = n;
	rep.more = more || (blocked && !rep.closed);
	if (copy_to_user(buf, &rep, sizeof(rep)))
		return -EFAULT;
	return sizeof(rep) + n;
}

static const struct file_operations siw2_fuzz_fops = {
	.owner = THIS_MODULE,
	.open = siw2_fuzz_open,
	.release = siw2_fuzz_release,
	.write = siw2_fuzz_write,
	.read = siw2_fuzz_read,
};

/**
 * siw2_fuzz_add_dev - create the device's fuzz file (root only)
 * @sdev: a device with its debugfs directory
 */
void siw2_fuzz_add_dev(struct siw2_device *sdev)
{
	debugfs_create_file("fuzz", 0600, sdev->debugfs, sdev,
			    &siw2_fuzz_fops);
}
