// SPDX-License-Identifier: GPL-2.0-or-later
/* flow.c - fixed-capacity flow table with hashed lookup
 *
 * Theory of operation: flow_table_init() allocates, once, an array of
 * entries (type, key, hash) and an open-addressing hash table of flow
 * indices with twice as many buckets as entries, rounded up to a power of
 * two, so the load factor never exceeds one half. Entries given back form
 * a singly linked free list, taken first; past them, flow_alloc() hands
 * out the entries never used yet in increasing order, counted by a
 * high-water mark. Both are O(1) with no allocation, and neither needs an
 * initialisation pass: an idle relay touches only the pages of the entries
 * it used (the table is reserved zeroed, by calloc()).
 *
 * The hash table uses linear probing. A bucket holds a flow index plus
 * one, so that zero, what calloc() gives, means empty. Deletion uses backward shift: the
 * entries following the removed one in its probe run are moved back when
 * their home bucket allows it, so there are no tombstones and lookups never
 * degrade with churn.
 *
 * Keys are hashed with SipHash-2-4 under a 128-bit secret drawn from
 * getrandom() at initialisation, so a guest choosing addresses and ports
 * cannot predict buckets and force long probe runs. struct flow_key has
 * padding: keys are hashed and compared field by field, never as raw
 * memory, so callers need not clear them.
 *
 * With -d, every flow's life is logged here, where all of them pass: its
 * key when it becomes findable (flow_hash_insert()) and when it ends
 * (flow_free()). Protocol modules add their own events with flow_log()
 * (the host-side peer, TCP state changes), each line prefixed with
 * "Flow INDEX (TYPE): ", as upstream's, so one flow can be followed with
 * grep.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/random.h>

#include "flow.h"
#include "../util/log.h"
#include "../util/util.h"

#define FLOW_CAPACITY_MAX	(1U << 24)
#define FLOW_LOG_MAX		512	/* text of one flow_log() line */

static const char *const flow_type_names[FLOW_TYPE_MAX] = {
	[FLOW_TYPE_NONE]	= "free",
	[FLOW_TYPE_TCP]		= "TCP",
	[FLOW_TYPE_TCP_SPLICE]	= "TCP splice",
	[FLOW_TYPE_UDP]		= "UDP",
	[FLOW_TYPE_PING]	= "ICMP echo",
};

/**
 * struct flow_entry - one slot of the flow table
 * @key:	key, valid if @hashed
 * @hash:	hash of @key, valid if @hashed
 * @next_free:	next free entry, if @type is FLOW_TYPE_NONE
 * @type:	enum flow_type, FLOW_TYPE_NONE if free
 * @hashed:	true if the entry is in the hash table
 */
struct flow_entry {
	struct flow_key key;
	uint64_t hash;
	uint32_t next_free;
	uint8_t type;
	bool hashed;
};

static struct flow_entry *flow_tab;
static uint32_t *flow_htab;
static uint32_t flow_hmask;
static unsigned int flow_cap;
static unsigned int flow_used;
static unsigned int flow_hwm;	/* entries from here on were never used */
static uint32_t flow_free_head = FLOW_IDX_NONE;
static uint64_t flow_secret[2];

/**
 * flow_rotl() - rotate a 64-bit word left
 * @x:		word
 * @b:		bits, 1 to 63
 *
 * Return: rotated word
 */
static inline uint64_t flow_rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/**
 * flow_sipround() - one SipHash round on the four state words
 * @v:		state
 */
static inline void flow_sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = flow_rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = flow_rotl(v[0], 32);
	v[2] += v[3];
	v[3] = flow_rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = flow_rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = flow_rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = flow_rotl(v[2], 32);
}

/**
 * flow_siphash() - SipHash-2-4 of whole 64-bit words under the secret
 * @m:		message words
 * @n:		number of words
 *
 * Return: 64-bit hash
 */
