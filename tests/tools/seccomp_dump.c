// SPDX-License-Identifier: GPL-2.0-or-later
/* seccomp_dump.c - what a running process's seccomp filter allows, and
 * what the lists compiled into it say it should
 *
 * Theory of operation: tests/integration/seccomp_profiles.sh starts each
 * mode (passt over the stream socket, passt --vhost-user, pasta, pesto,
 * passt-repair, the resolver file's reader) and compares, with this
 * tool, the filter the kernel holds for the process with the SYSCALLS()
 * lists of its binary for that mode.
 *
 *   seccomp_dump filter PID
 *	Attach to PID with ptrace, read each of its filters with
 *	PTRACE_SECCOMP_GET_FILTER (root: CAP_SYS_ADMIN), and print one line
 *	per system call number the filters let through: "NAME always" if
 *	they allow it whatever the arguments, "NAME args" if they allow it
 *	with some arguments only. The program is evaluated symbolically for
 *	every number of the native architecture: every path to a return is
 *	followed, the comparisons of argument words along it collected, and
 *	the path counts if some value of each word satisfies them.
 *
 *   seccomp_dump lists MODE PID
 *	Read the SYSCALLS() lists (util/syscalls.h) out of the memory of
 *	PID: the ELF section "relay_syscalls" of /proc/PID/exe, relocated
 *	by the load address (AT_ENTRY of /proc/PID/auxv), holds pointers
 *	to them. Print the same lines for the rules naming MODE (passt, vu,
 *	pasta, pesto, repair, resolv): "always" if a rule has no
 *	comparisons, "args" otherwise. With -v (lists -v MODE PID), the
 *	reasons follow.
 *
 *   seccomp_dump call PID NAME [ARG]...
 *	Evaluate the filters of PID for one call with the given arguments
 *	(numbers, 0x for hexadecimal; missing ones are 0), print "allow" or
 *	"kill", exit 0 or 3 accordingly.
 *
 *   seccomp_dump count PID
 *	Print the number of filters PID has.
 *
 * Exit status: 0 on success, 1 on errors, 2 on usage errors.
 */

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <seccomp.h>

#include "../../util/syscalls.h"

#ifndef PTRACE_SECCOMP_GET_FILTER
#define PTRACE_SECCOMP_GET_FILTER	0x420c
#endif

#define DUMP_FILTERS_MAX	8	/* filters of one process we read */
#define DUMP_NR_MAX		1024	/* system call numbers tried */
#define DUMP_WORDS		16	/* 32-bit words of seccomp_data */
#define DUMP_CONS_MAX		64	/* comparisons along one path */
#define DUMP_STEPS_MAX		1000000	/* instructions, all paths of a call */
#define DUMP_CAND_MAX		512	/* candidate values of one word */
#define DUMP_STR_MAX		128	/* names and reasons read from PID */
#define DUMP_LISTS_MAX		256	/* SYSCALLS() lists in one binary */
#define DUMP_RULES_MAX		64	/* rules in one list */

/* Actions that let a call through */
#define DUMP_ALLOWS(a)	((a) == SECCOMP_RET_ALLOW || (a) == SECCOMP_RET_LOG)

/**
 * struct dump_prog - one classic BPF program, as the kernel holds it
 * @len:	instructions
 * @insn:	the instructions
 */
struct dump_prog {
	unsigned int len;
	struct sock_filter insn[BPF_MAXINSNS];
};

static struct dump_prog dump_progs[DUMP_FILTERS_MAX];
static unsigned int dump_nprogs;

/**
 * struct dump_val - the accumulator or a scratch register
 * @sym:	true: the word @word of seccomp_data, AND @mask; else @k
 * @word:	word index, for @sym
 * @mask:	mask applied to it, for @sym
 * @k:		value, if not @sym
 */
struct dump_val {
	bool sym;
	unsigned int word;
	uint32_t mask;
	uint32_t k;
};

/**
 * struct dump_cons - a comparison a path depends on: (word & mask) OP k
 * @word:	word of seccomp_data
 * @mask:	mask applied to it
 * @op:		BPF_JEQ, BPF_JGT, BPF_JGE or BPF_JSET
 * @k:		operand
 * @holds:	the path needs it true (else false)
 */
