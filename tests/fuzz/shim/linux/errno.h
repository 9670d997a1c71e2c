/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in: the system's uAPI <linux/errno.h> has the kernel's
 * values. glibc's <errno.h> includes <linux/errno.h> itself, so this file
 * must hand over to the next one on the path, not to <errno.h>.
 */
#ifndef _SIW2_SHIM_LINUX_ERRNO_H
#define _SIW2_SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif
