// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: bounded FIFO work queues (QP send/receive queues, SRQs).
 *
 * Callers hold wq->lock around every operation except init/free and
 * siw2_wq_take(), which takes it.
 *
 * A user queue is fed from its ring (siw2_ring.c): siw2_wq_pull() copies
 * each entry the process published, checks the copy and queues it; the
 * ring's consumer index follows the entries retired (siw2_wq_pop()), so
 * the process never has more work outstanding than the ring holds. The
 * queue may be smaller than its ring (a window, SIW2_SQ_WINDOW): what
 * does not fit waits in the ring, which already holds it.
 */

#include <linux/slab.h>

#include "siw2.h"

/**
 * siw2_wq_init - allocate a queue of @size entries of @esize bytes
 * @wq: queue
 * @size: capacity, may be 0 (a queue that accepts nothing)
 * @esize: entry size
 *
 * Return: 0 or -ENOMEM.
 */
int siw2_wq_init(struct siw2_wq *wq, u32 size, size_t esize)
{
	spin_lock_init(&wq->lock);
	wq->esize = esize;
	wq->size = size;
	wq->head = 0;
	wq->count = 0;
	wq->entries = NULL;
	wq->ring = NULL;
	wq->fill = NULL;
	if (!size)
		return 0;
	wq->entries = kvcalloc(size, esize, GFP_KERNEL);
	return wq->entries ? 0 : -ENOMEM;
}

/**
 * siw2_wq_free - release a queue's memory
 * @wq: queue; its owner has destroyed the ring that fed it, if any
 */
void siw2_wq_free(struct siw2_wq *wq)
{
	wq->ring = NULL;
	kvfree(wq->entries);
	wq->entries = NULL;
	wq->size = 0;
	wq->count = 0;
}

static void *siw2_wq_entry(struct siw2_wq *wq, u32 i)
{
	return wq->entries + ((wq->head + i) % wq->size) * wq->esize;
}

/**
 * siw2_wq_slot - ring index of the entry @i places after the head
 * @wq: queue (lock held)
 * @i: position from the head
 *
 * Return: the index; stable until the entry is popped.
 */
u32 siw2_wq_slot(struct siw2_wq *wq, u32 i)
{
	lockdep_assert_held(&wq->lock);
	return (wq->head + i) % wq->size;
}

/**
 * siw2_wq_at - the entry at ring index @slot
 * @wq: queue (lock held)
 * @slot: a ring index from siw2_wq_slot()
 *
 * Return: the entry.
 */
void *siw2_wq_at(struct siw2_wq *wq, u32 slot)
{
	lockdep_assert_held(&wq->lock);
	return wq->entries + slot * wq->esize;
}

/**
 * siw2_wq_tail - the free slot a new entry is written to
 * @wq: queue (lock held)
 *
 * Return: the slot, or NULL when the queue is full.
 */
void *siw2_wq_tail(struct siw2_wq *wq)
{
	lockdep_assert_held(&wq->lock);

	if (wq->count == wq->size)
		return NULL;
	return siw2_wq_entry(wq, wq->count);
}

/**
 * siw2_wq_push - publish the slot filled after siw2_wq_tail()
 * @wq: queue (lock held)
 */
void siw2_wq_push(struct siw2_wq *wq)
{
	lockdep_assert_held(&wq->lock);
	wq->count++;
}

/**
 * siw2_wq_head - the oldest entry
 * @wq: queue (lock held)
 *
 * Return: the entry, or NULL when the queue is empty.
 */
void *siw2_wq_head(struct siw2_wq *wq)
{
	lockdep_assert_held(&wq->lock);

	return wq->count ? siw2_wq_entry(wq, 0) : NULL;
}

/**
 * siw2_wq_pop - retire the oldest entry
 * @wq: queue (lock held)
 */
void siw2_wq_pop(struct siw2_wq *wq)
{
	lockdep_assert_held(&wq->lock);
	wq->head = (wq->head + 1) % wq->size;
	wq->count--;
	if (wq->ring) /* release: the slot is the process's again */
		smp_store_release(&wq->ring->ctl->cons, ++wq->ring_cons);
}

/**
 * siw2_wq_attach_ring - feed a queue from a user ring
 * @wq: queue, empty, of as many entries as the ring has slots
 * @r: the ring
 * @fill: checks a copy of one ring entry and fills a queue slot from it
 */
void siw2_wq_attach_ring(struct siw2_wq *wq, struct siw2_ring *r,
			 siw2_wq_fill_fn fill)
{
	wq->ring = r;
	wq->fill = fill;
	wq->ring_next = 0;
	wq->ring_cons = 0;
}

/**
 * siw2_wq_pull - queue the entries the process has published in its ring
 * @wq: queue (lock held)
 *
 * Takes as many as the queue has room for; the rest stay in the ring
 * for a later pull.
 *
 * Return: the number of entries queued, or -EPROTO when the process
 * published more entries than its ring holds (the ring is then ignored
 * from here on; the caller fails the queue's owner).
 */