struct dump_cons {
	unsigned int word;
	uint32_t mask;
	uint16_t op;
	uint32_t k;
	bool holds;
};

/**
 * struct dump_walk - state of the walk over the paths of one program
 * @data:	concrete words (number, architecture, pointer)
 * @cons:	comparisons along the current path
 * @ncons:	their number
 * @steps:	instructions run so far, all paths
 * @allow:	a feasible path allows the call
 * @deny:	a feasible path doesn't
 * @error:	the program does something this tool doesn't follow
 */
struct dump_walk {
	uint32_t data[DUMP_WORDS];
	struct dump_cons cons[DUMP_CONS_MAX];
	unsigned int ncons;
	unsigned long steps;
	bool allow;
	bool deny;
	bool error;
};

/**
 * dump_die() - print a message and exit with status 1
 * @msg:	message
 */
static void __attribute__((noreturn)) dump_die(const char *msg)
{
	fprintf(stderr, "seccomp_dump: %s%s%s\n", msg, errno ? ": " : "",
		errno ? strerror(errno) : "");
	exit(1);
}

/**
 * dump_attach() - stop a task with ptrace, for PTRACE_SECCOMP_GET_FILTER
 * @pid:	task
 */
static void dump_attach(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL))
		dump_die("PTRACE_SEIZE");
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL))
		dump_die("PTRACE_INTERRUPT");
	if (waitpid(pid, &status, __WALL) != pid)
		dump_die("waitpid");
}

/**
 * dump_read_filters() - read every filter of a task into dump_progs
 * @pid:	task
 */
static void dump_read_filters(pid_t pid)
{
	unsigned long i;

	dump_attach(pid);
	for (i = 0; i < DUMP_FILTERS_MAX; i++) {
		struct dump_prog *p = &dump_progs[i];
		long n;

		errno = 0;
		n = ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)i, NULL);
		if (n < 0 && errno == ENOENT)
			break;
		if (n <= 0 || n > BPF_MAXINSNS)
			dump_die("PTRACE_SECCOMP_GET_FILTER (root, with "
				 "CONFIG_CHECKPOINT_RESTORE, and a filter?)");
		if (ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)i,
			   p->insn) != n)
			dump_die("PTRACE_SECCOMP_GET_FILTER");
		p->len = (unsigned int)n;
		dump_nprogs++;
	}
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	errno = 0;
	if (!dump_nprogs)
		dump_die("no seccomp filter");
}

/**
 * dump_cond() - does a comparison hold for a value?
 * @v:		value of the word, mask applied
 * @op:		BPF_JEQ, BPF_JGT, BPF_JGE or BPF_JSET
 * @k:		operand
 *
 * Return: true if it holds
 */
static bool dump_cond(uint32_t v, uint16_t op, uint32_t k)
{
	switch (op) {
	case BPF_JEQ:
		return v == k;
	case BPF_JGT:
		return v > k;
	case BPF_JGE:
		return v >= k;
	case BPF_JSET:
		return v & k;
	}
	return false;
}

/**
 * dump_cand_add() - add a candidate value, once
 * @c:		candidates
 * @n:		their number, updated
 * @v:		value
 */
static void dump_cand_add(uint32_t *c, unsigned int *n, uint32_t v)
{
	unsigned int i;

	for (i = 0; i < *n; i++) {
		if (c[i] == v)
			return;
	}
	if (*n < DUMP_CAND_MAX)
		c[(*n)++] = v;
}

/**
 * dump_word_ok() - is there a value of a word meeting every comparison?
 * @w:		walk, with the comparisons of the path
 * @word:	word
 *
 * The candidates are the operands, next to them, their complements and
 * the union of the operands that must be matched: enough for what
 * libseccomp generates (equal, masked equal, ranges).
 *
 * Return: true if one candidate meets them all
 */
