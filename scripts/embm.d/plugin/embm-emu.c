// SPDX-License-Identifier: GPL-2.0
/*
 * embm-emu: a QEMU TCG plugin (system mode, x86_64 guests) that emulates a
 * precise-sampling PMU and counts memory accesses exactly, for embm's
 * guest driver (arch/x86/events/embm_emu.c) and tests.
 *
 * It shares a memory file with the guest, which sees it as BAR 2 of an
 * ivshmem-plain device; the layout is include/uapi/linux/embm_emu.h:
 *
 *   qemu-system-x86_64 ... \
 *     -object memory-backend-file,id=embmemu,share=on,mem-path=PATH,size=S \
 *     -device ivshmem-plain,memdev=embmemu \
 *     -plugin embm-emu.so,shm=PATH[,ARG=VALUE...]
 *
 * Arguments (ns values are a model, not a measurement):
 *   shm=PATH          the memory file (required); at least the layout's size
 *   ring=N            records per vCPU ring, a power of two (default 4096)
 *   pages=N           room in the watched page list (default 16384)
 *   oracle=on|off     count every access exactly from boot (default off)
 *   out=FILE          write the oracle's counts to FILE at exit
 *   lat_l1=NS[:SD] lat_l2 lat_l3 lat_local lat_remote lat_far lat_cxl
 *                     the latency model per data source (lat_model below)
 *   mhz=N             the modelled core clock, for cycles (default 3000)
 *   seed=N            seed of the random draws (default 1)
 *   cache=on|off      a small cache model says L1/L2/L3 hits (default off)
 *   verbose=on|off    log the registers and every change (-d plugin)
 *   corrupt=N         a hostile device, for the guest driver's tests: about
 *                     every N-th record written (0: never, the default),
 *                     corrupt the record, the ring or the slot in one of
 *                     the ways of corrupt_kinds[] below, in turn; counted
 *                     and printed at exit (and to out=), and said by
 *                     EMBM_EMU_FEAT_CORRUPT
 *
 * Doorbell: the guest's CPUID instruction.  While no slot is on and no
 * oracle counts (mode 0), only CPUID and "mov reg, %cr3" are instrumented.
 * The guest has two writers of what it wants, the kernel's driver
 * (drv_want) and a user-space tool (want): the plugin instruments for
 * both, ORed.
 *
 * User or kernel mode: the CPL, the low bits of CS, read once when a block
 * is translated.  QEMU's x86 translation blocks are per CPL (it is in the
 * hflags that key them), so every access of a block has the CPL of its
 * translation; that costs nothing per access.  Without a readable CS, the
 * instruction pointer's half says it (EMBM_EMU_FEAT_CPL is then clear).
 * A change of mode re-translates every block with qemu_plugin_reset(),
 * whose callback runs with every vCPU stopped; there the new guest fields
 * are taken and the callbacks registered again.
 *
 * Each vCPU's state is touched by its own thread only (MTTCG runs a thread
 * per vCPU), except the address-space table, assigned under space_lock,
 * and the configuration, changed while every vCPU is stopped (or while no
 * memory callback exists, under cfg_lock).  Everything in the shared
 * memory can be written by the guest at any time: it is checked or kept in
 * a private copy, never trusted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/embm_emu.h>

#include "qemu-plugin-api.h"

__attribute__((visibility("default")))
int qemu_plugin_version = EMBM_QEMU_PLUGIN_VERSION;

/*
 * The latency model, in nanoseconds: mean and standard deviation (-1: a
 * tenth of the mean) of each data source, as the records' @latency and
 * embm_emu_header.lat report them (in cycles at mhz=, 3 GHz by default:
 * the fixed clock of the Sapphire Rapids measured in [C&C]).  Each can be
 * set with its argument.  The means are idle load-to-use latencies
 * published for the servers embm is for; the spread is modelled, not
 * published.  Sources (Documentation/admin-guide/mm/embm.rst, "The
 * emulated source", has the full list):
 *   local 115	Xeon Platinum 8480+ (SPR), DDR5-4800, unloaded: 115.0-117.2
 *		ns (Mess benchmark results, bsc-mem/Mess-Results, MN5-GPP)
 *   remote 200	2x EPYC 9224 (Genoa), Intel MLC idle latency to the other
 *		socket's DRAM: 199.0-200.7 ns (no Intel remote-socket DRAM
 *		figure was found)
 *   far 200	a memory-only node that is not CXL: as remote DRAM
 *   cxl 250	Melody (ASPLOS'25): CXL memory 214-394 ns on SPR/EMR hosts,
 *		214-271 ns for the locally attached ASIC expanders
 *   L1 2, L2 5, L3 33: SPR's 5 and 16 cycles and ~33 ns ([C&C]: Chips
 *		and Cheese, "Sapphire Rapids: Golden Cove Hits Servers")
 */
static struct {
	const char *arg;
	unsigned int ns;
	int sd_ns;
} lat_model[EMBM_EMU_SRC_NR] = {
	[EMBM_EMU_SRC_L1]	= { "lat_l1",		2,	-1 },
	[EMBM_EMU_SRC_L2]	= { "lat_l2",		5,	-1 },
	[EMBM_EMU_SRC_L3]	= { "lat_l3",		33,	-1 },
	[EMBM_EMU_SRC_LOCAL]	= { "lat_local",	115,	-1 },
	[EMBM_EMU_SRC_REMOTE]	= { "lat_remote",	200,	-1 },
	[EMBM_EMU_SRC_FAR]	= { "lat_far",		200,	-1 },
	[EMBM_EMU_SRC_CXL]	= { "lat_cxl",		250,	-1 },
	[EMBM_EMU_SRC_OTHER]	= { NULL,		0,	0 },	/* MMIO: no model */
};

#define USER_TOP	0x0000800000000000ULL	/* below: user addresses */
#define MAX_NODE	1024			/* MAX_NUMNODES of x86 */
#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define SLOT_BITS	((1U << EMBM_EMU_SLOTS) - 1)

/* The cache model (cache=on): per vCPU, set-associative, LRU by age. */
#define CL_SHIFT	6
struct cache_level {
	unsigned int sets, ways;	/* sets: a power of two */
	uint64_t *tag;			/* [sets * ways]: line + 1, 0 empty */
	uint8_t *age;
};

struct cfg_range {
	uint64_t start, end;
	uint32_t node, kind;
	uint32_t idx;			/* index in the guest's list */
};

/* What the guest asked for, as taken and checked */
struct cfg {
	uint32_t want;
	uint32_t nr_ranges;
	struct cfg_range range[EMBM_EMU_MAX_RANGES];	/* by start */
	int32_t cpu_node[EMBM_EMU_MAX_CPUS];
	uint32_t nr_pages;
	uint64_t *pages;		/* [max_pages], ascending */
};

/*
 * What a corruption does, in turn; each is something a driver that trusts
 * the shared memory would trip over.  The record is the one just written
 * (the guest has not run since), the ring the vCPU's, the slot any slot
 * that is on (a counting one too), else the one that wrote the record.
 */
