// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Software CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) with the
 * kernel's crc32c() calling convention: no initial or final complement
 * here, the caller does both. The harness checks the result against the
 * standard check value before fuzzing, so a wrong table cannot make every
 * CRC comparison agree with itself unnoticed.
 */
#include <linux/crc32c.h>

#define SIW2_SHIM_CRC32C_POLY	0x82f63b78U

static u32 siw2_shim_crc_table[256];

static void siw2_shim_crc_init(void)
{
	u32 i, bit, v;

	for (i = 0; i < 256; i++) {
		v = i;
		for (bit = 0; bit < 8; bit++)
			v = (v >> 1) ^ (v & 1 ? SIW2_SHIM_CRC32C_POLY : 0);
		siw2_shim_crc_table[i] = v;
	}
}

u32 crc32c(u32 crc, const void *p, unsigned int len)
{
	const u8 *b = p;

	/* Entry 1 is never zero once filled: a cheap "initialised" flag. */
	if (!siw2_shim_crc_table[1])
		siw2_shim_crc_init();
	while (len--)
		crc = (crc >> 8) ^ siw2_shim_crc_table[(crc ^ *b++) & 0xff];
	return crc;
}