static bool dump_word_ok(const struct dump_walk *w, unsigned int word)
{
	uint32_t cand[DUMP_CAND_MAX] = { 0 }, all = 0;
	unsigned int n = 0, i, j;

	dump_cand_add(cand, &n, 0);
	dump_cand_add(cand, &n, 0xffffffff);
	for (i = 0; i < w->ncons; i++) {
		const struct dump_cons *c = &w->cons[i];

		if (c->word != word)
			continue;
		dump_cand_add(cand, &n, c->k);
		dump_cand_add(cand, &n, c->k + 1);
		dump_cand_add(cand, &n, c->k - 1);
		dump_cand_add(cand, &n, ~c->k);
		dump_cand_add(cand, &n, c->k | ~c->mask);
		if (c->holds && c->op == BPF_JEQ)
			all |= c->k;
	}
	dump_cand_add(cand, &n, all);
	dump_cand_add(cand, &n, all + 1);

	for (j = 0; j < n; j++) {
		for (i = 0; i < w->ncons; i++) {
			const struct dump_cons *c = &w->cons[i];

			if (c->word == word &&
			    dump_cond(cand[j] & c->mask, c->op, c->k) !=
			    c->holds)
				break;
		}
		if (i == w->ncons)
			return true;
	}
	return false;
}

/**
 * dump_feasible() - can the arguments take values that follow this path?
 * @w:		walk, with the comparisons of the path
 *
 * Return: true if every word has a value meeting its comparisons
 */
static bool dump_feasible(const struct dump_walk *w)
{
	unsigned int word;

	for (word = 0; word < DUMP_WORDS; word++) {
		if (!dump_word_ok(w, word))
			return false;
	}
	return true;
}

/**
 * dump_load() - a 32-bit load from seccomp_data, as the kernel does it
 * @w:		walk
 * @off:	byte offset
 * @a:		set to the value: concrete for the number, the architecture
 *		and the pointer, symbolic for the arguments
 *
 * Return: 0, or -1 for an offset the kernel would refuse
 */
static int dump_load(const struct dump_walk *w, uint32_t off,
		     struct dump_val *a)
{
	unsigned int word = off / 4;

	if (off % 4 || word >= DUMP_WORDS)
		return -1;
	memset(a, 0, sizeof(*a));
	if (word < 4) {
		a->k = w->data[word];
	} else {
		a->sym = true;
		a->word = word;
		a->mask = 0xffffffff;
	}
	return 0;
}

static void dump_walk_from(const struct dump_prog *p, struct dump_walk *w,
			   unsigned int pc, struct dump_val a,
			   struct dump_val x, struct dump_val *mem);

/**
 * dump_branch() - follow both ways of a conditional jump
 * @p:		program
 * @w:		walk
 * @pc:		index of the jump
 * @a:		accumulator
 * @x:		index register
 * @mem:	scratch memory (BPF_MEMWORDS)
 */
static void dump_branch(const struct dump_prog *p, struct dump_walk *w,
			unsigned int pc, struct dump_val a, struct dump_val x,
			struct dump_val *mem)
{
	const struct sock_filter *f = &p->insn[pc];
	uint16_t op = BPF_OP(f->code);
	uint32_t k = f->k;
	int sense;

	if (BPF_SRC(f->code) == BPF_X) {
		if (x.sym) {
			w->error = true;
			return;
		}
		k = x.k;
	}

	if (!a.sym) {
		bool t = dump_cond(a.k, op, k);

		dump_walk_from(p, w, pc + 1 + (t ? f->jt : f->jf), a, x, mem);
		return;
	}
	if (w->ncons == DUMP_CONS_MAX) {
		w->error = true;
		return;
	}

	for (sense = 1; sense >= 0; sense--) {
		struct dump_cons *c = &w->cons[w->ncons++];

		c->word = a.word;
		c->mask = a.mask;
		c->op = op;
		c->k = k;
		c->holds = sense;
		dump_walk_from(p, w, pc + 1 + (sense ? f->jt : f->jf), a, x,
			       mem);
		w->ncons--;
	}
}

/**
 * dump_ret() - a return: note whether the path allows, if it can happen
 * @w:		walk
 * @action:	the value returned
 */
static void dump_ret(struct dump_walk *w, uint32_t action)
{
	if (!dump_feasible(w))
		return;
	if (DUMP_ALLOWS(action & SECCOMP_RET_ACTION_FULL))
		w->allow = true;
	else
		w->deny = true;
}