enum {
	CORRUPT_RECORD,		/* random bytes in the whole record */
	CORRUPT_SLOT,		/* the record's slot index another slot's */
	CORRUPT_INFO,		/* load/store and user/kernel flipped, unknown bits */
	CORRUPT_SRC,		/* src past EMBM_EMU_SRC_NR */
	CORRUPT_NODE,		/* node out of range: huge, below -1 */
	CORRUPT_SIZE,		/* size_shift past 3 */
	CORRUPT_ADDR,		/* phys, vaddr and ip garbage */
	CORRUPT_HEAD_AHEAD,	/* head more than a ring ahead of the tail */
	CORRUPT_HEAD_BACK,	/* head behind the tail */
	CORRUPT_LOST_DOWN,	/* lost decreasing */
	CORRUPT_LOST_HUGE,	/* lost jumping by 2^32 or more */
	CORRUPT_COUNT_BACK,	/* a slot's count going backwards */
	CORRUPT_LEFT,		/* a slot's left garbage */
	CORRUPT_BELL,		/* bell and bell_as garbage */
	CORRUPT_NR
};

static const char *const corrupt_kinds[CORRUPT_NR] = {
	[CORRUPT_RECORD]	= "record",
	[CORRUPT_SLOT]		= "slot",
	[CORRUPT_INFO]		= "info",
	[CORRUPT_SRC]		= "src",
	[CORRUPT_NODE]		= "node",
	[CORRUPT_SIZE]		= "size_shift",
	[CORRUPT_ADDR]		= "addr",
	[CORRUPT_HEAD_AHEAD]	= "head_ahead",
	[CORRUPT_HEAD_BACK]	= "head_back",
	[CORRUPT_LOST_DOWN]	= "lost_down",
	[CORRUPT_LOST_HUGE]	= "lost_huge",
	[CORRUPT_COUNT_BACK]	= "count_back",
	[CORRUPT_LEFT]		= "left",
	[CORRUPT_BELL]		= "bell",
};

struct vcpu {
	/* private */
	uint64_t as_key;		/* CR3 without PCID/PTI bits */
	uint64_t task;			/* the guest's cpu->task as last seen */
	int space;			/* index in space_key, -1: look up */
	uint32_t last_range;		/* sorted index of the last hit */
	uint64_t rng;			/* xorshift64 state */
	uint64_t records, lost, bells;
	uint64_t corrupt_due;		/* records until the next corruption */
	uint64_t corrupt_rng;		/* its own xorshift64: the sampling's
					 * draws stay those of corrupt=0 */
	unsigned int corrupt_next;	/* the kind of the next one */
	uint64_t corrupted[CORRUPT_NR];	/* per kind */
	GByteArray *buf;		/* register reads */
	struct cache_level cache[3];
	/* in the shared memory */
	struct embm_emu_cpu *cpu;
	struct embm_emu_record *ring;
	struct embm_emu_oracle *oracle;
	struct embm_emu_space *spaces;
	uint64_t *page_count;		/* [max_pages][2] */
} __attribute__((aligned(64)));

static qemu_plugin_id_t plugin_id;
static unsigned int nr_cpus;
static struct vcpu vcpus[EMBM_EMU_MAX_CPUS];
static struct embm_emu_header *hdr;
static struct embm_emu_header lay;	/* the offsets, as laid out: the guest
					 * can overwrite hdr's */
static uint32_t features;		/* EMBM_EMU_FEAT_*, as published */
static uint8_t *shm;
static uint64_t shm_size;
static unsigned int ring_records = 4096, max_pages = 16384, mhz = 3000;
static uint64_t seed = 1;
static uint64_t corrupt_every;		/* corrupt=N; 0: never */
static bool host_oracle, cache_on, verbose;
static const char *out_path;
static struct embm_emu_lat lat_cycles[EMBM_EMU_SRC_NR];

/* Registers, found at the first vCPU's init (NULL: not readable) */
static struct qemu_plugin_register *reg_cr3, *reg_cs, *reg_gpr[16];
static pthread_once_t regs_once = PTHREAD_ONCE_INIT;
/* CS reads that failed at translation: those blocks went by the IP's half */
static uint64_t cpl_unknown;

static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t space_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cfg cur, next;		/* in force; taken, for the reset */
static uint32_t mode;			/* EMBM_EMU_MODE_* instrumented now */
static uint64_t gen_seen, pending_gen;
static bool reset_pending;
static uint64_t resets, bells_total;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	qemu_plugin_outs(buf);
}

static inline uint64_t as_key(uint64_t cr3)
{
	return cr3 & ~(0x1fffULL | (1ULL << 63));
}

static inline uint64_t xorshift(struct vcpu *v)
{
	uint64_t x = v->rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	v->rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Read a register of the current vCPU into @buf as a little-endian number, or 0. */
static uint64_t read_reg_buf(GByteArray *buf, struct qemu_plugin_register *r, bool *ok)
{
	uint64_t val = 0;
	int n;

	*ok = false;
	if (!r || !buf)
		return 0;
	g_byte_array_set_size(buf, 0);
	n = qemu_plugin_read_register(r, buf);
	if (n <= 0 || buf->len < (unsigned int)n)
		return 0;
	if (n > 8)
		n = 8;
	memcpy(&val, buf->data, n);
	*ok = true;
	return val;
}

static uint64_t read_reg(struct vcpu *v, struct qemu_plugin_register *r, bool *ok)
{
	return read_reg_buf(v->buf, r, ok);
}

/* ---- the latency and cache models ---- */

static uint32_t draw_latency(struct vcpu *v, unsigned int src)
{
	const struct embm_emu_lat *l = &lat_cycles[src];
	double z = 0;
	int i;

	if (!l->sd)
		return l->mean;
	/* Irwin-Hall of four uniforms: mean 2, variance 1/3 */
	for (i = 0; i < 4; i++)
		z += (double)(xorshift(v) >> 11) / (double)(1ULL << 53);
	z = (z - 2.0) * 1.7320508;
	z = l->mean + z * l->sd;
	return z < 1 ? 1 : (uint32_t)z;
}

static const unsigned int cache_geom[3][2] = {	/* sets, ways of 64 B lines */
	{ 64, 8 },		/* L1: 32 KiB */
	{ 2048, 8 },		/* L2: 1 MiB */
	{ 8192, 16 },		/* L3: 8 MiB, this vCPU's share */
};

static int cache_alloc(struct vcpu *v)
{
	int l;

	for (l = 0; l < 3; l++) {
		struct cache_level *c = &v->cache[l];
		size_t n = (size_t)cache_geom[l][0] * cache_geom[l][1];

		c->sets = cache_geom[l][0];
		c->ways = cache_geom[l][1];
		c->tag = calloc(n, sizeof(*c->tag));
		c->age = calloc(n, 1);
		if (!c->tag || !c->age)
			return -1;
	}
	return 0;
}

/* Touch a line at one level; true if it was there. */
static bool cache_touch(struct cache_level *c, uint64_t line)
{
	unsigned int set = line & (c->sets - 1), w, victim = 0;
	uint64_t *tag = &c->tag[(size_t)set * c->ways];
	uint8_t *age = &c->age[(size_t)set * c->ways];
	bool hit = false;

	for (w = 0; w < c->ways; w++) {
		if (tag[w] == line + 1) {
			hit = true;
			victim = w;
			break;
		}
		if (age[w] > age[victim])
			victim = w;
	}
	for (w = 0; w < c->ways; w++)
		if (age[w] < 255)
			age[w]++;
	tag[victim] = line + 1;
	age[victim] = 0;
	return hit;
}

/* The level that served an access: 0-2 for L1-L3, 3 for memory. */
static int cache_access(struct vcpu *v, uint64_t phys)
{
	uint64_t line = phys >> CL_SHIFT;
	int l, hit = 3;

	for (l = 0; l < 3; l++) {
		if (cache_touch(&v->cache[l], line)) {
			hit = l;
			break;
		}
	}
	/* fill the levels above the one that hit */
	for (l = l - 1; l >= 0 && hit < 3; l--)
		cache_touch(&v->cache[l], line);
	return hit;
}

/* ---- ranges, spaces, pages ---- */

/* The sorted index of the range holding @phys, or -1. */
static int range_find(struct vcpu *v, uint64_t phys)
{
	const struct cfg_range *r = cur.range;
	uint32_t n = cur.nr_ranges, lo = 0, hi = n, l = v->last_range;

	if (l < n && phys >= r[l].start && phys < r[l].end)
		return l;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (phys < r[mid].start)
			hi = mid;
		else if (phys >= r[mid].end)
			lo = mid + 1;
		else {
			v->last_range = mid;
			return mid;
		}
	}
	return -1;
}

