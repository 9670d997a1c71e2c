// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: live object accounting against the per-device limits, the udata
 * helpers every user verb shares, and the module's workqueues. Every
 * object file calls down into these; they call nothing of siw2's, so they
 * add no loop to the call graph. siw2_debugfs.c presents the counters.
 */

#include <linux/atomic.h>
#include <linux/minmax.h>
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>

#include "siw2.h"

/*
 * The module's workqueues. siw2_main.c creates and destroys them (the
 * order matters there); they live here so that every file may queue work.
 * siw2_async_wq: deferred object work - device unregistration (not under
 * RTNL), a QP's failure handling, MR release.
 */
struct workqueue_struct *siw2_async_wq;
/* The QPs' TX and RX engines (siw2_dp.h); storage traffic may need it. */
struct workqueue_struct *siw2_dp_wq;

static atomic_t siw2_total[SIW2_OBJ_NUM];
static atomic_t siw2_total_devices;

/**
 * siw2_obj_get - account one new object against the device's limit
 * @sdev: device
 * @kind: object kind
 *
 * Return: 0, or -ENOMEM when the device already has its limit of @kind.
 */
int siw2_obj_get(struct siw2_device *sdev, enum siw2_obj kind)
{
	if (!atomic_add_unless(&sdev->count[kind], 1, sdev->limit[kind]))
		return -ENOMEM;
	atomic_inc(&siw2_total[kind]);
	return 0;
}

/**
 * siw2_obj_put - drop the accounting of siw2_obj_get()
 * @sdev: device
 * @kind: object kind
 */
void siw2_obj_put(struct siw2_device *sdev, enum siw2_obj kind)
{
	atomic_dec(&sdev->count[kind]);
	atomic_dec(&siw2_total[kind]);
}

/**
 * siw2_obj_count - live objects of one kind
 * @sdev: device, or NULL for the module-wide total
 * @kind: object kind
 *
 * Return: the current count (a snapshot).
 */
int siw2_obj_count(struct siw2_device *sdev, enum siw2_obj kind)
{
	return atomic_read(sdev ? &sdev->count[kind] : &siw2_total[kind]);
}

/**
 * siw2_count_device - account a device allocation (+1) or release (-1)
 * @delta: +1 or -1
 */
void siw2_count_device(int delta)
{
	atomic_add(delta, &siw2_total_devices);
}

/**
 * siw2_count_devices - devices allocated and not yet released
 *
 * Return: the current count (a snapshot).
 */
int siw2_count_devices(void)
{
	return atomic_read(&siw2_total_devices);
}

/**
 * siw2_udata_input - copy a verb's driver request
 * @udata: user data of a verb, or NULL for a kernel caller
 * @req: the request structure, zeroed by the caller (a shorter request
 *	leaves the rest zero)
 * @len: its size; 0 for a verb that takes no driver input
 *
 * Input past @len that is not all zero comes from a provider of a newer
 * ABI that this kernel cannot honour.
 *
 * Return: 0, -EOPNOTSUPP, or -EFAULT.
 */
int siw2_udata_input(struct ib_udata *udata, void *req, size_t len)
{
	size_t n;

	if (!udata || !udata->inlen)
		return 0;
	n = min(udata->inlen, len);
	if (udata->inlen > n &&
	    !ib_is_udata_cleared(udata, n, udata->inlen - n))
		return -EOPNOTSUPP;
	if (n && ib_copy_from_udata(req, udata, n))
		return -EFAULT;
	return 0;
}

/**
 * siw2_udata_no_input - reject driver input for a verb that takes none
 * @udata: user data of a verb, or NULL for a kernel caller
 *
 * Return: 0 or -EOPNOTSUPP.
 */
int siw2_udata_no_input(struct ib_udata *udata)
{
	return siw2_udata_input(udata, NULL, 0);
}

/**
 * siw2_udata_respond - copy a driver response to user space
 * @udata: user data of a verb, or NULL for a kernel caller
 * @resp: response structure
 * @len: its size
 *
 * An older provider may expect a shorter response; it gets the prefix.
 *
 * Return: 0 or -EFAULT.
 */
int siw2_udata_respond(struct ib_udata *udata, const void *resp, size_t len)
{
	if (!udata || !udata->outlen)
		return 0;
	return copy_to_user(udata->outbuf, resp, min(len, udata->outlen)) ?
		       -EFAULT : 0;
}
