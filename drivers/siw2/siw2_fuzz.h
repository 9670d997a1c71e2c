/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: a connection without TCP for the wire fuzzer (siw2_fuzz_llp.c),
 * and its debugfs file (siw2_fuzz.c). Only a module built with
 * SIW2_FUZZ=1 has them; otherwise the helpers below are empty and a QP
 * never has a fuzz connection.
 */
#ifndef SIW2_FUZZ_H_KERNEL
#define SIW2_FUZZ_H_KERNEL

#include <linux/net.h>
#include <linux/skbuff.h>

struct siw2_device;
struct siw2_qp;
struct siw2_fuzz_llp;

#ifdef SIW2_FUZZ
struct siw2_fuzz_llp *siw2_fuzz_llp_alloc(void);
void siw2_fuzz_llp_get(struct siw2_fuzz_llp *llp);
void siw2_fuzz_llp_put(struct siw2_fuzz_llp *llp);
void siw2_fuzz_llp_reset(struct siw2_fuzz_llp *llp, struct siw2_qp *qp);
struct siw2_qp *siw2_fuzz_llp_qp(struct siw2_fuzz_llp *llp);
void siw2_fuzz_llp_orphan(struct siw2_fuzz_llp *llp);
void siw2_fuzz_llp_put_rx(struct siw2_fuzz_llp *llp, struct sk_buff *skb);
bool siw2_fuzz_llp_read(struct siw2_fuzz_llp *llp, read_descriptor_t *desc,
			sk_read_actor_t actor);
int siw2_fuzz_llp_send(struct siw2_fuzz_llp *llp, struct msghdr *msg);
ssize_t siw2_fuzz_llp_take(struct siw2_fuzz_llp *llp, char __user *buf,
			   size_t max, bool *more, bool *blocked);
u32 siw2_fuzz_llp_mss(struct siw2_fuzz_llp *llp);
void siw2_fuzz_add_dev(struct siw2_device *sdev);
#else
static inline void siw2_fuzz_llp_get(struct siw2_fuzz_llp *llp) {}
static inline void siw2_fuzz_llp_put(struct siw2_fuzz_llp *llp) {}
static inline void siw2_fuzz_llp_orphan(struct siw2_fuzz_llp *llp) {}
static inline bool siw2_fuzz_llp_read(struct siw2_fuzz_llp *llp,
				      read_descriptor_t *desc,
				      sk_read_actor_t actor)
{
	return false;
}

static inline int siw2_fuzz_llp_send(struct siw2_fuzz_llp *llp,
				     struct msghdr *msg)
{
	return -ENOTCONN;
}

static inline u32 siw2_fuzz_llp_mss(struct siw2_fuzz_llp *llp)
{
	return 0;
}

static inline void siw2_fuzz_add_dev(struct siw2_device *sdev) {}
#endif

#endif /* SIW2_FUZZ_H_KERNEL */
