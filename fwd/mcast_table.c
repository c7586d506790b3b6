// SPDX-License-Identifier: GPL-2.0-or-later
/* mcast_table.c - the multicast groups of the guest, and their timers
 *
 * Theory of operation: a small fixed table (MCAST_GROUPS_MAX entries) of
 * the groups the multicast proxy (fwd/mcast.c) follows. An entry has two
 * independent deadlines: membership, renewed by every report of the guest
 * for the group (MCAST_MEMBER_MS: the guest answers our queries well
 * within it), and sending, renewed by every datagram the guest sends to
 * the group (MCAST_SEND_IDLE_MS). A deadline of 0 means "not". The proxy
 * opens host sockets when an entry starts either, closes them when it
 * ends (a leave, or mcast_table_expire()), and frees the entry once both
 * ended. Nothing here opens sockets or reads the clock: the proxy passes
 * the time, so that the unit test can run through hours of it.
 */

#include <string.h>

#include "mcast_table.h"

/**
 * struct mcast_entry - one group
 * @group:		the group (IPv4-mapped for IPv4)
 * @used:		the entry holds a group
 * @member_until:	end of the guest's membership, 0 if not a member
 * @send_until:		end of the sending state, 0 if not sending
 */
struct mcast_entry {
	union inany_addr group;
	bool used;
	uint64_t member_until;
	uint64_t send_until;
};

static struct mcast_entry mcast_entries[MCAST_GROUPS_MAX];

/**
 * mcast_table_lookup() - find the entry of a group
 * @group:	the group
 *
 * Return: index, -1 if the group is not followed
 */
int mcast_table_lookup(const union inany_addr *group)
{
	int i;

	for (i = 0; i < MCAST_GROUPS_MAX; i++) {
		if (mcast_entries[i].used &&
		    inany_equals(&mcast_entries[i].group, group))
			return i;
	}
	return -1;
}

/**
 * mcast_table_get() - find the entry of a group, or take a free one
 * @group:	the group
 *
 * Return: index, -1 if the table is full
 */
int mcast_table_get(const union inany_addr *group)
{
	int i = mcast_table_lookup(group);

	if (i >= 0)
		return i;

	for (i = 0; i < MCAST_GROUPS_MAX; i++) {
		struct mcast_entry *e = &mcast_entries[i];

		if (e->used)
			continue;
		e->used = true;
		e->group = *group;
		e->member_until = e->send_until = 0;
		return i;
	}
	return -1;
}

/**
 * mcast_table_group() - the group of an entry
 * @i:		index
 *
 * Return: the group
 */
const union inany_addr *mcast_table_group(int i)
{
	return &mcast_entries[i].group;
}

/**
 * mcast_table_member() - tell if the guest is a member of an entry's group
 * @i:		index
 *
 * Return: true if so
 */
bool mcast_table_member(int i)
{
	return mcast_entries[i].member_until;
}

/**
 * mcast_table_sending() - tell if the guest sends to an entry's group
 * @i:		index
 *
 * Return: true if it did within MCAST_SEND_IDLE_MS
 */
bool mcast_table_sending(int i)
{
	return mcast_entries[i].send_until;
}

/**
 * mcast_table_joined() - a report of the guest for the group
 * @i:		index
 * @now_ms:	current time
 *
 * Return: true if the guest was not a member before
 */
bool mcast_table_joined(int i, uint64_t now_ms)
{
	bool was = mcast_entries[i].member_until;

	mcast_entries[i].member_until = now_ms + MCAST_MEMBER_MS;
	return !was;
}

/**
 * mcast_table_left() - the guest left the group
 * @i:		index
 */
void mcast_table_left(int i)
{
	mcast_entries[i].member_until = 0;
}

/**
 * mcast_table_sent() - the guest sent a datagram to the group
 * @i:		index
 * @now_ms:	current time
 */
void mcast_table_sent(int i, uint64_t now_ms)
{
	mcast_entries[i].send_until = now_ms + MCAST_SEND_IDLE_MS;
}

/**
 * mcast_table_release() - free an entry if nothing is left in it
 * @i:		index
 *
 * Return: true if freed
 */
bool mcast_table_release(int i)
{
	struct mcast_entry *e = &mcast_entries[i];

	if (e->member_until || e->send_until)
		return false;
	e->used = false;
	return true;
}

/**
 * mcast_table_expire() - end the deadlines of an entry that passed
 * @i:		index
 * @now_ms:	current time
 *
 * Return: enum mcast_expiry bits of what ended (the entry stays, see
 *	   mcast_table_release())
 */
unsigned int mcast_table_expire(int i, uint64_t now_ms)
{
	struct mcast_entry *e = &mcast_entries[i];
	unsigned int ended = MCAST_EXP_NONE;

	if (!e->used)
		return ended;
	if (e->member_until && now_ms >= e->member_until) {
		e->member_until = 0;
		ended |= MCAST_EXP_MEMBER;
	}
	if (e->send_until && now_ms >= e->send_until) {
		e->send_until = 0;
		ended |= MCAST_EXP_SEND;
	}
	return ended;
}

/**
 * mcast_table_count() - number of groups followed
 *
 * Return: entries in use
 */
unsigned int mcast_table_count(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < MCAST_GROUPS_MAX; i++)
		n += mcast_entries[i].used;
	return n;
}

/**
 * mcast_table_reset() - forget every group (for tests)
 */
void mcast_table_reset(void)
{
	memset(mcast_entries, 0, sizeof(mcast_entries));
}
