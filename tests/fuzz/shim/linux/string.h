/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User-space stand-in: libc's memcpy/memset/memcmp (ASan intercepts them). */
#ifndef _SIW2_SHIM_LINUX_STRING_H
#define _SIW2_SHIM_LINUX_STRING_H

#include <string.h>

#endif
