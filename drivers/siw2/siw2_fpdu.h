/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 MPA FPDU framing with CRC32c, and the few complete FPDUs the
 * connection manager sends itself (RTRs, MPA-level Terminates).
 */
#ifndef _SIW2_FPDU_H
#define _SIW2_FPDU_H

#include "siw2_wire.h"

enum siw2_fpdu_err {
	SIW2_FPDU_OK,
	SIW2_FPDU_INCOMPLETE,	/* fewer bytes than the FPDU needs */
	SIW2_FPDU_E_CRC,	/* CRC mismatch: Terminate 2/0/2 */
};

/* What siw2_fpdu_classify_rtr() recognised. */
enum siw2_fpdu_kind {
	SIW2_FPDU_OTHER,
	SIW2_FPDU_WRITE_RTR,	/* zero-length RDMA Write */
	SIW2_FPDU_READ_RTR,	/* zero-length RDMA Read Request, QN 1 MSN 1 */
	SIW2_FPDU_READ_RESP0,	/* zero-length RDMA Read Response */
};

/* Longest FPDU of the RTR exchange: the Read RTR, without CRC padding. */
#define SIW2_FPDU_RTR_MAX	52

u32 siw2_fpdu_crc(const void *buf, size_t len);
int siw2_fpdu_seal(void *buf, size_t size, size_t ulpdu_len, bool crc);
enum siw2_fpdu_err siw2_fpdu_check(const void *buf, size_t len, bool crc,
				   size_t *fpdu_len);
int siw2_fpdu_rtr_write(void *buf, size_t size, bool crc);
int siw2_fpdu_rtr_read(void *buf, size_t size, bool crc);
int siw2_fpdu_read_resp0(void *buf, size_t size, u32 stag, u64 to, bool crc);
enum siw2_fpdu_kind siw2_fpdu_classify_rtr(const void *buf, size_t len,
					   u32 *stag, u64 *to);
int siw2_fpdu_terminate(void *buf, size_t size, u8 rv, u32 msn, u8 layer,
			u8 etype, u8 code, bool crc);

#endif /* _SIW2_FPDU_H */