/**
 * dump_alu() - an ALU instruction: AND keeps a value symbolic
 * @f:		instruction
 * @a:		accumulator, updated
 * @x:		index register
 *
 * Return: 0, or -1 for an operation on a symbolic value other than AND
 */
static int dump_alu(const struct sock_filter *f, struct dump_val *a,
		    struct dump_val x)
{
	uint32_t k = f->k;

	if (BPF_SRC(f->code) == BPF_X) {
		if (x.sym)
			return -1;
		k = x.k;
	}
	if (a->sym) {
		if (BPF_OP(f->code) != BPF_AND)
			return -1;
		a->mask &= k;
		return 0;
	}

	switch (BPF_OP(f->code)) {
	case BPF_ADD:	a->k += k;	break;
	case BPF_SUB:	a->k -= k;	break;
	case BPF_MUL:	a->k *= k;	break;
	case BPF_OR:	a->k |= k;	break;
	case BPF_AND:	a->k &= k;	break;
	case BPF_XOR:	a->k ^= k;	break;
	case BPF_LSH:	a->k = k < 32 ? a->k << k : 0;	break;
	case BPF_RSH:	a->k = k < 32 ? a->k >> k : 0;	break;
	case BPF_NEG:	a->k = -a->k;	break;
	default:	return -1;
	}
	return 0;
}

/**
 * dump_walk_from() - follow every path of a program from an instruction
 * @p:		program
 * @w:		walk: comparisons so far, results
 * @pc:		instruction
 * @a:		accumulator
 * @x:		index register
 * @mem:	scratch memory, BPF_MEMWORDS values (copied on branches)
 */
static void dump_walk_from(const struct dump_prog *p, struct dump_walk *w,
			   unsigned int pc, struct dump_val a,
			   struct dump_val x, struct dump_val *mem)
{
	struct dump_val m[BPF_MEMWORDS];

