// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mpi_check: a small MPI program whose results are checked (case 90).
 *
 * Point to point: rank 0 sends each of a few messages (1 KiB to 1 MiB
 * of a pattern that depends on the message and the octet) to rank 1,
 * which checks every octet and sends it back with each octet
 * incremented; rank 0 checks what returns. Then MPI_Allreduce of a
 * vector of 64 Ki longs (element i of rank r is i * (r + 1)) over all
 * ranks, checked on every rank. Prints "MPI_CHECK OK ranks N" on rank 0
 * when everything matched; any mismatch aborts with its place.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEC 65536

static unsigned char pattern(int msg, size_t i)
{
	return (unsigned char)(i * 7 + msg * 13 + (i >> 8));
}

static void die(const char *what, int msg, size_t at)
{
	fprintf(stderr, "mpi_check: %s: message %d, octet %zu\n", what, msg, at);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 1024, 65536, 1048576 };
	int rank, n, m;
	unsigned char *buf;
	long *vec, *sum;
	size_t i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (n < 2) {
		fprintf(stderr, "mpi_check: needs 2 ranks or more\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	buf = malloc(1048576);
	vec = malloc(VEC * sizeof(*vec));
	sum = malloc(VEC * sizeof(*sum));
	if (!buf || !vec || !sum)
		die("no memory", -1, 0);

	for (m = 0; m < (int)(sizeof(sizes) / sizeof(sizes[0])); m++) {
		size_t len = sizes[m];

		if (rank == 0) {
			for (i = 0; i < len; i++)
				buf[i] = pattern(m, i);
			MPI_Send(buf, len, MPI_BYTE, 1, m, MPI_COMM_WORLD);
			memset(buf, 0, len);
			MPI_Recv(buf, len, MPI_BYTE, 1, m, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (i = 0; i < len; i++)
				if (buf[i] != (unsigned char)(pattern(m, i) + 1))
					die("rank 0 got back wrong data", m, i);
		} else if (rank == 1) {
			MPI_Recv(buf, len, MPI_BYTE, 0, m, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (i = 0; i < len; i++) {
				if (buf[i] != pattern(m, i))
					die("rank 1 received wrong data", m, i);
				buf[i]++;
			}
			MPI_Send(buf, len, MPI_BYTE, 0, m, MPI_COMM_WORLD);
		}
	}

	for (i = 0; i < VEC; i++)
		vec[i] = (long)i * (rank + 1);
	MPI_Allreduce(vec, sum, VEC, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < VEC; i++)
		if (sum[i] != (long)i * n * (n + 1) / 2)
			die("allreduce sum wrong", -1, i);

	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("MPI_CHECK OK ranks %d\n", n);
	free(buf);
	free(vec);
	free(sum);
	MPI_Finalize();
	return 0;
}
