// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_pmem: register device-DAX persistent memory with an RDMA device.
 *
 *   siw2_pmem -d IBDEV -x /dev/daxN.M [-l LEN] [-o OFFSET]
 *             [--flush persistent|global]
 *
 * Maps LEN bytes (default 2 MiB, or the device's alignment if larger)
 * at OFFSET of the device-DAX character device (MAP_SHARED, the only
 * mapping device DAX allows), writes a pattern into it, and registers it
 * with ibv_reg_mr (local write, remote read and write). Does the same
 * with as much anonymous RAM. For both it prints the MR's keys and the
 * physical facts the guest can learn as root: the page frames behind the
 * first and last page (/proc/self/pagemap) and the chain of /proc/iomem
 * resources holding them. For the DAX device it also prints its sysfs
 * size, alignment and physical start.
 *
 * It fails (exit 1) when a registration fails, when the pattern does not
 * read back, when a DAX page lies outside the device's physical range or
 * outside a "Persistent Memory" resource, or when a RAM page lies inside
 * one. Last line: "PMEM OK" or "PMEM FAIL: reason". Exit 2: usage or
 * setup error (no device, cannot map).
 *
 * --flush persistent|global also registers both buffers with the kernel's
 * IB_UVERBS_ACCESS_FLUSH_PERSISTENT (1 << 9) or _GLOBAL (1 << 8) access
 * bit, which rdma-core 44 does not name, and reports each result as
 * "flush-KIND pmem|ram: ok lkey .. rkey .." or "... : errno N NAME
 * (text)". These lines are reports for the calling script to judge; they
 * do not change the exit status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <infiniband/verbs.h>

/* The kernel's uAPI bits (ib_user_ioctl_verbs.h, Linux 6.2 and later). */
#define SIW2_ACCESS_FLUSH_GLOBAL	(1U << 8)
#define SIW2_ACCESS_FLUSH_PERSISTENT	(1U << 9)
#ifdef IBV_ACCESS_FLUSH_GLOBAL
_Static_assert(IBV_ACCESS_FLUSH_GLOBAL == SIW2_ACCESS_FLUSH_GLOBAL &&
	       IBV_ACCESS_FLUSH_PERSISTENT == SIW2_ACCESS_FLUSH_PERSISTENT,
	       "libibverbs' flush access bits differ from the kernel's");
#endif

#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)

static const char *opt_dev;
static const char *opt_dax;
static size_t opt_len;
static off_t opt_off;
static unsigned int opt_flush;
static const char *opt_flush_name;
static bool failed;

static void usage(const char *prog)
{
	fprintf(stderr,
		"Usage: %s -d IBDEV -x /dev/daxN.M [-l LEN] [-o OFFSET] [--flush persistent|global]\n",
		prog);
	exit(2);
}

static void check(bool ok, const char *what)
{
	if (!ok) {
		printf("FAIL: %s\n", what);
		failed = true;
	}
}

static unsigned long long parse_size(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (*end && strchr("kKmMgG", *end)) {
		v <<= *end == 'k' || *end == 'K' ? 10 :
		      *end == 'm' || *end == 'M' ? 20 : 30;
		end++;
	}
	if (*end || end == s) {
		fprintf(stderr, "bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "dax", required_argument, NULL, 'x' },
		{ "len", required_argument, NULL, 'l' },
		{ "offset", required_argument, NULL, 'o' },
		{ "flush", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:x:l:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			opt_dev = optarg;
			break;
		case 'x':
			opt_dax = optarg;
			break;
		case 'l':
			opt_len = parse_size(optarg, "length");
			break;
		case 'o':
			opt_off = parse_size(optarg, "offset");
			break;
		case 'f':
			opt_flush_name = optarg;
			if (!strcmp(optarg, "persistent"))
				opt_flush = SIW2_ACCESS_FLUSH_PERSISTENT;
			else if (!strcmp(optarg, "global"))
				opt_flush = SIW2_ACCESS_FLUSH_GLOBAL;
			else
				usage(argv[0]);
			break;
		default:
			usage(argv[0]);
		}
	}
	if (!opt_dev || !opt_dax || optind != argc)
		usage(argv[0]);
}

/* One number from a sysfs attribute of the DAX device; 0 if unreadable. */
static unsigned long long dax_attr(dev_t rdev, const char *attr)
{
	char path[128];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/%s",
		 major(rdev), minor(rdev), attr);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lli", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Physical address behind @va, or 0 when pagemap hides it (not root). */
static uint64_t phys_of(const void *va)
{
	long psz = sysconf(_SC_PAGESIZE);
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, sizeof(e), (uintptr_t)va / psz * sizeof(e)) !=
	    (ssize_t)sizeof(e))
		e = 0;
	close(fd);
	if (!(e & PM_PRESENT) || !(e & PM_PFN_MASK))
		return 0;
	return (e & PM_PFN_MASK) * psz + (uintptr_t)va % psz;
}

