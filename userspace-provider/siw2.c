// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2 rdma-core provider: device matching, device and context lifecycle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "siw2.h"

/* Read <ibdev_path>/fw_ver into buf without the trailing newline. */
int siw2_read_fw_ver(const char *ibdev_path, char *buf, size_t len)
{
	char path[IBV_SYSFS_PATH_MAX + 16];
	ssize_t n;
	int fd;

	if (len < 2)
		return EINVAL;
	if (snprintf(path, sizeof(path), "%s/fw_ver", ibdev_path) >=
	    (int)sizeof(path))
		return ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/*
 * siw2 is out of tree, so it has no rdma_driver_id and libibverbs cannot
 * match it from a table. The kernel marks its devices through fw_ver.
 * Names starting with "rxe" belong to librxe and are never claimed.
 */
static bool siw2_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char fw[64];

	if (!strncmp(sysfs_dev->ibdev_name, "rxe", 3))
		return false;
	if (siw2_read_fw_ver(sysfs_dev->ibdev_path, fw, sizeof(fw)))
		return false;
	return !strncmp(fw, SIW2_FW_VER_MARKER, strlen(SIW2_FW_VER_MARKER));
}

static struct verbs_device *siw2_alloc_device(struct verbs_sysfs_dev *sdev)
{
	struct siw2_device *dev;

	(void)sdev;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void siw2_uninit_device(struct verbs_device *vdev)
{
	free(siw2_container_of(vdev, struct siw2_device, vdev));
}

static int siw2_get_context(struct siw2_context *ctx)
{
	struct siw2_get_context_resp resp = {};
	struct ibv_get_context cmd = {};
	int ret;

	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		return ret;
	if (resp.drv.abi_version != SIW2_ABI_VERSION) {
		fprintf(stderr,
			"siw2: %s: kernel reports ABI %u, provider speaks %u\n",
			ctx->vctx.context.device->name, resp.drv.abi_version,
			SIW2_ABI_VERSION);
		return EPROTO;
	}
	ctx->dev_id = resp.drv.dev_id;
	ctx->caps = resp.drv.caps;
	return 0;
}

static struct verbs_context *siw2_alloc_context(struct ibv_device *ibdev,
						int cmd_fd, void *private_data)
{
	struct siw2_context *ctx;
	int ret;

	(void)private_data;
	/* The core wants the offset of vctx inside our context, as a pointer. */
	ctx = _verbs_init_and_alloc_context(
		ibdev, cmd_fd, sizeof(*ctx),
		(struct verbs_context *)offsetof(struct siw2_context, vctx),
		SIW2_DRIVER_ID);
	if (!ctx)
		return NULL;

	ret = siw2_get_context(ctx);
	if (ret) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}
	verbs_set_ops(&ctx->vctx, &siw2_ctx_ops);
	return &ctx->vctx;
}

void siw2_free_context(struct ibv_context *ibctx)
{
	struct siw2_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

/*
 * No table entries: matching is by fw_ver above. The table must still
 * exist, ending in a zero (sentinel) entry, because libibverbs walks every
 * provider's table for devices that do have a driver id (rxe, mlx5, ...).
 */
static const struct verbs_match_ent siw2_match_table[] = {
	{}
};

static const struct verbs_device_ops siw2_dev_ops = {
	.name = SIW2_PROVIDER_NAME,
	.match_table = siw2_match_table,
	.match_min_abi_version = SIW2_ABI_VERSION,
	.match_max_abi_version = SIW2_ABI_VERSION,
	.match_device = siw2_match_device,
	.alloc_device = siw2_alloc_device,
	.uninit_device = siw2_uninit_device,
	.alloc_context = siw2_alloc_context,
};

/*
 * Whether this copy of the provider drives @ibdev: every libibverbs device
 * is a verbs_device naming its provider's ops. A second copy of the
 * library (another file) answers false, never misreads a context.
 */
bool siw2_is_own_device(struct ibv_device *ibdev)
{
	struct verbs_device *vdev =
		siw2_container_of(ibdev, struct verbs_device, device);

	return vdev->ops == &siw2_dev_ops;
}

static void __attribute__((constructor)) siw2_register_driver(void)
{
	verbs_register_driver_34(&siw2_dev_ops);
}