/* The oracle's index of the vCPU's address space: found, or assigned. */
static int space_index(struct vcpu *v)
{
	uint64_t key = v->task ? v->task : v->as_key;
	int i, free_i = -1;

	if (v->space >= 0)
		return v->space;
	if (!key)
		return v->space = EMBM_EMU_OTHER_SPACE;
	for (i = 0; i < EMBM_EMU_OTHER_SPACE; i++)
		if (__atomic_load_n(&hdr->space_key[i], __ATOMIC_ACQUIRE) == key)
			return v->space = i;
	pthread_mutex_lock(&space_lock);
	for (i = 0; i < EMBM_EMU_OTHER_SPACE; i++) {
		uint64_t k = hdr->space_key[i];

		if (k == key)
			break;
		if (!k && free_i < 0)
			free_i = i;
	}
	if (i == EMBM_EMU_OTHER_SPACE) {
		i = free_i < 0 ? EMBM_EMU_OTHER_SPACE : free_i;
		if (free_i >= 0)
			__atomic_store_n(&hdr->space_key[i], key, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&space_lock);
	return v->space = i;
}

/* The index of @pfn in the watched list, or -1. */
static long page_find(uint64_t pfn)
{
	const uint64_t *p = cur.pages;
	uint32_t lo = 0, hi = cur.nr_pages;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (pfn < p[mid])
			hi = mid;
		else if (pfn > p[mid])
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

/* ---- the memory callbacks ---- */

static void oracle_count(struct vcpu *v, int ri, uint64_t phys, bool have_phys,
			 bool user, bool store)
{
	uint32_t idx = ri < 0 ? EMBM_EMU_NO_RANGE : cur.range[ri].idx;
	uint64_t task = __atomic_load_n(&v->cpu->task, __ATOMIC_RELAXED);
	int k = user ? 0 : 1, s;

	/* The guest's task tag, where it writes one, keys the spaces. */
	if (task != v->task) {
		v->task = task;
		v->space = -1;
	}
	s = space_index(v);

	v->oracle->acc[idx][k][store]++;
	v->spaces->acc[s][idx][k][store]++;
	if (cur.nr_pages && have_phys) {
		long p = page_find(phys >> 12);

		if (p >= 0)
			v->page_count[p * 2 + store]++;
	}
}

static uint64_t next_interval(struct vcpu *v, uint64_t period, uint32_t ctl)
{
	if (!period)
		period = 1;
	if ((ctl & EMBM_EMU_SLOT_RANDOM) && period > 1)
		period = period / 2 + xorshift(v) % period;
	if (period > INT64_MAX)
		period = INT64_MAX;
	return period ? period : 1;
}

/* Write a record to the vCPU's ring; false if it was full (lost). */
static bool sample(struct vcpu *v, unsigned int slot, uint64_t count,
		   qemu_plugin_meminfo_t info, uint64_t vaddr, uint64_t ip, bool user,
		   bool store, uint64_t phys, bool have_phys, bool io, int ri, int lvl)
{
	struct embm_emu_cpu *c = v->cpu;
	uint64_t head = c->head, tail = c->tail;
	struct embm_emu_record *r;
	unsigned int src = EMBM_EMU_SRC_OTHER;
	int32_t node = -1;

	if (head - tail >= ring_records) {
		c->lost++;
		v->lost++;
		return false;
	}
	if (ri >= 0) {
		const struct cfg_range *rg = &cur.range[ri];
		unsigned int vi = v - vcpus;

		node = rg->node;
		if (rg->kind == EMBM_EMU_KIND_CXL)
			src = EMBM_EMU_SRC_CXL;
		else if (rg->kind == EMBM_EMU_KIND_FAR)
			src = EMBM_EMU_SRC_FAR;
		else if (cur.cpu_node[vi] == (int32_t)rg->node)
			src = EMBM_EMU_SRC_LOCAL;
		else
			src = EMBM_EMU_SRC_REMOTE;
	}
	if (lvl < 3)
		src = EMBM_EMU_SRC_L1 + lvl;
	r = &v->ring[head & (ring_records - 1)];
	r->phys = have_phys ? phys : 0;
	r->vaddr = vaddr;
	r->ip = ip;
	r->as = v->as_key;
	r->count = count;
	r->latency = draw_latency(v, src);
	r->info = slot | (store ? EMBM_EMU_REC_STORE : 0) |
		  (user ? EMBM_EMU_REC_USER : 0) |
		  (io ? EMBM_EMU_REC_IO : 0);
	r->size_shift = qemu_plugin_mem_size_shift(info);
	r->src = src;
	r->node = node;
	r->pad = 0;
	r->reserved = 0;
	__atomic_store_n(&c->head, head + 1, __ATOMIC_RELEASE);
	v->records++;
	return true;
}

/* ---- corrupt=N: a hostile device ---- */

static uint64_t corrupt_rand(struct vcpu *v)
{
	uint64_t x = v->corrupt_rng;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	v->corrupt_rng = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Records until the next corruption: from [N/2, 3N/2), at least 1. */
static uint64_t corrupt_interval(struct vcpu *v)
{
	uint64_t n = corrupt_every / 2 + corrupt_rand(v) % corrupt_every;

	return n ? n : 1;
}

/* An address no valid access has, or one of a plausible kind: garbage. */
static uint64_t corrupt_addr(struct vcpu *v)
{
	uint64_t r = corrupt_rand(v);

	switch (corrupt_rand(v) % 6) {
	case 0:	 return r;					/* anything */
	case 1:	 return (r | (1ULL << 63)) & ~(0xffffULL << 47);	/* non-canonical */
	case 2:	 return 0;
	case 3:	 return ~0ULL;
	case 4:	 return 0xffffffff80000000ULL + (r & 0x7fffffff);	/* kernel text */
	default: return r & (USER_TOP - 1);				/* user */
	}
}

/* A slot that is on, at random; @slot if none is. */
static unsigned int corrupt_slot(struct vcpu *v, unsigned int slot)
{
	uint32_t on = v->cpu->active & SLOT_BITS;
	unsigned int n = __builtin_popcount(on), k;

	if (!n)
		return slot;
	for (k = corrupt_rand(v) % n; k; k--)
		on &= on - 1;
	return __builtin_ctz(on);
}

static void corrupt_one(struct vcpu *v, unsigned int slot, unsigned int kind)
{
	static const int32_t bad_node[] = {
		MAX_NODE, MAX_NODE - 1, 64, INT32_MAX, INT32_MIN, -2, -1000,
	};
	struct embm_emu_cpu *c = v->cpu;
	struct embm_emu_slot *sl = &c->slot[corrupt_slot(v, slot)];
	uint64_t head = c->head, x = corrupt_rand(v), *w;
	struct embm_emu_record *r = &v->ring[(head - 1) & (ring_records - 1)];
	unsigned int i;

	switch (kind) {
	case CORRUPT_RECORD:
		w = (uint64_t *)r;
		for (i = 0; i < sizeof(*r) / sizeof(*w); i++)
			w[i] = corrupt_rand(v);
		break;
	case CORRUPT_SLOT:
		r->info = (r->info & ~EMBM_EMU_REC_SLOT_MASK) |
			  ((slot + 1 + x % (EMBM_EMU_SLOTS - 1)) & EMBM_EMU_REC_SLOT_MASK);
		break;
	case CORRUPT_INFO:
		/* a load a store, user kernel, or both; unknown bits too */
		r->info ^= x % 3 == 0 ? EMBM_EMU_REC_STORE :
			   x % 3 == 1 ? EMBM_EMU_REC_USER :
					EMBM_EMU_REC_STORE | EMBM_EMU_REC_USER;
		r->info |= (x >> 8) & 0xffe0;
		break;
	case CORRUPT_SRC:
		r->src = EMBM_EMU_SRC_NR + x % (256 - EMBM_EMU_SRC_NR);
		break;
	case CORRUPT_NODE:
		r->node = x % 4 ? bad_node[x % (sizeof(bad_node) / sizeof(bad_node[0]))] :
				  (int32_t)(x >> 32);
		break;
	case CORRUPT_SIZE:
		r->size_shift = 4 + x % 252;
		break;
	case CORRUPT_ADDR:
		r->phys = corrupt_addr(v);
		r->vaddr = corrupt_addr(v);
		r->ip = corrupt_addr(v);
		break;
	case CORRUPT_HEAD_AHEAD:
		/* a ring and a bit, about 2^31, or 2^40 and more */
		head += (uint64_t)ring_records + 1 +
			(x % 3 == 0 ? (x >> 8) % ring_records :
			 x % 3 == 1 ? (1ULL << 31) + (x >> 8) % (1ULL << 30) :
				      (1ULL << 40) + (x >> 8));
		__atomic_store_n(&c->head, head, __ATOMIC_RELEASE);
		break;
	case CORRUPT_HEAD_BACK:
		head = c->tail - 1 - (x % 2 ? (x >> 8) % (2ULL * ring_records) : x >> 8);
		__atomic_store_n(&c->head, head, __ATOMIC_RELEASE);
		break;
	case CORRUPT_LOST_DOWN:
		c->lost -= 1 + x % 1000;
		break;
	case CORRUPT_LOST_HUGE:
		c->lost += x % 2 ? (1ULL << 32) + (x >> 16) : x;
		break;
	case CORRUPT_COUNT_BACK:
		sl->count = sl->count ? x % sl->count : 0;
		break;
	case CORRUPT_LEFT:
		switch (x % 5) {
		case 0:	 sl->left = INT64_MIN; break;
		case 1:	 sl->left = INT64_MAX; break;
		case 2:	 sl->left = -1 - (int64_t)((x >> 8) % 1000000); break;
		case 3:	 sl->left = 0; break;
		default: sl->left = (int64_t)corrupt_rand(v); break;
		}
		break;
	case CORRUPT_BELL:
		c->bell = corrupt_rand(v);
		c->bell_as = corrupt_rand(v);
		break;
	}
	v->corrupted[kind]++;
}

/* A record was written by @slot: corrupt something, about every N-th. */
static void corrupt_tick(struct vcpu *v, unsigned int slot)
{
	unsigned int kind;

	if (--v->corrupt_due)
		return;
	v->corrupt_due = corrupt_interval(v);
	kind = v->corrupt_next;
	v->corrupt_next = (kind + 1) % CORRUPT_NR;
	corrupt_one(v, slot, kind);
}

static inline void mem_access(unsigned int vi, qemu_plugin_meminfo_t info,
			      uint64_t vaddr, void *udata, bool user,
			      bool do_sample, bool do_oracle)
{
	struct vcpu *v;
	uint64_t ip = (uintptr_t)udata, phys = 0;
	bool store, have_phys = false, io = false;
	uint32_t active = 0, need;
	int ri = -1, lvl = 3;
	unsigned int s;
	int64_t left;
	bool wrote;

	if (vi >= nr_cpus)
		return;
	v = &vcpus[vi];
	if (do_sample)
		active = v->cpu->active & SLOT_BITS;
	if (!active && !do_oracle)
		return;
	store = qemu_plugin_mem_is_store(info);
	if (do_oracle || cache_on) {
		struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

		if (hw) {
			phys = qemu_plugin_hwaddr_phys_addr(hw);
			io = qemu_plugin_hwaddr_is_io(hw);
			have_phys = true;
			ri = range_find(v, phys);
		}
		if (do_oracle)
			oracle_count(v, ri, phys, have_phys, user, store);
		if (cache_on && have_phys && !io)
			lvl = cache_access(v, phys);
	}
	if (!active)
		return;
	need = EMBM_EMU_SLOT_ON | (store ? EMBM_EMU_SLOT_STORE : EMBM_EMU_SLOT_LOAD) |
	       (user ? EMBM_EMU_SLOT_USER : EMBM_EMU_SLOT_KERNEL);
	for (s = 0; s < EMBM_EMU_SLOTS; s++) {
		struct embm_emu_slot *sl = &v->cpu->slot[s];
		uint32_t ctl;

		if (!(active & (1U << s)))
			continue;
		ctl = sl->ctl;
		if ((ctl & need) != need)
			continue;
		sl->count++;
		/* the guest's value: no signed overflow */
		left = (int64_t)((uint64_t)sl->left - 1);
		sl->left = left;
		if (left > 0)
			continue;
		if (!have_phys && !do_oracle && !cache_on) {
			struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

			if (hw) {
				phys = qemu_plugin_hwaddr_phys_addr(hw);
				io = qemu_plugin_hwaddr_is_io(hw);
				have_phys = true;
				ri = range_find(v, phys);
			}
		}
		wrote = sample(v, s, sl->count, info, vaddr, ip, user, store, phys, have_phys,
			       io, ri, lvl);
		sl->left = next_interval(v, sl->period, ctl);
		/* corrupt=N: the only cost it adds when off */
		if (__builtin_expect(corrupt_every != 0, 0) && wrote)
			corrupt_tick(v, s);
	}
}

/* The memory callbacks: what is on, and the mode of the block's accesses. */
#define MEM_CB(name, user, do_sample, do_oracle)				\
static void name(unsigned int vi, qemu_plugin_meminfo_t info,		\
		 uint64_t vaddr, void *udata)					\
{										\
	mem_access(vi, info, vaddr, udata, user, do_sample, do_oracle);	\
}
MEM_CB(mem_sample_k, false, true, false)
MEM_CB(mem_sample_u, true, true, false)
MEM_CB(mem_oracle_k, false, false, true)
MEM_CB(mem_oracle_u, true, false, true)
MEM_CB(mem_both_k, false, true, true)
MEM_CB(mem_both_u, true, true, true)

/* ---- taking the guest's fields ---- */

static int range_cmp(const void *a, const void *b)
{
	const struct cfg_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Copy and check the guest's fields into @c; EMBM_EMU_ERR_*. */
static uint32_t cfg_take(struct cfg *c)
{
	uint32_t i, n;

	uint32_t want = hdr->want, drv_want = hdr->drv_want;

	/* Each writer's own field, read once: the driver's and a tool's. */
	if ((want | drv_want) & ~(EMBM_EMU_MODE_SAMPLE | EMBM_EMU_MODE_ORACLE))
		return EMBM_EMU_ERR_WANT;
	c->want = want | drv_want;
	n = hdr->nr_ranges;
	if (n > EMBM_EMU_MAX_RANGES)
		return EMBM_EMU_ERR_RANGES;
	for (i = 0; i < n; i++) {
		struct cfg_range *r = &c->range[i];

		r->start = hdr->range[i].start;
		r->end = hdr->range[i].end;
		r->node = hdr->range[i].node;
		r->kind = hdr->range[i].kind;
		r->idx = i;
		if (r->start >= r->end || r->kind > EMBM_EMU_KIND_CXL)
			return EMBM_EMU_ERR_RANGES;
		if (r->node >= MAX_NODE)
			return EMBM_EMU_ERR_NODE;
	}
	qsort(c->range, n, sizeof(c->range[0]), range_cmp);
	for (i = 1; i < n; i++)
		if (c->range[i].start < c->range[i - 1].end)
			return EMBM_EMU_ERR_RANGES;
	c->nr_ranges = n;
	for (i = 0; i < EMBM_EMU_MAX_CPUS; i++) {
		uint32_t node = i < nr_cpus ? hdr->cpu_node[i] : 0;

		if (node >= MAX_NODE)
			return EMBM_EMU_ERR_NODE;
		c->cpu_node[i] = node;
	}
	n = hdr->nr_pages;
	if (n > max_pages)
		return EMBM_EMU_ERR_PAGES;
	memcpy(c->pages, shm + lay.page_off, (size_t)n * sizeof(uint64_t));
	for (i = 1; i < n; i++)
		if (c->pages[i] <= c->pages[i - 1])
			return EMBM_EMU_ERR_PAGES;
	c->nr_pages = n;
	return EMBM_EMU_ERR_NONE;
}

/* @c becomes the configuration in force (cfg_lock held; no memory callback
 * runs: every vCPU is stopped, or none is registered). */
static void cfg_apply(struct cfg *c, uint32_t new_mode)
{
	uint64_t *pages = cur.pages;
	unsigned int i;

	if ((new_mode & EMBM_EMU_MODE_ORACLE) && !(mode & EMBM_EMU_MODE_ORACLE)) {
		/* the oracle starts counting: from zero, with no spaces */
		memset(shm + lay.oracle_off, 0,
		       (size_t)nr_cpus * sizeof(struct embm_emu_oracle));
		memset(shm + lay.space_off, 0,
		       (size_t)nr_cpus * sizeof(struct embm_emu_space));
		memset(shm + lay.page_count_off, 0,
		       (size_t)nr_cpus * max_pages * 2 * sizeof(uint64_t));
		memset(hdr->space_key, 0, sizeof(hdr->space_key));
	}
	if (c->nr_pages != cur.nr_pages ||
	    memcmp(c->pages, cur.pages, c->nr_pages * sizeof(uint64_t)))
		memset(shm + lay.page_count_off, 0,
		       (size_t)nr_cpus * max_pages * 2 * sizeof(uint64_t));
	cur = *c;
	cur.pages = pages;
	memcpy(cur.pages, c->pages, (size_t)c->nr_pages * sizeof(uint64_t));
	mode = new_mode;
	for (i = 0; i < nr_cpus; i++) {
		vcpus[i].last_range = 0;
		vcpus[i].space = -1;
	}
	hdr->mode = mode;
}

/* The plugin's header fields, again: a guest may have written over them. */
static void publish_plugin_fields(void)
{
	hdr->version = EMBM_EMU_VERSION;
	hdr->nr_cpus = nr_cpus;
	hdr->size = shm_size;
	hdr->ring_records = ring_records;
	hdr->max_pages = max_pages;
	hdr->cpu_off = lay.cpu_off;
	hdr->ring_off = lay.ring_off;
	hdr->oracle_off = lay.oracle_off;
	hdr->space_off = lay.space_off;
	hdr->page_off = lay.page_off;
	hdr->page_count_off = lay.page_count_off;
	hdr->features = features;
	hdr->mode = mode;
	hdr->cpu_mhz = mhz;
	hdr->resets = resets;
	memcpy(hdr->lat, lat_cycles, sizeof(hdr->lat));
}

static void publish_gen(uint64_t gen, uint32_t err)
{
	publish_plugin_fields();
	hdr->error = err;
	gen_seen = gen;
	__atomic_store_n(&hdr->gen_seen, gen, __ATOMIC_RELEASE);
}

static void register_cbs(void);

/* After qemu_plugin_reset(): every vCPU is stopped, every callback gone. */
static void on_reset(qemu_plugin_id_t id)
{
	(void)id;
	pthread_mutex_lock(&cfg_lock);
	cfg_apply(&next, next.want | (host_oracle ? EMBM_EMU_MODE_ORACLE : 0));
	resets++;
	register_cbs();
	reset_pending = false;
	publish_gen(pending_gen, EMBM_EMU_ERR_NONE);
	if (verbose)
		say("embm-emu: gen %" PRIu64 ": mode %u, %u ranges, %u pages (reset %" PRIu64 ")\n",
		    gen_seen, mode, cur.nr_ranges, cur.nr_pages, resets);
	pthread_mutex_unlock(&cfg_lock);
}

/* A doorbell saw a new gen: take the guest's fields. */
static void take_gen(uint64_t gen)
{
	uint32_t err, new_mode;

	pthread_mutex_lock(&cfg_lock);
	if (reset_pending || gen == gen_seen)
		goto out;
	err = cfg_take(&next);
	if (err) {
		publish_gen(gen, err);
		if (verbose)
			say("embm-emu: gen %" PRIu64 " refused: error %u\n", gen, err);
		goto out;
	}
	new_mode = next.want | (host_oracle ? EMBM_EMU_MODE_ORACLE : 0);
	if (!mode && !new_mode) {
		/* no memory callback to race with */
		cfg_apply(&next, new_mode);
		publish_gen(gen, EMBM_EMU_ERR_NONE);
		goto out;
	}
	pending_gen = gen;
	reset_pending = true;
	qemu_plugin_reset(plugin_id, on_reset);
out:
	pthread_mutex_unlock(&cfg_lock);
}

/* ---- the instruction callbacks ---- */

static void insn_cpuid(unsigned int vi, void *udata)
{
	struct vcpu *v;
	uint64_t cr3, gen, key;
	bool ok;

	(void)udata;
	if (vi >= nr_cpus)
		return;
	v = &vcpus[vi];
	cr3 = read_reg(v, reg_cr3, &ok);
	if (ok) {
		key = as_key(cr3);
		if (key != v->as_key) {
			v->as_key = key;
			v->space = -1;
		}
	}
	v->cpu->bell_as = v->as_key;
	v->cpu->bell++;
	v->bells++;
	__atomic_add_fetch(&bells_total, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&hdr->bells, 1, __ATOMIC_RELAXED);
	gen = __atomic_load_n(&hdr->gen, __ATOMIC_ACQUIRE);
	if (gen != __atomic_load_n(&gen_seen, __ATOMIC_RELAXED))
		take_gen(gen);
}

static void insn_movcr3(unsigned int vi, void *udata)
{
	struct vcpu *v;
	uint64_t val;
	bool ok;

	if (vi >= nr_cpus)
		return;
	v = &vcpus[vi];
	val = read_reg(v, reg_gpr[(uintptr_t)udata & 15], &ok);
	if (ok && as_key(val) != v->as_key) {
		v->as_key = as_key(val);
		v->space = -1;
	}
}

/* CPUID (0F A2) or mov to CR3 (0F 22 /r, reg 3): 1 or 2 + 16 * GPR. */
static int classify(const uint8_t *b, size_t len)
{
	size_t i = 0;
	unsigned int rex = 0;
	bool lock = false;

	for (; i < len; i++) {
		switch (b[i]) {
		case 0xf0:
			lock = true;
			continue;
		case 0x66: case 0x67: case 0xf2: case 0xf3:
		case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
			continue;
		}
		break;
	}
	if (i < len && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (i + 1 >= len || b[i] != 0x0f)
		return 0;
	if (b[i + 1] == 0xa2)
		return 1;
	if (b[i + 1] == 0x22 && i + 2 < len && !lock && !(rex & 4) &&
	    ((b[i + 2] >> 3) & 7) == 3)
		return 2 + 16 * ((b[i + 2] & 7) | ((rex & 1) << 3));
	return 0;
}

/*
 * The CPL of the block being translated: CS as the vCPU has it now, which
 * is the state the block is translated for (and looked up by).  -1 if CS
 * cannot be read.  Translation runs on the vCPU's own thread.
 */
static int tb_cpl(void)
{
	static __thread GByteArray *buf;
	uint64_t cs;
	bool ok;

	if (!reg_cs)
		return -1;
	if (!buf)
		buf = g_byte_array_new();
	cs = read_reg_buf(buf, reg_cs, &ok);
	if (!ok) {
		/* The header says it from now on; the count is in out=. */
		if (!__atomic_fetch_add(&cpl_unknown, 1, __ATOMIC_RELAXED)) {
			__atomic_and_fetch(&features, ~EMBM_EMU_FEAT_CPL, __ATOMIC_RELAXED);
			hdr->features = features;
			say("embm-emu: CS unreadable in translation: user or kernel mode by the IP's half\n");
		}
		return -1;
	}
	return cs & 3;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	static const qemu_plugin_vcpu_mem_cb_t cbs[4][2] = {	/* [mode][user] */
		[EMBM_EMU_MODE_SAMPLE] = { mem_sample_k, mem_sample_u },
		[EMBM_EMU_MODE_ORACLE] = { mem_oracle_k, mem_oracle_u },
		[EMBM_EMU_MODE_SAMPLE | EMBM_EMU_MODE_ORACLE] = { mem_both_k, mem_both_u },
	};
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	unsigned int m = mode & (EMBM_EMU_MODE_SAMPLE | EMBM_EMU_MODE_ORACLE);
	int cpl = m ? tb_cpl() : -1;

	(void)id;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t pc = qemu_plugin_insn_vaddr(insn);
		uint8_t b[16];
		size_t len = qemu_plugin_insn_data(insn, b, sizeof(b));
		int k = classify(b, len);
		/* CPL 3 is user mode; without it, the instruction's half. */
		bool user = cpl >= 0 ? cpl == 3 : pc < USER_TOP;
		qemu_plugin_vcpu_mem_cb_t mcb = cbs[m][user];

		if (k == 1)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_cpuid,
				QEMU_PLUGIN_CB_R_REGS, NULL);
		else if (k >= 2 && reg_gpr[k >> 4])
			qemu_plugin_register_vcpu_insn_exec_cb(insn, insn_movcr3,
				QEMU_PLUGIN_CB_R_REGS, (void *)(uintptr_t)(k >> 4));
		if (mcb)
			qemu_plugin_register_vcpu_mem_cb(insn, mcb, QEMU_PLUGIN_CB_NO_REGS,
				QEMU_PLUGIN_MEM_RW, (void *)(uintptr_t)pc);
	}
}

/* ---- vCPUs, exit ---- */

static void find_regs(void)
{
	/* gdb's x86_64 names, in ModRM order */
	static const char *const gpr[16] = {
		"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
	};
	GArray *regs = qemu_plugin_get_registers();
	unsigned int i, g;

	if (!regs)
		return;
	for (i = 0; i < regs->len; i++) {
		qemu_plugin_reg_descriptor *d = &((qemu_plugin_reg_descriptor *)regs->data)[i];

		if (!d->name)
			continue;
		if (verbose)
			say("embm-emu: register %s (%s)\n", d->name,
			    d->feature ? d->feature : "-");
		if (!strcmp(d->name, "cr3"))
			reg_cr3 = d->handle;
		if (!strcmp(d->name, "cs"))
			reg_cs = d->handle;
		for (g = 0; g < 16; g++)
			if (!strcmp(d->name, gpr[g]))
				reg_gpr[g] = d->handle;
	}
	g_array_free(regs, 1);
	if (!reg_cr3)
		say("embm-emu: no cr3 register: address spaces are not told apart\n");
	if (reg_cs)
		__atomic_or_fetch(&features, EMBM_EMU_FEAT_CPL, __ATOMIC_RELAXED);
	else
		say("embm-emu: no cs register: user or kernel mode by the IP's half\n");
	hdr->features = features;
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vi)
{
	struct vcpu *v;
	bool ok;
	uint64_t cr3;

	(void)id;
	if (vi >= nr_cpus)
		return;
	v = &vcpus[vi];
	if (!v->buf)
		v->buf = g_byte_array_new();
	pthread_once(&regs_once, find_regs);
	cr3 = read_reg(v, reg_cr3, &ok);
	if (ok) {
		v->as_key = as_key(cr3);
		v->space = -1;
	}
}

static void print_acc(FILE *f, const uint64_t a[2][2])
{
	fprintf(f, "loads_user %" PRIu64 " stores_user %" PRIu64
		" loads_kernel %" PRIu64 " stores_kernel %" PRIu64 "\n",
		a[0][0], a[0][1], a[1][0], a[1][1]);
}

static const char *kind_name(uint32_t kind)
{
	static const char *const names[] = { "dram", "far", "cxl" };

	return kind <= EMBM_EMU_KIND_CXL ? names[kind] : "?";
}

/* corrupt=N: what it did, summed over the vCPUs, as one line. */
static void write_corrupt(FILE *f)
{
	uint64_t sum[CORRUPT_NR] = { 0 }, total = 0, records = 0;
	unsigned int c, k;

	for (c = 0; c < nr_cpus; c++) {
		records += vcpus[c].records;
		for (k = 0; k < CORRUPT_NR; k++)
			sum[k] += vcpus[c].corrupted[k];
	}
	for (k = 0; k < CORRUPT_NR; k++)
		total += sum[k];
	fprintf(f, "corrupt every %" PRIu64 ": %" PRIu64 " of %" PRIu64 " records:",
		corrupt_every, total, records);
	for (k = 0; k < CORRUPT_NR; k++)
		fprintf(f, " %s %" PRIu64, corrupt_kinds[k], sum[k]);
	fprintf(f, "\n");
}

/* The oracle as text: ranges, spaces, watched pages, counters. */
static void write_oracle(FILE *f)
{
	uint64_t a[2][2], records = 0, lost = 0;
	unsigned int i, r, s, c, k, o;
	uint32_t ri;

	fprintf(f, "# embm-emu oracle: exact accesses summed over %u vCPUs; mode %u%s\n",
		nr_cpus, mode, host_oracle ? " (oracle=on)" : "");
	for (ri = 0; ri <= EMBM_EMU_MAX_RANGES; ri++) {
		const struct cfg_range *rg = NULL;

		for (i = 0; i < cur.nr_ranges; i++)
			if (cur.range[i].idx == ri)
				rg = &cur.range[i];
		if (!rg && ri != EMBM_EMU_NO_RANGE)
			continue;
		memset(a, 0, sizeof(a));
		for (c = 0; c < nr_cpus; c++)
			for (k = 0; k < 2; k++)
				for (o = 0; o < 2; o++)
					a[k][o] += vcpus[c].oracle->acc[ri][k][o];
		if (rg)
			fprintf(f, "range %u node %u kind %s 0x%" PRIx64 "-0x%" PRIx64 " ",
				ri, rg->node, kind_name(rg->kind), rg->start, rg->end);
		else
			fprintf(f, "range none node - kind - - ");
		print_acc(f, a);
	}
	for (s = 0; s < EMBM_EMU_MAX_SPACES; s++) {
		uint64_t key = hdr->space_key[s];

		memset(a, 0, sizeof(a));
		for (c = 0; c < nr_cpus; c++)
			for (r = 0; r <= EMBM_EMU_MAX_RANGES; r++)
				for (k = 0; k < 2; k++)
					for (o = 0; o < 2; o++)
						a[k][o] += vcpus[c].spaces->acc[s][r][k][o];
		if (!key && !(a[0][0] | a[0][1] | a[1][0] | a[1][1]))
			continue;
		if (s == EMBM_EMU_OTHER_SPACE)
			fprintf(f, "space other key - ");
		else
			fprintf(f, "space %u key 0x%" PRIx64 " ", s, key);
		print_acc(f, a);
	}
	for (i = 0; i < cur.nr_pages; i++) {
		uint64_t ld = 0, st = 0;

		for (c = 0; c < nr_cpus; c++) {
			ld += vcpus[c].page_count[i * 2];
			st += vcpus[c].page_count[i * 2 + 1];
		}
		if (ld | st)
			fprintf(f, "page 0x%" PRIx64 " loads %" PRIu64 " stores %" PRIu64 "\n",
				cur.pages[i], ld, st);
	}
	for (c = 0; c < nr_cpus; c++) {
		records += vcpus[c].records;
		lost += vcpus[c].lost;
	}
	fprintf(f, "plugin records %" PRIu64 " lost %" PRIu64 " resets %" PRIu64
		" bells %" PRIu64 " cpl_unknown %" PRIu64 "\n", records, lost, resets,
		bells_total, cpl_unknown);
	if (corrupt_every)
		write_corrupt(f);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f;

	(void)id;
	(void)p;
	if (corrupt_every) {
		fprintf(stderr, "embm-emu: ");
		write_corrupt(stderr);
	}
	if (!out_path)
		return;
	f = fopen(out_path, "w");
	if (!f) {
		fprintf(stderr, "embm-emu: cannot write %s: %s\n", out_path, strerror(errno));
		return;
	}
	write_oracle(f);
	if (fclose(f))
		fprintf(stderr, "embm-emu: cannot write %s: %s\n", out_path, strerror(errno));
}

static void register_cbs(void)
{
	qemu_plugin_register_vcpu_init_cb(plugin_id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(plugin_id, tb_trans);
	qemu_plugin_register_atexit_cb(plugin_id, at_exit, NULL);
}

/* ---- install ---- */

static int parse_u64(const char *key, const char *val, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(val, &end, 0);
	if (errno || end == val || *end || val[0] == '-' || x < min || x > max) {
		fprintf(stderr, "embm-emu: %s=%s: not a number from %" PRIu64 " to %" PRIu64 "\n",
			key, val, min, max);
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_bool(const char *key, const char *val, bool *out)
{
	if (!strcmp(val, "on") || !strcmp(val, "yes") || !strcmp(val, "true")) {
		*out = true;
		return 0;
	}
	if (!strcmp(val, "off") || !strcmp(val, "no") || !strcmp(val, "false")) {
		*out = false;
		return 0;
	}
	fprintf(stderr, "embm-emu: %s=%s: not on or off\n", key, val);
	return -1;
}

static int parse_lat(const char *key, const char *val, unsigned int src)
{
	char buf[64], *colon;
	uint64_t ns, sd;

	snprintf(buf, sizeof(buf), "%s", val);
	colon = strchr(buf, ':');
	if (colon)
		*colon++ = 0;
	if (parse_u64(key, buf, 0, 1000000, &ns))
		return -1;
	lat_model[src].ns = ns;
	lat_model[src].sd_ns = -1;
	if (colon) {
		if (parse_u64(key, colon, 0, 1000000, &sd))
			return -1;
		lat_model[src].sd_ns = sd;
	}
	return 0;
}

static int parse_args(int argc, char **argv, const char **shm_path)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *val;
		char key[32];
		uint64_t x;
		unsigned int s;
		bool found = false;

		if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(key)) {
			fprintf(stderr, "embm-emu: argument '%s' is not KEY=VALUE\n", argv[i]);
			return -1;
		}
		memcpy(key, argv[i], eq - argv[i]);
		key[eq - argv[i]] = 0;
		val = eq + 1;
		if (!strcmp(key, "shm")) {
			*shm_path = val;
		} else if (!strcmp(key, "ring")) {
			if (parse_u64(key, val, 16, 1 << 20, &x))
				return -1;
			if (x & (x - 1)) {
				fprintf(stderr, "embm-emu: ring=%s: not a power of two\n", val);
				return -1;
			}
			ring_records = x;
		} else if (!strcmp(key, "pages")) {
			if (parse_u64(key, val, 0, 1 << 22, &x))
				return -1;
			max_pages = x;
		} else if (!strcmp(key, "oracle")) {
			if (parse_bool(key, val, &host_oracle))
				return -1;
		} else if (!strcmp(key, "out")) {
			out_path = val;
		} else if (!strcmp(key, "mhz")) {
			if (parse_u64(key, val, 1, 100000, &x))
				return -1;
			mhz = x;
		} else if (!strcmp(key, "seed")) {
			if (parse_u64(key, val, 0, UINT64_MAX, &seed))
				return -1;
		} else if (!strcmp(key, "cache")) {
			if (parse_bool(key, val, &cache_on))
				return -1;
		} else if (!strcmp(key, "verbose")) {
			if (parse_bool(key, val, &verbose))
				return -1;
		} else if (!strcmp(key, "corrupt")) {
			if (parse_u64(key, val, 0, 1000000000, &corrupt_every))
				return -1;
		} else {
			for (s = 0; s < EMBM_EMU_SRC_NR; s++) {
				if (lat_model[s].arg && !strcmp(key, lat_model[s].arg)) {
					if (parse_lat(key, val, s))
						return -1;
					found = true;
				}
			}
			if (!found) {
				fprintf(stderr, "embm-emu: unknown argument '%s' (shm, ring, pages, "
					"oracle, out, mhz, seed, cache, verbose, corrupt, lat_l1, "
					"lat_l2, lat_l3, lat_local, lat_remote, lat_far, lat_cxl)\n",
					key);
				return -1;
			}
		}
	}
	if (!*shm_path) {
		fprintf(stderr, "embm-emu: shm=PATH is required: the memory file of the "
			"ivshmem-plain device's memory-backend-file\n");
		return -1;
	}
	return 0;
}

/* The offsets of the layout; returns its size. */
static uint64_t layout(struct embm_emu_header *h)
{
	uint64_t off = ALIGN_UP(sizeof(*h), 4096);

	h->cpu_off = off;
	off = ALIGN_UP(off + (uint64_t)nr_cpus * sizeof(struct embm_emu_cpu), 4096);
	h->ring_off = off;
	off = ALIGN_UP(off + (uint64_t)nr_cpus * ring_records * sizeof(struct embm_emu_record), 4096);
	h->oracle_off = off;
	off = ALIGN_UP(off + (uint64_t)nr_cpus * sizeof(struct embm_emu_oracle), 4096);
	h->space_off = off;
	off = ALIGN_UP(off + (uint64_t)nr_cpus * sizeof(struct embm_emu_space), 4096);
	h->page_off = off;
	off = ALIGN_UP(off + (uint64_t)max_pages * sizeof(uint64_t), 4096);
	h->page_count_off = off;
	off = ALIGN_UP(off + (uint64_t)nr_cpus * max_pages * 2 * sizeof(uint64_t), 4096);
	return off;
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	const char *shm_path = NULL;
	struct stat st;
	uint64_t need;
	unsigned int i, s;
	void *map;
	int fd;

	_Static_assert(sizeof(struct embm_emu_header) <= 4096, "header fits a page");
	plugin_id = id;
	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "embm-emu: needs qemu-system-x86_64 (this is %s%s)\n",
			info->target_name, info->system_emulation ? "" : ", user mode");
		return -1;
	}
	if (parse_args(argc, argv, &shm_path))
		return -1;
	nr_cpus = info->system.max_vcpus;
	if (nr_cpus < 1 || nr_cpus > EMBM_EMU_MAX_CPUS) {
		fprintf(stderr, "embm-emu: %u vCPUs: the layout has room for 1 to %u\n",
			nr_cpus, EMBM_EMU_MAX_CPUS);
		return -1;
	}
	need = layout(&lay);
	fd = open(shm_path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "embm-emu: shm=%s: %s\n", shm_path, strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size < need) {
		fprintf(stderr, "embm-emu: shm=%s has %lld bytes; %u vCPUs, ring=%u and "
			"pages=%u need %" PRIu64 " (a power of two for the device: %" PRIu64 ")\n",
			shm_path, (long long)st.st_size, nr_cpus, ring_records, max_pages,
			need, (uint64_t)(need & (need - 1) ? 1ULL << (64 - __builtin_clzll(need)) : need));
		close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "embm-emu: cannot map %s: %s\n", shm_path, strerror(errno));
		return -1;
	}
	shm = map;
	shm_size = st.st_size;
	hdr = map;
	cur.pages = calloc(max_pages ? max_pages : 1, sizeof(uint64_t));
	next.pages = calloc(max_pages ? max_pages : 1, sizeof(uint64_t));
	if (!cur.pages || !next.pages) {
		fprintf(stderr, "embm-emu: out of memory\n");
		return -1;
	}

	memset(shm, 0, shm_size);
	for (s = 0; s < EMBM_EMU_SRC_NR; s++) {
		lat_cycles[s].mean = (uint64_t)lat_model[s].ns * mhz / 1000;
		lat_cycles[s].sd = lat_model[s].sd_ns < 0 ? (lat_cycles[s].mean + 5) / 10 :
				   (uint64_t)lat_model[s].sd_ns * mhz / 1000;
	}
	for (i = 0; i < nr_cpus; i++) {
		struct vcpu *v = &vcpus[i];

		v->space = -1;
		v->rng = (seed + 1) * 0x9e3779b97f4a7c15ULL + i * 0xbf58476d1ce4e5b9ULL;
		if (!v->rng)
			v->rng = 1;
		v->corrupt_rng = v->rng ^ 0x94d049bb133111ebULL;
		if (!v->corrupt_rng)
			v->corrupt_rng = 1;
		v->corrupt_next = i % CORRUPT_NR;
		if (corrupt_every)
			v->corrupt_due = corrupt_interval(v);
		v->cpu = (void *)(shm + lay.cpu_off) + i * sizeof(struct embm_emu_cpu);
		v->ring = (void *)(shm + lay.ring_off +
				   (uint64_t)i * ring_records * sizeof(struct embm_emu_record));
		v->oracle = (void *)(shm + lay.oracle_off) + i * sizeof(struct embm_emu_oracle);
		v->spaces = (void *)(shm + lay.space_off) + i * sizeof(struct embm_emu_space);
		v->page_count = (void *)(shm + lay.page_count_off +
					 (uint64_t)i * max_pages * 2 * sizeof(uint64_t));
		if (cache_on && cache_alloc(v)) {
			fprintf(stderr, "embm-emu: out of memory for the cache model\n");
			return -1;
		}
	}
	mode = host_oracle ? EMBM_EMU_MODE_ORACLE : 0;
	/* EMBM_EMU_FEAT_CPL once the first vCPU found CS (find_regs()). */
	features = EMBM_EMU_FEAT_LATENCY | EMBM_EMU_FEAT_ORACLE | EMBM_EMU_FEAT_RANDOM |
		   EMBM_EMU_FEAT_DRV_WANT | (cache_on ? EMBM_EMU_FEAT_CACHE : 0) |
		   (corrupt_every ? EMBM_EMU_FEAT_CORRUPT : 0);

	publish_plugin_fields();
	__atomic_store_n(&hdr->magic, EMBM_EMU_MAGIC, __ATOMIC_RELEASE);

	register_cbs();
	if (verbose)
		say("embm-emu: %u vCPUs, %s (%" PRIu64 " bytes, layout %" PRIu64 "), mode %u\n",
		    nr_cpus, shm_path, shm_size, need, mode);
	if (corrupt_every)
		fprintf(stderr, "embm-emu: corrupt=%" PRIu64 ": after about one record in %"
			PRIu64 " written, its ring or slot is corrupted\n",
			corrupt_every, corrupt_every);
	return 0;
}