	memcpy(m, mem, sizeof(m));
	for (; pc < p->len && !w->error; pc++) {
		const struct sock_filter *f = &p->insn[pc];

		if (++w->steps > DUMP_STEPS_MAX)
			w->error = true;

		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (BPF_MODE(f->code) == BPF_ABS) {
				if (dump_load(w, f->k, &a))
					w->error = true;
			} else if (BPF_MODE(f->code) == BPF_IMM) {
				a = (struct dump_val){ .k = f->k };
			} else if (BPF_MODE(f->code) == BPF_MEM &&
				   f->k < BPF_MEMWORDS) {
				a = m[f->k];
			} else {
				w->error = true;
			}
			break;
		case BPF_LDX:
			if (BPF_MODE(f->code) == BPF_IMM)
				x = (struct dump_val){ .k = f->k };
			else if (BPF_MODE(f->code) == BPF_MEM &&
				 f->k < BPF_MEMWORDS)
				x = m[f->k];
			else
				w->error = true;
			break;
		case BPF_ST:
		case BPF_STX:
			if (f->k >= BPF_MEMWORDS)
				w->error = true;
			else
				m[f->k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (dump_alu(f, &a, x))
				w->error = true;
			break;
		case BPF_JMP:
			if (BPF_OP(f->code) == BPF_JA) {
				pc += f->k;
				break;
			}
			dump_branch(p, w, pc, a, x, m);
			return;
		case BPF_RET:
			if (BPF_RVAL(f->code) == BPF_A && a.sym)
				w->error = true;
			else
				dump_ret(w, BPF_RVAL(f->code) == BPF_A ?
					 a.k : f->k);
			return;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	w->error = true;	/* ran off the end */
}

/**
 * dump_class() - what a program does with a call, whatever its arguments
 * @p:		program
 * @nr:		system call number
 * @allow:	set if some arguments get the call through
 * @deny:	set if some don't
 *
 * Return: 0, or -1 if the program can't be followed
 */
static int dump_class(const struct dump_prog *p, int nr, bool *allow,
		      bool *deny)
{
	static struct dump_walk w;
	struct dump_val a = { 0 }, x = { 0 };
	struct dump_val mem[BPF_MEMWORDS] = { { 0 } };

	memset(&w, 0, sizeof(w));
	w.data[0] = (uint32_t)nr;
	w.data[1] = (uint32_t)seccomp_arch_native();
	dump_walk_from(p, &w, 0, a, x, mem);
	*allow = w.allow;
	*deny = w.deny;
	return w.error ? -1 : 0;
}

/**
 * dump_filter() - print what the filters of a process allow
 * @pid:	process
 *
 * Return: 0 on success, 1 if a program couldn't be followed
 */
static int dump_filter(pid_t pid)
{
	int nr, ret = 0;

	dump_read_filters(pid);
	for (nr = 0; nr < DUMP_NR_MAX; nr++) {
		bool all = true, some = true;
		unsigned int i;
		char *name;

		for (i = 0; i < dump_nprogs; i++) {
			bool allow, deny;

			if (dump_class(&dump_progs[i], nr, &allow, &deny)) {
				fprintf(stderr, "seccomp_dump: can't follow "
					"filter %u for call %i\n", i, nr);
				ret = 1;
			}
			some = some && allow;
			all = all && allow && !deny;
		}
		if (!some)
			continue;

		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		printf("%s %s\n", name ? name : "?", all ? "always" : "args");
		free(name);
	}
	return ret;
}

/**
 * dump_eval() - run a program on concrete data
 * @p:		program
 * @d:		struct seccomp_data, as words
 *
 * Return: the action returned, SECCOMP_RET_KILL_PROCESS if it can't run
 */
static uint32_t dump_eval(const struct dump_prog *p, const uint32_t *d)
{
	uint32_t a = 0, x = 0, m[BPF_MEMWORDS] = { 0 };
	unsigned int pc;

	for (pc = 0; pc < p->len; pc++) {
		const struct sock_filter *f = &p->insn[pc];
		uint32_t k = BPF_SRC(f->code) == BPF_X ? x : f->k;
		struct dump_val v = { .k = a };

		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (BPF_MODE(f->code) == BPF_ABS && f->k % 4 == 0 &&
			    f->k / 4 < DUMP_WORDS)
				a = d[f->k / 4];
			else if (BPF_MODE(f->code) == BPF_IMM)
				a = f->k;
			else if (BPF_MODE(f->code) == BPF_MEM &&
				 f->k < BPF_MEMWORDS)
				a = m[f->k];
			else
				return SECCOMP_RET_KILL_PROCESS;
			break;
		case BPF_LDX:
			x = BPF_MODE(f->code) == BPF_MEM &&
			    f->k < BPF_MEMWORDS ? m[f->k] : f->k;
			break;
		case BPF_ST:
		case BPF_STX:
			if (f->k < BPF_MEMWORDS)
				m[f->k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (dump_alu(f, &v, (struct dump_val){ .k = x }))
				return SECCOMP_RET_KILL_PROCESS;
			a = v.k;
			break;
		case BPF_JMP:
			if (BPF_OP(f->code) == BPF_JA)
				pc += f->k;
			else
				pc += dump_cond(a, BPF_OP(f->code), k) ?
				      f->jt : f->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_A ? a : f->k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		}
	}
	return SECCOMP_RET_KILL_PROCESS;
}

/**
 * dump_call() - evaluate the filters of a process for one call
 * @pid:	process
 * @name:	libseccomp name of the call
 * @argc:	number of arguments given
 * @argv:	arguments, as numbers
 *
 * Return: 0 if allowed, 3 if not
 */
static int dump_call(pid_t pid, const char *name, int argc, char **argv)
{
	uint32_t d[DUMP_WORDS] = { 0 };
	int nr = seccomp_syscall_resolve_name(name), i;
	unsigned int f;

	if (nr < 0)
		dump_die("unknown system call, or not on this architecture");
	if (argc > 6)
		dump_die("at most 6 arguments");

	d[0] = (uint32_t)nr;
	d[1] = (uint32_t)seccomp_arch_native();
	for (i = 0; i < argc; i++) {
		uint64_t v = strtoull(argv[i], NULL, 0);

		d[4 + 2 * i] = (uint32_t)v;
		d[5 + 2 * i] = (uint32_t)(v >> 32);
	}

	dump_read_filters(pid);
	for (f = 0; f < dump_nprogs; f++) {
		uint32_t r = dump_eval(&dump_progs[f], d);

		if (!DUMP_ALLOWS(r & SECCOMP_RET_ACTION_FULL)) {
			printf("kill\n");
			return 3;
		}
	}
	printf("allow\n");
	return 0;
}

/**
 * dump_remote() - read memory of another process
 * @pid:	process
 * @addr:	address there
 * @buf:	destination
 * @len:	bytes
 */
static void dump_remote(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr,
				.iov_len = len };

	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		dump_die("process_vm_readv");
}

/**
 * dump_remote_str() - read a string of another process
 * @pid:	process
 * @addr:	its address there
 * @buf:	destination, DUMP_STR_MAX bytes, always terminated
 */
static void dump_remote_str(pid_t pid, uint64_t addr, char *buf)
{
	size_t i;

	for (i = 0; i < DUMP_STR_MAX - 1; i++) {
		dump_remote(pid, addr + i, buf + i, 1);
		if (!buf[i])
			return;
	}
	buf[i] = '\0';
}

/**
 * dump_section() - address and size of the section holding the lists
 * @pid:	process
 * @size:	set to the section's size
 *
 * Return: its address in the process (load bias added)
 */
static uint64_t dump_section(pid_t pid, uint64_t *size)
{
	char path[64], names[4096];
	uint64_t aux[2], entry = 0;
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strs;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%i/auxv", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		dump_die(path);
	while (read(fd, aux, sizeof(aux)) == sizeof(aux) && aux[0]) {
		if (aux[0] == AT_ENTRY)
			entry = aux[1];
	}
	close(fd);

	snprintf(path, sizeof(path), "/proc/%i/exe", (int)pid);
	if ((fd = open(path, O_RDONLY)) < 0)
		dump_die(path);
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    pread(fd, &strs, sizeof(strs), (off_t)(eh.e_shoff +
		  (uint64_t)eh.e_shstrndx * eh.e_shentsize)) != sizeof(strs))
		dump_die("not a 64-bit ELF file, or no section headers");
	memset(names, 0, sizeof(names));
	if (pread(fd, names, strs.sh_size < sizeof(names) ? strs.sh_size :
		  sizeof(names) - 1, (off_t)strs.sh_offset) < 0)
		dump_die("can't read section names");