/*
 * The /proc/iomem resources holding @pa, outermost first, joined with
 * " > " into @buf (nesting is two spaces of indentation per level).
 */
static void iomem_chain(uint64_t pa, char *buf, size_t size)
{
	char line[256], names[8][64];
	int depth, n = 0, i;
	size_t used = 0;
	FILE *f = fopen("/proc/iomem", "r");

	buf[0] = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		char name[64];

		depth = strspn(line, " ") / 2;
		if (depth >= 8 || depth > n ||
		    sscanf(line, " %llx-%llx : %63[^\n]", &lo, &hi, name) != 3)
			continue;
		if (lo <= pa && pa <= hi) {
			snprintf(names[depth], sizeof(names[depth]), "%s", name);
			n = depth + 1;
		}
	}
	fclose(f);
	for (i = 0; i < n && used < size; i++)
		used += snprintf(buf + used, size - used, "%s%s",
				 i ? " > " : "", names[i]);
}

/*
 * Print where the page at @va lives physically. A persistent-memory page
 * (@lo, @len: the physical range it must lie in, none when @len is 0) must
 * be in a Persistent Memory resource; a RAM page in none and not in
 * [@lo, @lo + @len).
 */
static void page_facts(const char *what, bool pmem, const void *va,
		       uint64_t lo, uint64_t len)
{
	uint64_t pa = phys_of(va);
	bool in_pm, in_range;
	char chain[256];

	if (!pa) {
		printf("page %s: va %p phys unknown (pagemap shows no frame: not root?)\n",
		       what, va);
		return;
	}
	iomem_chain(pa, chain, sizeof(chain));
	in_pm = strstr(chain, "Persistent Memory");
	in_range = len && pa >= lo && pa < lo + len;
	printf("page %s: va %p phys %#" PRIx64 " in [%s]\n", what, va, pa,
	       chain);
	if (pmem) {
		check(in_pm, "pmem page outside every Persistent Memory resource");
		check(!len || in_range,
		      "pmem page not where the DAX device's range and the offset put it");
	} else {
		check(!in_pm && !in_range, "ram page inside persistent memory");
	}
}

static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fprintf(stderr, "cannot open RDMA device %s\n", name);
	return ctx;
}

/* Register @len bytes at @addr; print and return the MR (NULL: failed). */
static struct ibv_mr *reg(struct ibv_pd *pd, void *addr, size_t len,
			  unsigned int access, const char *label)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, addr, len, access);
	int err = errno;

	if (mr)
		printf("%s: ok lkey %#x rkey %#x len %zu access %#x\n", label,
		       mr->lkey, mr->rkey, len, access);
	else
		printf("%s: errno %d %s (%s) access %#x\n", label, err,
		       strerrorname_np(err) ?: "?", strerror(err), access);
	return mr;
}

static bool pattern_ok(const unsigned char *p, size_t len, unsigned char seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (unsigned char)(seed + i * 7))
			return false;
	return true;
}

static void fill(unsigned char *p, size_t len, unsigned char seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seed + i * 7;
}

