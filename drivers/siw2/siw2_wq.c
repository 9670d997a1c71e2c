// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: bounded FIFO work queues (QP send/receive queues, SRQs).
 *
 * Callers hold wq->lock around every operation except init/free and
 * siw2_wq_take(), which takes it.
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
	if (!size)
		return 0;
	wq->entries = kvcalloc(size, esize, GFP_KERNEL);
	return wq->entries ? 0 : -ENOMEM;
}

/**
 * siw2_wq_free - release a queue's memory
 * @wq: queue
 */
void siw2_wq_free(struct siw2_wq *wq)
{
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
}

/**
 * siw2_wq_take - move the oldest entry out of a queue
 * @wq: queue (lock not held: taken here)
 * @out: receives a copy of the entry (@wq->esize bytes)
 *
 * Lets the caller act on the entry, e.g. complete it, without the queue
 * lock held.
 *
 * Return: true if an entry was taken, false if the queue was empty.
 */
bool siw2_wq_take(struct siw2_wq *wq, void *out)
{
	unsigned long flags;
	void *e;

	spin_lock_irqsave(&wq->lock, flags);
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
	rqe->num_sge = wr->num_sge;
	siw2_wq_push(wq);
	return 0;
}