	for (i = 0; i < eh.e_shnum; i++) {
		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff +
			  (uint64_t)i * eh.e_shentsize)) != sizeof(sh))
			dump_die("can't read a section header");
		if (sh.sh_name < sizeof(names) - 1 &&
		    !strcmp(names + sh.sh_name, "relay_syscalls")) {
			close(fd);
			*size = sh.sh_size;
			return sh.sh_addr + entry - eh.e_entry;
		}
	}
	errno = 0;
	dump_die("no section relay_syscalls: no SYSCALLS() lists");
}

/**
 * dump_mode() - SYSCALLS_* bit of a mode name
 * @name:	passt, vu, pasta, pesto, repair or resolv
 *
 * Return: the bit, exits on an unknown name
 */
static unsigned int dump_mode(const char *name)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} modes[] = {
		{ "passt", SYSCALLS_PASST },	{ "vu", SYSCALLS_VU },
		{ "pasta", SYSCALLS_PASTA },	{ "pesto", SYSCALLS_PESTO },
		{ "repair", SYSCALLS_REPAIR },	{ "resolv", SYSCALLS_RESOLV },
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(name, modes[i].name))
			return modes[i].bit;
	}
	errno = 0;
	dump_die("mode: passt, vu, pasta, pesto, repair or resolv");
}

/**
 * struct dump_listed - what the lists say of one call
 * @any:	a rule without comparisons
 * @some:	at least one rule
 * @why:	reasons, "; " between them
 */
struct dump_listed {
	bool any;
	bool some;
	char why[512];
};

static struct dump_listed dump_listed[DUMP_NR_MAX];