int siw2_wq_pull(struct siw2_wq *wq)
{
	u64 buf[SIW2_RING_STRIDE_MAX / sizeof(u64)];
	struct siw2_ring *r = wq->ring;
	u32 prod, n, i;

	lockdep_assert_held(&wq->lock);

	if (!r || wq->ring_dead)
		return 0;
	/* The index before the entries (pairs with the process's release). */
	prod = smp_load_acquire(&r->ctl->prod);
	/*
	 * Taken or waiting, never more than the ring's slots; and never
	 * behind what was already taken.
	 */
	if (prod - wq->ring_cons > r->slots ||
	    prod - wq->ring_cons < wq->ring_next - wq->ring_cons) {
		wq->ring_dead = true;
		return -EPROTO;
	}
	n = min(prod - wq->ring_next, wq->size - wq->count);
	for (i = 0; i < n; i++) {
		/* Checked and used as copied: the process may rewrite it. */
		memcpy(buf, siw2_ring_at(r, wq->ring_next++), r->stride);
		wq->fill(wq, siw2_wq_slot(wq, wq->count), buf);
		wq->count++;
	}
	return n;
}

/**
 * siw2_wq_ring_waiting - has the process published entries not yet taken?
 * @wq: queue; no lock: a hint, stale either way
 *
 * Return: true when the ring's producer index is ahead of what was taken.
 */
bool siw2_wq_ring_waiting(const struct siw2_wq *wq)
{
	const struct siw2_ring *r = wq->ring;

	return r && !READ_ONCE(wq->ring_dead) &&
	       READ_ONCE(r->ctl->prod) != READ_ONCE(wq->ring_next);
}

/**
 * siw2_wq_ring_reset - drop a ring's published and queued entries
 * @wq: queue (lock held), emptied by the caller
 *
 * For IB RESET: the entries go without completions, and the process sees
 * its ring empty.
 */
void siw2_wq_ring_reset(struct siw2_wq *wq)
{
	lockdep_assert_held(&wq->lock);

	if (!wq->ring)
		return;
	wq->ring_next = READ_ONCE(wq->ring->ctl->prod);
	wq->ring_cons = wq->ring_next;
	/* Release: nothing of the dropped entries is read after this. */
	smp_store_release(&wq->ring->ctl->cons, wq->ring_cons);
}

/**
 * siw2_wq_take - move the oldest entry out of a queue
 * @wq: queue (lock not held: taken here)
 * @out: receives a copy of the entry (@wq->esize bytes)
 *
 * Lets the caller act on the entry, e.g. complete it, without the queue
 * lock held.
 *
 * A user queue takes what its ring holds first. A ring that lies about
 * its producer index (siw2_wq_pull()) reads as empty.
 *
 * Return: true if an entry was taken, false if the queue was empty.
 */
bool siw2_wq_take(struct siw2_wq *wq, void *out)
{
	unsigned long flags;
	void *e;

	spin_lock_irqsave(&wq->lock, flags);
	e = siw2_wq_head(wq);
	if (!e && siw2_wq_pull(wq) > 0)
		e = siw2_wq_head(wq);
	if (e) {
		memcpy(out, e, wq->esize);
		siw2_wq_pop(wq);
	}
	spin_unlock_irqrestore(&wq->lock, flags);
	return e;
}

/**
 * siw2_sge_copy - validate and copy a work request's SGE list
 * @dst: destination, room for @max_sge entries
 * @src: the consumer's SGEs
 * @num_sge: number of entries in @src
 * @max_sge: the queue's SGE limit
 *
 * Return: 0 or -EINVAL when @num_sge exceeds @max_sge.
 */
int siw2_sge_copy(struct siw2_sge *dst, const struct ib_sge *src, int num_sge,
		  u32 max_sge)
{
	int i;

	if (num_sge < 0 || num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
	}
	return 0;
}

/**
 * siw2_wq_post_recv - validate one receive work request and queue it
 * @wq: a receive queue of struct siw2_rqe (lock held)
 * @wr: the request
 * @max_sge: the queue's SGE limit
 *
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM when the queue is full.
 */
int siw2_wq_post_recv(struct siw2_wq *wq, const struct ib_recv_wr *wr,
		      u32 max_sge)
{
	struct siw2_rqe *rqe = siw2_wq_tail(wq);
	int rv;

	if (!rqe)
		return -ENOMEM;
	rv = siw2_sge_copy(rqe->sge, wr->sg_list, wr->num_sge, max_sge);
	if (rv)
		return rv;
	rqe->wr_id = wr->wr_id;
	rqe->bad = false;
	rqe->num_sge = wr->num_sge;
	siw2_wq_push(wq);
	return 0;
}

/**
 * siw2_rqe_from_ring - a posted receive from a copied ring entry
 * @rqe: the queue slot
 * @e: the copy of the process's entry
 * @max_sge: the queue's SGE limit
 *
 * An entry that fails its checks is queued as bad: the receive it stands
 * for fails when a message would use it (siw2_rx.c), so the process's
 * error surfaces on its own QP in order.
 */
void siw2_rqe_from_ring(struct siw2_rqe *rqe, const struct siw2_rq_wqe *e,
			u32 max_sge)
{
	rqe->wr_id = e->wr_id;
	rqe->bad = e->num_sge > max_sge || e->rsvd;
	rqe->num_sge = rqe->bad ? 0 : e->num_sge;
	siw2_ring_sge_copy(rqe->sge, e->sge, rqe->num_sge);
}

/**
 * siw2_ring_sge_copy - copy the SGEs of a copied ring entry
 * @dst: destination, room for @n entries
 * @src: the entry's SGEs
 * @n: how many; the caller checked it against the queue's limit
 *
 * Return: the sum of their lengths.
 */
u64 siw2_ring_sge_copy(struct siw2_sge *dst, const struct siw2_ring_sge *src,
		       u32 n)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		len += src[i].length;
	}
	return len;
}
