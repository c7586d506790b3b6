# SPDX-License-Identifier: GPL-2.0-or-later
# Makefile - builds passt (pasta is a link to it), unit tests and checks
#
# make			build passt, pasta, pesto (the -c client) and
#			passt-repair (the TCP_REPAIR helper for migration)
# make check		unit tests (Check) and integration tests, as root
# make interop		podman 5, QEMU 10 and libvirt 11 from a Debian 13 root
#			with this build, as root (tests/interop/run)
# make stress		the stall matrix and tcp_pressure.sh under the
#			contention harness, 5 times, with a table (tests/stress)
# make unit		unit tests only
# make sanitize		ASan+UBSan build (with DEBUG=1), then unit and
#			integration tests
# make hook		test build in build-hook/: SIGUSR2 makes a forbidden
#			system call (the seccomp filter must kill it)
# make fuzz		libFuzzer targets (clang), each run FUZZ_SECS seconds
# make cppcheck		static analysis
# make clang-tidy	static analysis
# make shellcheck	shellcheck on every shell script (found by shebang)
# make install		install to $(DESTDIR)$(PREFIX)
# make deb		Debian package (contrib/debian/) in build-deb/
#
# CI=1 turns warnings into errors.

PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
BUILD	?= build

CC	?= cc
CFLAGS	?= -O2 -g
override CFLAGS	+= -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wno-missing-field-initializers
override CFLAGS	+= -fstack-protector-strong -fPIE -D_FORTIFY_SOURCE=2
override CFLAGS	+= -fno-strict-aliasing
override LDFLAGS	+= -pie -Wl,-z,relro -Wl,-z,now
override LDLIBS	+= -lseccomp -lcap-ng

ifneq ($(CI),)
override CFLAGS	+= -Werror
endif

# DEBUG=1: run-time checks of invariants (e.g. after every loop iteration)
ifneq ($(DEBUG),)
override CFLAGS	+= -DPASST_DEBUG
endif

MODULE_DIRS := util conf guest net flow fwd tap stream vhost_user tcp udp \
	qdisc isolation migrate