/**
 * dump_rule() - note one rule read from the process
 * @pid:	process
 * @r:		rule, as read (pointers are the process's)
 */
static void dump_rule(pid_t pid, const struct syscalls_rule *r)
{
	char name[DUMP_STR_MAX], why[DUMP_STR_MAX], *p = name, *bar;
	struct dump_listed *l;
	int nr = -1;

	dump_remote_str(pid, (uint64_t)(uintptr_t)r->name, name);
	dump_remote_str(pid, (uint64_t)(uintptr_t)r->why, why);

	/* "a|b": the first the architecture has, as util/syscalls.c does */
	for (;;) {
		bar = strchr(p, '|');
		if (bar)
			*bar = '\0';
		nr = seccomp_syscall_resolve_name(p);
		if (nr >= 0 || !bar)
			break;
		p = bar + 1;
	}
	if (nr < 0 || nr >= DUMP_NR_MAX)
		return;

	l = &dump_listed[nr];
	l->some = true;
	if (!r->arg[0].op)
		l->any = true;
	if (!strstr(l->why, why)) {
		size_t len = strlen(l->why);

		snprintf(l->why + len, sizeof(l->why) - len, "%s%s",
			 len ? "; " : "", why);
	}
}

/**
 * dump_lists() - print what the lists of a process say of a mode
 * @mode:	mode name
 * @pid:	process
 * @verbose:	print the reasons too
 *
 * Return: 0
 */
static int dump_lists(const char *mode, pid_t pid, bool verbose)
{
	uint64_t ptrs[DUMP_LISTS_MAX], size, addr = dump_section(pid, &size);
	unsigned int bit = dump_mode(mode), i, j;
	size_t n = size / sizeof(uint64_t);
	int nr;

	if (n > DUMP_LISTS_MAX)
		dump_die("too many lists");
	dump_remote(pid, addr, ptrs, n * sizeof(uint64_t));

	for (i = 0; i < n; i++) {
		struct syscalls_rule rules[DUMP_RULES_MAX];
		struct syscalls_list l;

		dump_remote(pid, ptrs[i], &l, sizeof(l));
		if (!(l.modes & bit))
			continue;
		if (l.n > DUMP_RULES_MAX)
			dump_die("too many rules in a list");
		dump_remote(pid, (uint64_t)(uintptr_t)l.rules, rules,
			    l.n * sizeof(rules[0]));
		for (j = 0; j < l.n; j++)
			dump_rule(pid, &rules[j]);
	}

	for (nr = 0; nr < DUMP_NR_MAX; nr++) {
		const struct dump_listed *l = &dump_listed[nr];
		char *name;

		if (!l->some)
			continue;
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
		printf("%s %s", name ? name : "?", l->any ? "always" : "args");
		printf(verbose ? " %s\n" : "\n", l->why);
		free(name);
	}
	return 0;
}

/**
 * dump_usage() - print usage and exit with status 2
 */
static void __attribute__((noreturn)) dump_usage(void)
{
	fprintf(stderr,
		"Usage: seccomp_dump filter PID\n"
		"       seccomp_dump lists [-v] MODE PID\n"
		"       seccomp_dump call PID NAME [ARG]...\n"
		"       seccomp_dump count PID\n"
		"MODE: passt, vu, pasta, pesto, repair, resolv\n");
	exit(2);
}

/**
 * main() - run one of the commands
 * @argc:	argument count
 * @argv:	command and its arguments
 *
 * Return: see the top of this file
 */
int main(int argc, char **argv)
{
	bool verbose = argc > 2 && !strcmp(argv[2], "-v");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "filter"))
		return dump_filter((pid_t)atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "count")) {
		dump_read_filters((pid_t)atoi(argv[2]));
		printf("%u\n", dump_nprogs);
		return 0;
	}
	if (argc == 4 + verbose && !strcmp(argv[1], "lists"))
		return dump_lists(argv[2 + verbose], (pid_t)atoi(argv[3 +
				  verbose]), verbose);
	if (argc >= 4 && !strcmp(argv[1], "call"))
		return dump_call((pid_t)atoi(argv[2]), argv[3], argc - 4,
				 argv + 4);
	dump_usage();
}
