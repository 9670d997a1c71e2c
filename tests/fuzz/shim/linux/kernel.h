/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in for what the siw2 protocol files take from
 * <linux/kernel.h>. ARRAY_SIZE refuses a pointer, like the kernel's.
 */
#ifndef _SIW2_SHIM_LINUX_KERNEL_H
#define _SIW2_SHIM_LINUX_KERNEL_H

#include <linux/build_bug.h>
#include <linux/compiler_attributes.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

#define __siw2_shim_not_array(a) \
	__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0]))
#define ARRAY_SIZE(a) \
	(sizeof(a) / sizeof((a)[0]) + \
	 sizeof(struct { int _e : 1 - 2 * __siw2_shim_not_array(a); }) * 0)

#endif