LIB_SRCS := $(sort $(foreach d,$(MODULE_DIRS),$(wildcard $(d)/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
HDRS := $(foreach d,$(MODULE_DIRS),$(wildcard $(d)/*.h))

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# Standalone tests (tests/unit/standalone/) define doubles for other
# modules: each is linked with its own short list of sources only
STANDALONE := test_net_io test_arp_ndp test_dhcp test_dhcpv6 test_qdisc \
	test_vu_virtq test_vu_mem test_vu_lend test_tcp_pace
SRCS_test_net_io := net/net.c net/frame.c net/arp.c net/ndp.c net/neigh.c \
	net/dns_name.c net/checksum.c guest/guest.c guest/follow.c util/log.c \
	util/outfile.c
SRCS_test_arp_ndp := $(SRCS_test_net_io)
SRCS_test_dhcp := net/dhcp.c net/dhcpv6.c net/dns_name.c net/checksum.c \
	guest/guest.c guest/follow.c util/log.c util/outfile.c
SRCS_test_dhcpv6 := $(SRCS_test_dhcp)
SRCS_test_qdisc := qdisc/qdisc.c util/log.c util/outfile.c util/idle_trim.c \
	util/timer.c
SRCS_test_vu_virtq := vhost_user/vu_mem.c vhost_user/vu_virtq.c
SRCS_test_vu_mem := $(SRCS_test_vu_virtq)
SRCS_test_vu_lend := $(SRCS_test_vu_virtq)
# The pacing policies are pure: linked alone
SRCS_test_tcp_pace := tcp/tcp_pace.c
UNIT_BINS += $(STANDALONE:%=$(BUILD)/tests/%)
TOOL_SRCS := $(sort $(wildcard tests/tools/*.c))
TOOL_BINS := $(TOOL_SRCS:tests/tools/%.c=$(BUILD)/tools/%)
# Shared by the tools (tests/tools/lib/), linked into each
TOOL_LIB_SRCS := $(sort $(wildcard tests/tools/lib/*.c))
TOOL_LIB_HDRS := $(wildcard tests/tools/lib/*.h)
# Kernel probes (tests/probes/): check kernel behaviour tcp/ relies on
PROBE_SRCS := $(sort $(wildcard tests/probes/*.c))
PROBE_BINS := $(PROBE_SRCS:tests/probes/%.c=$(BUILD)/probes/%)

.PHONY: all unit check interop stress sanitize cppcheck clang-tidy shellcheck \
	install clean tools hook fuzz fuzz-build fuzz-targets deb deb-deps

all: $(BUILD)/passt $(BUILD)/pasta $(BUILD)/pesto $(BUILD)/passt-repair tools

# The default build also puts passt, pasta, pesto and passt-repair at the
# top of the tree
ifeq ($(BUILD),build)
all: passt pasta pesto passt-repair
endif

$(BUILD)/passt: $(BUILD)/passt.o $(LIB_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/pasta: $(BUILD)/passt
	ln -sf passt $@

passt: $(BUILD)/passt
	ln -sf $(BUILD)/passt passt

pasta: passt
	ln -sf passt pasta

# pesto: client of the -c configuration socket (client/), with the relay's
# own port parser and protocol code, and its seccomp filter code
PESTO_SRCS := client/pesto.c client/pesto_session.c conf/fwd_parse.c conf/fwd_table.c fwd/fwd_rules.c \
	fwd/pesto_wire.c util/log.c util/outfile.c util/syscalls.c
$(BUILD)/pesto: $(PESTO_SRCS) $(HDRS) client/pesto_session.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(PESTO_SRCS) -lseccomp

pesto: $(BUILD)/pesto
	ln -sf $(BUILD)/pesto pesto

# passt-repair: sets TCP_REPAIR on passt's sockets during migration
# (helper/), a program of its own: it has CAP_NET_ADMIN, passt never does.
# Its seccomp filter is built by the relay's code (util/syscalls.c)
REPAIR_SRCS := helper/passt_repair.c util/syscalls.c util/log.c \
	util/outfile.c
$(BUILD)/passt-repair: $(REPAIR_SRCS) util/syscalls.h util/log.h util/util.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(REPAIR_SRCS) -lseccomp -lcap-ng

passt-repair: $(BUILD)/passt-repair
	ln -sf $(BUILD)/passt-repair passt-repair

tools: $(TOOL_BINS) $(PROBE_BINS)

$(BUILD)/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) $(HDRS) $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LDLIBS) \
		$(shell pkg-config --libs check)

.SECONDEXPANSION:
$(STANDALONE:%=$(BUILD)/tests/%): $(BUILD)/tests/%: \
		tests/unit/standalone/%.c $$(SRCS_$$*) $(HDRS) \
		$(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -I. -o $@ $< $(SRCS_$*) \
		$(shell pkg-config --libs check)

# A tool may need a library (TOOL_LIBS_*) or a header of the relay
TOOL_LIBS_seccomp_dump := -lseccomp
$(BUILD)/tools/seccomp_dump: util/syscalls.h

$(BUILD)/tools/%: tests/tools/%.c $(TOOL_LIB_SRCS) $(TOOL_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TOOL_LIB_SRCS) $(TOOL_LIBS_$*)

# A probe may link the relay's own code for what it checks (SRCS_probe_*)
SRCS_probe_trunc_hold := tcp/tcp_rcvwnd.c
SRCS_probe_repair_move := tcp/tcp_repair.c
$(PROBE_BINS): $(BUILD)/probes/%: tests/probes/%.c $$(SRCS_probe_$$*) \
		tests/probes/probe.h tcp/tcp_window.h tcp/tcp_rcvwnd.h \
		tcp/tcp_repair.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -I. -o $@ $< $(SRCS_probe_$*)

unit: $(UNIT_BINS)
	@tests/unit/run $(UNIT_BINS)

# The test runner's count, "N passed, N failed", is the last line of
# "make check" also when a test failed: rather than failing the recipe, and
# having make print its "*** [Makefile:...] Error 1" line after the count,
# the recipe then ends make with SIGPIPE, which make does not handle (it
# just ends, printing nothing) and shells do not report either. make's
# exit status is then 141 (any failure: non-zero). The signal is sent
# before the recipe's shell exits, so make can't see that exit first. If
# make was started with SIGPIPE ignored, it reports the error as usual.
# Only for a recipe's last command: it ends the whole make run, as an
# error would. (SIGINT is no good: make handles it, and when it reaps the
# recipe's shell before its handler runs, it prints "wait: No child
# processes".)
STOP_MAKE_QUIETLY = || { kill -PIPE $$PPID; exit 1; }

# TESTS: integration scripts to run (names, as tests/run takes them);
# default all, with the unit tests. make sanitize skips the scripts that
# don't run the relay under test (tests/run --relay-only): fuzz.sh builds
# its own sanitized targets, and make check runs them all.
TESTS ?=

check: all hook $(UNIT_BINS)
	@tests/run $(TESTS) $(STOP_MAKE_QUIETLY)

# The clients users run (podman 5, QEMU 10, libvirt 11) from a Debian 13
# root that tests/interop/run builds on the first run and keeps
interop: all
	@tests/interop/run

stress: all
	@tests/stress

# Same sources, plus the SIGUSR2 trigger of isolation/sandbox.c, for
# tests/integration/isolation.sh; the normal build never has it
hook:
	$(MAKE) BUILD=build-hook CFLAGS="-O2 -g -DSANDBOX_TEST_HOOK" \
		build-hook/passt build-hook/pasta

sanitize:
	$(MAKE) BUILD=build-san DEBUG=1 \
		CFLAGS="-O1 -g -fsanitize=address,undefined \
		-fno-omit-frame-pointer -fno-sanitize-recover=all \
		-DSANDBOX_SANITIZER" \
		LDFLAGS="-fsanitize=address,undefined" all \
		$(UNIT_SRCS:tests/unit/%.c=build-san/tests/%) \
		$(STANDALONE:%=build-san/tests/%)
	$(MAKE) hook
	RELAY=build-san/pasta UNIT_DIR=build-san/tests \
		ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
		tests/run --relay-only $(TESTS)

# Fuzzing (tests/fuzz/, doc/fuzzing.md): libFuzzer targets built with clang
# into build-fuzz/, then each run for FUZZ_SECS seconds, FUZZ_JOBS at a
# time, in a network namespace of its own (tests/fuzz/run.sh)
FUZZ_TARGETS := fuzz_frame fuzz_tcp fuzz_udp_icmp fuzz_dhcp fuzz_ndp fuzz_conf \
	fuzz_pesto fuzz_vu_msg fuzz_vu_virtq fuzz_migrate
FUZZ_TARGETS += fuzz_repair_helper
FUZZ_TARGETS += fuzz_repair_passt
FUZZ_TARGETS += fuzz_mig_restore
FUZZ_TARGETS += fuzz_stream
FUZZ_TARGETS += fuzz_pesto_reply
FUZZ_SECS ?= 30
FUZZ_JOBS ?= 2
FUZZ_CC ?= clang
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra \
	-Wno-missing-field-initializers -fno-strict-aliasing -g -O1 \
	-fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all
FUZZ_OBJS := $(LIB_SRCS:%.c=build-fuzz/%.o) build-fuzz/tests/fuzz/fuzz_common.o \
	build-fuzz/tests/fuzz/fuzz_vu.o build-fuzz/tests/tools/lib/vu_client.o
FUZZ_HDRS := $(HDRS) tests/fuzz/fuzz.h tests/fuzz/fuzz_build.h \
	tests/fuzz/fuzz_vu.h tests/tools/lib/vu_client.h

build-fuzz/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# Objects stay between builds of one target and the next
.PRECIOUS: build-fuzz/%.o

# The helper's target compiles helper/passt_repair.c in (#include)
build-fuzz/tests/fuzz/fuzz_repair_helper.o: helper/passt_repair.c
build-fuzz/tests/fuzz/fuzz_mig_restore.o: helper/passt_repair.c
# Per target: functions it wraps (-Wl,--wrap), objects besides the relay's
FUZZ_LD_fuzz_stream := -Wl,--wrap=tap_frame_in
FUZZ_LD_fuzz_mig_restore := -Wl,--wrap=tap_state_register
build-fuzz/fuzz_pesto_reply: build-fuzz/client/pesto_session.o

build-fuzz/fuzz_%: build-fuzz/tests/fuzz/fuzz_%.o $(FUZZ_OBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Wl,--wrap=exit \
		$(FUZZ_LD_$(notdir $@)) -o $@ $^ $(LDLIBS)

# The target list, for tests/integration/fuzz.sh
fuzz-targets:
	@echo $(FUZZ_TARGETS)

fuzz-build: $(FUZZ_TARGETS:%=build-fuzz/%)

fuzz: fuzz-build
	FUZZ_DIR=build-fuzz tests/fuzz/run.sh -t $(FUZZ_SECS) -j $(FUZZ_JOBS) \
		$(FUZZ_TARGETS)

cppcheck:
	cppcheck --std=c11 --error-exitcode=1 --enable=warning,performance,portability \
		--inline-suppr --quiet -D_GNU_SOURCE -D__linux__ \
		--suppress=missingIncludeSystem \
		-I. passt.c client/pesto.c client/pesto_session.c helper/passt_repair.c $(LIB_SRCS) \
		$(UNIT_SRCS) $(TOOL_SRCS) \
		$(TOOL_LIB_SRCS) \
		$(PROBE_SRCS) $(wildcard tests/unit/standalone/*.c) \
		$(wildcard tests/fuzz/*.c)

# One file per clang-tidy run: clang-tidy 14's va_list checker reports an
# uninitialised va_list in every file after the first one that uses
# va_start() in the same run (LLVM bug 41311)
clang-tidy:
	@rc=0; for f in passt.c client/pesto.c client/pesto_session.c \
			helper/passt_repair.c \
			$(LIB_SRCS) $(TOOL_SRCS) \
			$(TOOL_LIB_SRCS) $(PROBE_SRCS) \
			$(wildcard tests/fuzz/*.c); do \
		clang-tidy --quiet --warnings-as-errors='*' $$f -- -I. \
			$(filter-out -fstack-protector-strong,$(CFLAGS)) \
			|| rc=1; \
	done; exit $$rc

# Every shell script of the tree: files whose first line is a sh, bash or
# busybox sh shebang, and the sourced libraries, which have no shebang but
# name their shell in a "shellcheck shell=" directive near the top. Found
# when the rule runs, so a new script is checked without being listed
# here. Run from the top of the tree: the scripts' "source=" directives
# are relative to it. Default severity: style findings fail too.
SHELLCHECK_FIND := find . \( -path ./.git -o -path './build*' \
	-o -path ./tests/out -o -path ./tests/fuzz/corpus \) -prune \
	-o -type f -size -1024k -print
SHELLCHECK_SHEBANG := '^\#! */(usr/)?bin/(env +)?(busybox +)?(ba|da)?sh( |$$)'
SHELLCHECK_DIRECTIVE := '^\# shellcheck shell='
shellcheck:
	@command -v shellcheck >/dev/null || \
		{ echo "shellcheck not found: apt-get install shellcheck"; exit 1; }
	@files=$$($(SHELLCHECK_FIND) | LC_ALL=C sort | while read -r f; do \
		{ head -n 1 "$$f" | grep -Eq $(SHELLCHECK_SHEBANG) || \
		  head -n 5 "$$f" | grep -q $(SHELLCHECK_DIRECTIVE); } && \
		echo "$$f"; done); \
	echo "shellcheck: $$(echo "$$files" | wc -l) scripts"; \
	shellcheck -x $$files

install: $(BUILD)/passt $(BUILD)/pesto $(BUILD)/passt-repair
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BUILD)/passt $(DESTDIR)$(BINDIR)/passt
	ln -sf passt $(DESTDIR)$(BINDIR)/pasta
	install -m 755 $(BUILD)/pesto $(DESTDIR)$(BINDIR)/pesto
	install -m 755 $(BUILD)/passt-repair $(DESTDIR)$(BINDIR)/passt-repair
	install -m 644 doc/passt.1 $(DESTDIR)$(MANDIR)/man1/passt.1
	ln -sf passt.1 $(DESTDIR)$(MANDIR)/man1/pasta.1
	install -m 644 doc/pesto.1 $(DESTDIR)$(MANDIR)/man1/pesto.1
	install -m 644 doc/passt-repair.1 \
		$(DESTDIR)$(MANDIR)/man1/passt-repair.1

# The package's build dependencies (Build-Depends of DEB_CONTROL) missing
# on this machine, as dpkg-checkbuilddeps names them: as root, with apt-get
# and without NO_APT, they are installed; otherwise the target fails with
# their list and the command that installs them
DEB_CONTROL ?= contrib/debian/control
deb-deps:
	@command -v dpkg-checkbuilddeps >/dev/null || { \
		echo "make deb: no dpkg-checkbuilddeps: apt-get install" \
		     "build-essential dpkg-dev"; exit 1; }
	@missing=$$(dpkg-checkbuilddeps $(DEB_CONTROL) 2>&1 | \
		sed -n 's/.*Unmet build dependencies: //p' | \
		sed 's/ *([^)]*)//g; s/ *| *[^ ]*//g'); \
	[ -z "$$missing" ] && exit 0; \
	if [ -z "$(NO_APT)" ] && [ "$$(id -u)" = 0 ] && \
	   command -v apt-get >/dev/null; then \
		echo "make deb: installing build dependencies: $$missing"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			-o DPkg::Lock::Timeout=600 $$missing && exit 0; \
		echo "make deb: apt-get failed (try apt-get update first)"; \
	fi; \
	echo "make deb: missing build dependencies: $$missing"; \
	echo "make deb: install them with: apt-get install $$missing"; \
	exit 1

# The package is built from a copy of the tree (no build output, no .git)
# with contrib/debian/ as its debian/ directory
DEB_SRC := build-deb/passt-relay
deb: deb-deps
	rm -rf build-deb
	mkdir -p $(DEB_SRC)
	tar -c --exclude=./build --exclude='./build-*' --exclude=./.git \
		--exclude=./tests/out --exclude=./passt --exclude=./pasta \
		--exclude=./pesto --exclude=./passt-repair . | \
		tar -x -C $(DEB_SRC)
	cp -r contrib/debian $(DEB_SRC)/debian
	cd $(DEB_SRC) && dpkg-buildpackage -b -us -uc
	ls build-deb/*.deb

clean:
	rm -rf $(BUILD) build-san build-hook build-fuzz build-deb passt pasta \
		pesto passt-repair
