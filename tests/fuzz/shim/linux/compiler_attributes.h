/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* User-space stand-in: the attribute spellings the siw2 protocol files use. */
#ifndef _SIW2_SHIM_LINUX_COMPILER_ATTRIBUTES_H
#define _SIW2_SHIM_LINUX_COMPILER_ATTRIBUTES_H

#define __packed		__attribute__((__packed__))

#endif
