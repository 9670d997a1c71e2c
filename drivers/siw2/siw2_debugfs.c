// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the debugfs view of the object counters (siw2_obj.c) and of the
 * connection endpoints:
 *   /sys/kernel/debug/siw2/objects          module-wide totals
 *   /sys/kernel/debug/siw2/<ibdev>/objects  one device
 *   /sys/kernel/debug/siw2/<ibdev>/connections  its connection endpoints
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "siw2.h"
#include "siw2_cm.h"

static const char * const siw2_obj_names[SIW2_OBJ_NUM] = {
	[SIW2_OBJ_UCTX] = "ucontexts",
	[SIW2_OBJ_PD] = "pds",
	[SIW2_OBJ_CQ] = "cqs",
	[SIW2_OBJ_MR] = "mrs",
	[SIW2_OBJ_SRQ] = "srqs",
	[SIW2_OBJ_QP] = "qps",
	[SIW2_OBJ_CEP] = "ceps",
};

static struct dentry *siw2_debugfs_root;

static void siw2_show_counts(struct seq_file *m, struct siw2_device *sdev)
{
	int i;

	for (i = 0; i < SIW2_OBJ_NUM; i++)
		seq_printf(m, "%s %d\n", siw2_obj_names[i],
			   siw2_obj_count(sdev, i));
}

static int siw2_total_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "devices %d\n", siw2_count_devices());
	siw2_show_counts(m, NULL);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(siw2_total);

static int siw2_dev_objects_show(struct seq_file *m, void *unused)
{
	struct siw2_device *sdev = m->private;

	siw2_show_counts(m, sdev);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(siw2_dev_objects);

static int siw2_dev_conns_show(struct seq_file *m, void *unused)
{
	siw2_cm_show(m, m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(siw2_dev_conns);

/**
 * siw2_debugfs_init - create /sys/kernel/debug/siw2
 */
void siw2_debugfs_init(void)
{
	siw2_debugfs_root = debugfs_create_dir(SIW2_DRV_NAME, NULL);
	debugfs_create_file("objects", 0444, siw2_debugfs_root, NULL,
			    &siw2_total_fops);
}

/**
 * siw2_debugfs_exit - remove /sys/kernel/debug/siw2
 */
void siw2_debugfs_exit(void)
{
	debugfs_remove_recursive(siw2_debugfs_root);
	siw2_debugfs_root = NULL;
}

/**
 * siw2_debugfs_add_dev - create the device's directory, named as registered
 * @sdev: a registered device
 */
void siw2_debugfs_add_dev(struct siw2_device *sdev)
{
	sdev->debugfs = debugfs_create_dir(dev_name(&sdev->ibdev.dev),
					   siw2_debugfs_root);
	debugfs_create_file("objects", 0444, sdev->debugfs, sdev,
			    &siw2_dev_objects_fops);
	debugfs_create_file("connections", 0444, sdev->debugfs, sdev,
			    &siw2_dev_conns_fops);
}

/**
 * siw2_debugfs_del_dev - remove the device's directory, if any
 * @sdev: device
 */
void siw2_debugfs_del_dev(struct siw2_device *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}
