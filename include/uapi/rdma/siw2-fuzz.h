/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * siw2's fuzz injection file, /sys/kernel/debug/siw2/<ibdev>/fuzz: only a
 * module built with SIW2_FUZZ=1 has it (tools/fuzz-long.sh --inject), never
 * a normal build, and it is no stable ABI. It gives a QP a connection
 * without TCP: the octets written to it are the QP's input stream, and
 * what the QP sends is read from it. Shared by drivers/siw2/siw2_fuzz.c
 * and tests/progs/siw2_fuzz_target.c.
 *
 * Each write() is one command: struct siw2_fuzz_cmd, then @len octets of
 * input for SIW2_FUZZ_DATA. Each read() first waits until the QP's engines
 * have nothing left to do, then returns struct siw2_fuzz_rep and as much
 * of the QP's output as fits.
 */
#ifndef SIW2_FUZZ_H
#define SIW2_FUZZ_H

#include <linux/types.h>

enum siw2_fuzz_op {
	/*
	 * Put QP arg[0] (Idle, no connection) into RTS as if an MPA exchange
	 * had settled: arg[1] MPA revision, arg[2] CRC (0/1), arg[3] the
	 * capability bits both sides agreed on (0x4 RDMAP v2, 0x2 Commit), arg[4] IRD, arg[5] ORD.
	 */
	SIW2_FUZZ_ARM = 1,
	/*
	 * Input: @len octets (1 MiB at most) of segments, each a __u32
	 * length (1 to 65536) and that many octets of the stream, which the
	 * receive engine reads as TCP segments, one after the other.
	 */
	SIW2_FUZZ_DATA = 2,
	/* The stream ended (the peer's FIN): the QP goes to Error. */
	SIW2_FUZZ_DOWN = 3,
	/* Let go of the QP (Error first if it was still connected). */
	SIW2_FUZZ_DISARM = 4,
};

struct siw2_fuzz_cmd {
	__u32 op;
	__u32 len;
	__u32 arg[6];
};

struct siw2_fuzz_rep {
	__u32 state;		/* the QP's state, enum ib_qp_state numbering */
	__u32 closed;		/* the connection has ended (Terminate, close) */
	__u32 len;		/* octets of output that follow */
	__u32 more;		/* output left for the next read() */
};

#endif /* SIW2_FUZZ_H */
