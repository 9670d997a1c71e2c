/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in: the kernel's crc32c() convention. The caller passes
 * the running value (~0 to start) and complements the end result itself;
 * shim/crc32c.c implements it in software.
 */
#ifndef _SIW2_SHIM_LINUX_CRC32C_H
#define _SIW2_SHIM_LINUX_CRC32C_H

#include <linux/types.h>

u32 crc32c(u32 crc, const void *p, unsigned int len);

#endif
