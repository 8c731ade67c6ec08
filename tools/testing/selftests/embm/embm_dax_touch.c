// SPDX-License-Identifier: GPL-2.0
/*
 * embm_dax_touch DEV SIZE: map SIZE bytes (K, M suffixes) of a device
 * DAX character device, shared, write a byte to every 4 KiB page, and
 * print "faults N": the minor page faults the writes took (getrusage),
 * the ground truth of the swfault source for a devdax mapping, whose
 * faults map a whole alignment unit (2 MiB by default) each.  The stores
 * stay: munmap() may read what they wrote, as far as the compiler knows.
 * A helper of embm_cxl_test.sh, not a test of its own.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static long minflt(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_minflt;
}

int main(int argc, char **argv)
{
	unsigned long long size;
	char *p;
	long before, after;
	char *end;
	size_t off;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: embm_dax_touch DEV SIZE\n");
		return 2;
	}
	size = strtoull(argv[2], &end, 0);
	if (*end && strchr("KkMm", *end)) {
		size <<= (*end == 'K' || *end == 'k') ? 10 : 20;
		end++;
	}
	if (*end || !size) {
		fprintf(stderr, "embm_dax_touch: bad size %s\n", argv[2]);
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	before = minflt();
	for (off = 0; off < size; off += 4096)
		p[off] = 1;
	after = minflt();
	printf("faults %ld\n", after - before);
	munmap(p, size);
	close(fd);
	return before < 0 || after < 0;
}