static uint64_t flow_siphash(const uint64_t *m, unsigned int n)
{
	uint64_t v[4] = {
		flow_secret[0] ^ 0x736f6d6570736575ULL,
		flow_secret[1] ^ 0x646f72616e646f6dULL,
		flow_secret[0] ^ 0x6c7967656e657261ULL,
		flow_secret[1] ^ 0x7465646279746573ULL,
	};
	uint64_t b = (uint64_t)(n * 8) << 56;
	unsigned int i;

	for (i = 0; i < n; i++) {
		v[3] ^= m[i];
		flow_sipround(v);
		flow_sipround(v);
		v[0] ^= m[i];
	}

	v[3] ^= b;
	flow_sipround(v);
	flow_sipround(v);
	v[0] ^= b;

	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		flow_sipround(v);

	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/**
 * flow_key_hash() - hash a key, field by field
 * @key:	key
 *
 * Return: 64-bit hash
 */
static uint64_t flow_key_hash(const struct flow_key *key)
{
	uint64_t m[5];

	m[0] = (uint64_t)key->guest_addr.u32[0] << 32 | key->guest_addr.u32[1];
	m[1] = (uint64_t)key->guest_addr.u32[2] << 32 | key->guest_addr.u32[3];
	m[2] = (uint64_t)key->remote_addr.u32[0] << 32 |
	       key->remote_addr.u32[1];
	m[3] = (uint64_t)key->remote_addr.u32[2] << 32 |
	       key->remote_addr.u32[3];
	m[4] = (uint64_t)key->guest_port << 32 |
	       (uint64_t)key->remote_port << 16 | key->proto;

	return flow_siphash(m, ARRAY_SIZE(m));
}

/**
 * flow_key_equal() - compare two keys, field by field
 * @a:		first key
 * @b:		second key
 *
 * Return: true if equal
 */
static bool flow_key_equal(const struct flow_key *a, const struct flow_key *b)
{
	return a->guest_port == b->guest_port &&
	       a->remote_port == b->remote_port &&
	       a->proto == b->proto &&
	       inany_equals(&a->guest_addr, &b->guest_addr) &&
	       inany_equals(&a->remote_addr, &b->remote_addr);
}

/**
 * flow_seed() - draw the hash secret
 */
static void flow_seed(void)
{
	ssize_t n;

	do
		n = getrandom(flow_secret, sizeof(flow_secret), 0);
	while (n < 0 && errno == EINTR);

	if (n != (ssize_t)sizeof(flow_secret)) {
		struct timespec ts = { 0 };

		warn("flow: getrandom() failed, flow hash secret is guessable");
		clock_gettime(CLOCK_MONOTONIC, &ts);
		flow_secret[0] ^= (uint64_t)ts.tv_nsec << 32 ^
				  (uint64_t)ts.tv_sec;
		flow_secret[1] ^= (uint64_t)getpid() << 32 ^
				  (uint64_t)(uintptr_t)&ts;
	}
}

/**
 * flow_table_init() - allocate the table and hash, seed the hash secret
 * @capacity:	number of flows, 1 to 2^24
 *
 * Return: 0 on success, -EINVAL for a bad capacity, -ENOMEM
 */
int flow_table_init(unsigned int capacity)
{
	uint32_t hsize = 1;

	if (!capacity || capacity > FLOW_CAPACITY_MAX)
		return -EINVAL;

	flow_table_fini();

	while (hsize < 2 * capacity)
		hsize <<= 1;

	flow_tab = calloc(capacity, sizeof(*flow_tab));
	flow_htab = calloc(hsize, sizeof(*flow_htab));
	if (!flow_tab || !flow_htab) {
		flow_table_fini();
		return -ENOMEM;
	}

	flow_hmask = hsize - 1;
	flow_hwm = 0;
	flow_free_head = FLOW_IDX_NONE;
	flow_cap = capacity;
	flow_used = 0;

	flow_seed();
	return 0;
}

/**
 * flow_table_fini() - free the table (for tests and clean exit)
 */
void flow_table_fini(void)
{
	free(flow_tab);
	free(flow_htab);
	flow_tab = NULL;
	flow_htab = NULL;
	flow_hmask = 0;
	flow_cap = 0;
	flow_used = 0;
	flow_hwm = 0;
	flow_free_head = FLOW_IDX_NONE;
}

/**
 * flow_alloc() - take a free entry
 * @type:	type of the new flow, not FLOW_TYPE_NONE
 *
 * Return: flow index, FLOW_IDX_NONE if the table is full (or @type is bad)
 */
uint32_t flow_alloc(enum flow_type type)
{
	uint32_t idx = flow_free_head;
	struct flow_entry *e;

	if (type <= FLOW_TYPE_NONE || type >= FLOW_TYPE_MAX)
		return FLOW_IDX_NONE;

	if (idx != FLOW_IDX_NONE) {
		flow_free_head = flow_tab[idx].next_free;
	} else {
		if (flow_hwm >= flow_cap)
			return FLOW_IDX_NONE;
		idx = flow_hwm++;
	}

	e = &flow_tab[idx];
	e->next_free = FLOW_IDX_NONE;
	e->type = (uint8_t)type;
	e->hashed = false;
	flow_used++;
	return idx;
}

/**
 * flow_valid() - tell if an index is a flow in use
 * @idx:	flow index
 *
 * Return: true if @idx is allocated
 */
static inline bool flow_valid(uint32_t idx)
{
	return idx < flow_cap && flow_tab[idx].type != FLOW_TYPE_NONE;
}

/**
 * flow_log() - log an event of a flow at debug level
 * @idx:	flow index
 * @fmt:	format of the event
 * @...:	arguments
 */
void flow_log(uint32_t idx, const char *fmt, ...)
{
	char msg[FLOW_LOG_MAX];
	va_list ap;

	if (log_get_level() < LOG_DEBUG)
		return;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	debug("Flow %u (%s): %s", idx, flow_type_names[flow_type_of(idx)],
	      msg);
}

/**
 * flow_log_key() - log a flow's key, after a word saying what happens
 * @idx:	flow index
 * @what:	e.g. "created"
 * @key:	the key
 */
static void flow_log_key(uint32_t idx, const char *what,
			 const struct flow_key *key)
{
	char g[INANY_STRLEN], r[INANY_STRLEN];

	if (log_get_level() < LOG_DEBUG)
		return;

	flow_log(idx, "%s: guest [%s]:%u, peer [%s]:%u", what,
		 inany_ntop(&key->guest_addr, g), key->guest_port,
		 inany_ntop(&key->remote_addr, r), key->remote_port);
}

/**
 * flow_free() - return an entry to the free list, removing it from the hash
 * @idx:	flow index (ignored if not in use)
 */
void flow_free(uint32_t idx)
{
	struct flow_entry *e;

	if (!flow_valid(idx))
		return;

	if (flow_tab[idx].hashed)
		flow_log_key(idx, "closed", &flow_tab[idx].key);
	else
		flow_log(idx, "closed");
	flow_hash_remove(idx);
	e = &flow_tab[idx];
	e->type = FLOW_TYPE_NONE;
	e->next_free = flow_free_head;
	flow_free_head = idx;
	flow_used--;
}

/**
 * flow_type_of() - type of a flow
 * @idx:	flow index
 *
 * Return: its type, FLOW_TYPE_NONE if not in use or out of range
 */
enum flow_type flow_type_of(uint32_t idx)
{
	if (!flow_valid(idx))
		return FLOW_TYPE_NONE;
	return (enum flow_type)flow_tab[idx].type;
}

/**
 * flow_hash_insert() - make a flow findable by its key
 * @idx:	flow index, in use and not yet inserted
 * @key:	key, copied
 *
 * Return: 0 on success, -EEXIST if another flow has @key, -EALREADY if
 *	   @idx is already inserted, -EINVAL if @idx is not in use
 */
int flow_hash_insert(uint32_t idx, const struct flow_key *key)
{
	uint64_t h = flow_key_hash(key);
	uint32_t b = (uint32_t)h & flow_hmask;
	struct flow_entry *e;

	if (!flow_valid(idx))
		return -EINVAL;
	e = &flow_tab[idx];
	if (e->hashed)
		return -EALREADY;

	while (flow_htab[b]) {
		const struct flow_entry *o = &flow_tab[flow_htab[b] - 1];

		if (o->hash == h && flow_key_equal(&o->key, key))
			return -EEXIST;
		b = (b + 1) & flow_hmask;
	}

	e->key = *key;
	e->hash = h;
	e->hashed = true;
	flow_htab[b] = idx + 1;
	flow_log_key(idx, "created", key);
	return 0;
}

/**
 * flow_hash_remove() - take a flow out of the hash table (backward shift)
 * @idx:	flow index (ignored if not inserted)
 */
void flow_hash_remove(uint32_t idx)
{
	uint32_t i, j;

	if (!flow_valid(idx) || !flow_tab[idx].hashed)
		return;

	for (i = (uint32_t)flow_tab[idx].hash & flow_hmask;
	     flow_htab[i] != idx + 1; i = (i + 1) & flow_hmask)
		;

	/* Move back later members of the run whose home allows it */
	for (j = (i + 1) & flow_hmask; flow_htab[j];
	     j = (j + 1) & flow_hmask) {
		uint32_t home = (uint32_t)flow_tab[flow_htab[j] - 1].hash &
				flow_hmask;

		/* Stays if its home is cyclically within (i, j] */
		if (((j - home) & flow_hmask) < ((j - i) & flow_hmask))
			continue;

		flow_htab[i] = flow_htab[j];
		i = j;
	}
	flow_htab[i] = 0;
	flow_tab[idx].hashed = false;
}

/**
 * flow_lookup() - find a flow by key
 * @key:	key, as the guest sees the flow
 *
 * Return: flow index, FLOW_IDX_NONE if not found
 */
uint32_t flow_lookup(const struct flow_key *key)
{
	uint64_t h;
	uint32_t b;

	if (!flow_htab)
		return FLOW_IDX_NONE;

	h = flow_key_hash(key);
	for (b = (uint32_t)h & flow_hmask; flow_htab[b];
	     b = (b + 1) & flow_hmask) {
		const struct flow_entry *e = &flow_tab[flow_htab[b] - 1];

		if (e->hash == h && flow_key_equal(&e->key, key))
			return flow_htab[b] - 1;
	}
	return FLOW_IDX_NONE;
}

/**
 * flow_key_of() - key of an inserted flow
 * @idx:	flow index
 *
 * Return: pointer to its key, NULL if not in use or not inserted
 */
const struct flow_key *flow_key_of(uint32_t idx)
{
	if (!flow_valid(idx) || !flow_tab[idx].hashed)
		return NULL;
	return &flow_tab[idx].key;
}

/**
 * flow_capacity() - capacity of the table
 *
 * Return: number of entries, 0 before flow_table_init()
 */
unsigned int flow_capacity(void)
{
	return flow_cap;
}

/**
 * flow_in_use() - number of allocated flows
 *
 * Return: count
 */
unsigned int flow_in_use(void)
{
	return flow_used;
}