int main(int argc, char **argv)
{
	const unsigned int access = IBV_ACCESS_LOCAL_WRITE |
		IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	unsigned long long size, align, start;
	long psz = sysconf(_SC_PAGESIZE);
	struct ibv_mr *mr_pm, *mr_ram, *fm;
	struct ibv_context *ctx;
	unsigned char *pm, *ram;
	struct ibv_pd *pd;
	char label[64];
	struct stat st;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);

	fd = open(opt_dax, O_RDWR);
	if (fd < 0 || fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		fprintf(stderr, "%s: %s\n", opt_dax,
			fd < 0 ? strerror(errno) : "not a character device");
		return 2;
	}
	size = dax_attr(st.st_rdev, "size");
	align = dax_attr(st.st_rdev, "align");
	start = dax_attr(st.st_rdev, "resource");	/* root only */
	printf("dax %s: rdev %u:%u size %llu align %llu phys_start %#llx\n",
	       opt_dax, major(st.st_rdev), minor(st.st_rdev), size, align,
	       start);
	if (!opt_len)
		opt_len = align > 2UL << 20 ? align : 2UL << 20;
	if (size && (unsigned long long)opt_off + opt_len > size) {
		fprintf(stderr, "offset %lld + length %zu beyond the device's %llu bytes\n",
			(long long)opt_off, opt_len, size);
		return 2;
	}
	/* Device DAX refuses private and unaligned mappings (EINVAL). */
	pm = mmap(NULL, opt_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  opt_off);
	if (pm == MAP_FAILED) {
		fprintf(stderr, "mmap %s len %zu offset %lld (align %llu): %s\n",
			opt_dax, opt_len, (long long)opt_off, align,
			strerror(errno));
		return 2;
	}
	ram = mmap(NULL, opt_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ram == MAP_FAILED) {
		perror("mmap anonymous");
		return 2;
	}
	printf("map pmem: va %p len %zu offset %lld\n", pm, opt_len,
	       (long long)opt_off);
	fill(pm, opt_len, 0x5a);
	fill(ram, opt_len, 0xa5);

	/*
	 * A static (NVDIMM) DAX device is one physical range, so the mapping
	 * at OFFSET must be exactly [start + OFFSET, + LEN).
	 */
	page_facts("pmem first", true, pm, start + opt_off,
		   start ? opt_len : 0);
	page_facts("pmem last", true, pm + opt_len - psz, start + opt_off,
		   start ? opt_len : 0);
	page_facts("ram first", false, ram, start, start ? size : 0);

	ctx = open_named(opt_dev);
	if (!ctx)
		return 2;
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		perror("ibv_alloc_pd");
		return 2;
	}
	mr_pm = reg(pd, pm, opt_len, access, "mr pmem");
	mr_ram = reg(pd, ram, opt_len, access, "mr ram");
	check(mr_pm, "registering the DAX mapping failed");
	check(mr_ram, "registering anonymous RAM failed");
	check(pattern_ok(pm, opt_len, 0x5a), "pmem pattern changed by registration");
	check(pattern_ok(ram, opt_len, 0xa5), "ram pattern changed by registration");

	if (opt_flush) {
		snprintf(label, sizeof(label), "flush-%s pmem", opt_flush_name);
		fm = reg(pd, pm, opt_len, access | opt_flush, label);
		if (fm && ibv_dereg_mr(fm))
			check(false, "deregistering a flush MR failed");
		snprintf(label, sizeof(label), "flush-%s ram", opt_flush_name);
		fm = reg(pd, ram, opt_len, access | opt_flush, label);
		if (fm && ibv_dereg_mr(fm))
			check(false, "deregistering a flush MR failed");
	}

	if (mr_pm && ibv_dereg_mr(mr_pm))
		check(false, "ibv_dereg_mr pmem failed");
	if (mr_ram && ibv_dereg_mr(mr_ram))
		check(false, "ibv_dereg_mr ram failed");
	if (ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		check(false, "releasing the PD or the device failed");
	munmap(pm, opt_len);
	munmap(ram, opt_len);
	close(fd);
	printf(failed ? "PMEM FAIL: see FAIL lines\n" : "PMEM OK\n");
	return failed;
}
