# SPDX-License-Identifier: GPL-2.0-only
# jobmix: `make` builds only (missing build packages: it fails naming `make
# deps`); `make deps` installs the missing Debian packages (as root); `make run`
# installs what is missing, builds, runs the quick workload and prints its
# table; `make test` installs what is missing, builds and runs every test.
# `make install` / `make uninstall` (PREFIX, DESTDIR), `make deb` (a .deb in
# build/deb), `make man` (docs/jobmix.1 from `jobmix help --man`).

CC       ?= cc
OPT      ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Wshadow -Wformat=2 -Wno-format-truncation -Werror
CPPFLAGS += -D_GNU_SOURCE -Iinclude $(shell pkg-config --cflags-only-I libpq 2>/dev/null || echo -I/usr/include/postgresql)
PKGS     := yaml-0.1 jansson libcrypto sqlite3 libpq
# what `make` needs to build jobmix (checked, never installed, by the default goal)
BUILD_PKGS := libyaml-dev libjansson-dev libssl-dev libsqlite3-dev libpq-dev pkg-config
DEB_PKGS := libyaml-dev libjansson-dev libcmocka-dev libssl-dev libsqlite3-dev libpq-dev gnuplot-nox pkg-config jq
# only for `make deb` (and the package test, which skips without them)
DEB_PKG_TOOLS := dpkg-dev debhelper fakeroot lintian

VERSION  := $(shell sed -n 's/^\#define JOBMIX_VERSION "\(.*\)"/\1/p' include/jobmix/version.h)

# make install: the binary finds libexec/jobmix and share/jobmix relative to
# its own location, so the tree may be moved after installing.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     := $(PREFIX)/bin
LIBEXECDIR := $(PREFIX)/libexec/jobmix
DATADIR    := $(PREFIX)/share/jobmix
MANDIR     := $(PREFIX)/share/man/man1
COMPDIR    := $(PREFIX)/share/bash-completion/completions
UNITDIR    := $(PREFIX)/lib/systemd/system
DOCDIR     := $(PREFIX)/share/doc/jobmix
INSTALL    ?= install
SHIP_LIBEXEC   := $(sort $(wildcard libexec/*.sh))
SHIP_WORKLOADS := $(sort $(wildcard workloads/*.yaml))
# the docs, under $(DOCDIR) as in the tree (README.md's links to docs/ hold)
SHIP_DOCS      := README.md $(sort $(wildcard docs/*.md)) bench/README.md
# the fleet's Ansible playbook and role, lkp-tests' program and jobs
# (docs/fleet.md), under $(DATADIR)/ansible and $(DATADIR)/lkp as in tools/
SHIP_TOOLS     := $(sort $(shell find tools/ansible tools/lkp -type f 2>/dev/null))

BUILD    := build
ifeq ($(SANITIZE),1)
BUILD    := build/san
OPT      := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDSAN    := -fsanitize=address,undefined
endif

CFLAGS   += $(OPT) $(WARN) -MMD -MP

# a quiet build: "  CC      src/x.c" a file (the compiler's warnings and
# errors as ever); V=1 prints the full command lines
ifeq ($(V),1)
Q        :=
say       = @:
else
Q        := @
say       = @printf '  %-7s %s\n' '$(1)' '$(2)'
endif
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lyaml -ljansson -lcrypto -lsqlite3 -lpq) -lm -lpthread
LDFLAGS  += $(LDSAN)

SRCS     := $(shell find src -name '*.c' ! -name main.c ! -name '*.bpf.c' | sort)
OBJS     := $(SRCS:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libjobmix.a
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
LIBEXEC  := $(wildcard libexec/*)

.PHONY: all deps deps-ok deps-tools run test check-long readme man install uninstall deb clean
.DEFAULT_GOAL := all

# builds only: never installs anything (`make deps`, `make run`, `make test` do).
# `make SANITIZE=1` builds build/san/jobmix and leaves ./jobmix, the plain
# build, as it is (tests/e2e/install.sh checks the recipe).
ifeq ($(SANITIZE),1)
all: $(BUILD)/jobmix

.PHONY: jobmix
jobmix:
	@echo "jobmix: SANITIZE=1 builds $(BUILD)/jobmix; ./jobmix is the plain build's (make jobmix)"; exit 2
else
all: jobmix

jobmix: $(BUILD)/src/main.o $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
endif

$(LIB): $(OBJS)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)ar rcs $@ $^

$(OBJS) $(BUILD)/src/main.o: | $(BUILD)/.deps-ok

# The block layer's tracer (src/trace, docs/tracing.md): a BPF program built
# with clang against the running kernel's BTF (CO-RE: vmlinux.h is dumped
# into the build folder, never committed) and embedded in jobmix as a
# bpftool skeleton.  Built when clang, bpftool, libbpf and
# /sys/kernel/btf/vmlinux are there (IOTRACE=0: never); without them
# jobmix builds and runs with tracing off, and a run says so in one line.
IOTRACE  ?= $(shell command -v clang >/dev/null 2>&1 && command -v bpftool >/dev/null 2>&1 && \
	      pkg-config --exists libbpf 2>/dev/null && test -r /sys/kernel/btf/vmlinux && echo 1 || echo 0)
ifeq ($(IOTRACE),1)
IOT_DIR  := $(BUILD)/trace
LDLIBS   += $(shell pkg-config --libs libbpf)
$(BUILD)/src/trace/iotrace.o: CPPFLAGS += -DJOBMIX_IOTRACE -I$(IOT_DIR)
$(BUILD)/src/trace/iotrace.o: $(IOT_DIR)/iotrace.skel.h

$(IOT_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)bpftool btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

# the object without its DWARF (bpftool gen object) is what the skeleton embeds
$(IOT_DIR)/iotrace.bpf.o: src/trace/bpf/iotrace.bpf.c src/trace/bpf/iotrace_layout.h $(IOT_DIR)/vmlinux.h
	$(call say,BPF,$<)
	$(Q)clang -g -O2 -target bpf -mcpu=v3 -Wall -Werror -I$(IOT_DIR) -Isrc/trace/bpf \
		-c $< -o $(IOT_DIR)/iotrace.dwarf.o
	$(Q)bpftool gen object $@ $(IOT_DIR)/iotrace.dwarf.o

$(IOT_DIR)/iotrace.skel.h: $(IOT_DIR)/iotrace.bpf.o
	$(call say,GEN,$@)
	$(Q)bpftool gen skeleton $< name iotrace_bpf > $@.tmp && mv $@.tmp $@
endif

# the build a run records (env.context.build)
$(BUILD)/src/sys/context.o: CPPFLAGS += -DJOBMIX_BUILD='"$(notdir $(CC)) $(shell $(CC) -dumpfullversion 2>/dev/null) $(OPT)"'

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(call say,CCLD,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB) -lcmocka $(LDLIBS)

# `make deps`: missing Debian packages are installed when root; otherwise the
# exact apt-get line is printed and make fails.  `make run` and `make test`
# call it first.  The default goal only checks the build packages (a stamp
# keeps this to one check) and fails naming `make deps`; without dpkg-query
# (not Debian) it cannot tell and builds.  NODEPS=1 skips the check (a
# package build: debian/control's Build-Depends).
deps:
	@$(MAKE) --no-print-directory deps-install DEPS_LIST="$(DEB_PKGS)"
	@mkdir -p $(BUILD) && touch $(BUILD)/.deps-ok

# the packaging tools, for `make deb` only
deps-tools:
	@$(MAKE) --no-print-directory deps-install DEPS_LIST="$(DEB_PKG_TOOLS)"

.PHONY: deps-install
deps-install:
	@missing=""; for p in $(DEPS_LIST); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "deps: all Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  echo "deps: missing Debian packages; run as root:"; \
	  echo "  apt-get install -y$$missing"; exit 1; \
	fi

deps-ok: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok:
ifeq ($(NODEPS),1)
	@mkdir -p $(BUILD) && touch $@
else
	@if command -v dpkg-query >/dev/null 2>&1; then \
	  missing=""; for p in $(BUILD_PKGS); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	  done; \
	  if [ -n "$$missing" ]; then \
	    echo "jobmix: missing Debian packages to build:$$missing"; \
	    echo "  run 'make deps' (as root it installs them; otherwise it prints the line to run)"; exit 1; \
	  fi; \
	fi; mkdir -p $(BUILD) && touch $@
endif

# deps first, then the build (not as prerequisites: with -j the build would
# check the packages before deps had installed them)
run:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory jobmix
	./jobmix run workloads/quick.yaml -u 1-4 -j 50 -o results

# `make test`: every unit suite and every e2e script but LONG_E2E, the long
# ones (a 2,000-user ramp, adaptive ramps, until-decided rounds, the .deb
# built and installed, the fleet playbook over ssh), which `make check-long`
# runs; .ci/run runs both.  Per-script times: docs/testing.md.
LONG_E2E  ?= tests/e2e/decided.sh tests/e2e/ramp.sh tests/e2e/load.sh tests/e2e/deb.sh \
	     tests/e2e/ansible.sh
TEST_E2E  := $(filter-out $(LONG_E2E),$(sort $(wildcard tests/e2e/*.sh)))

test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory jobmix $(UNIT_BIN)
	@E2E="$(TEST_E2E)" tests/run.sh $(BUILD)/tests

# the long e2e scripts alone (no unit suite: `none` has no test_* in it)
check-long:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory jobmix
	@E2E="$(LONG_E2E)" tests/run.sh none

# the generated tables of docs/jobs.md and docs/workload.md (between their
# markers); tests/e2e/readme.sh fails when either is stale
readme: jobmix
	tools/readme-jobs.sh docs/jobs.md > docs/jobs.md.tmp && mv docs/jobs.md.tmp docs/jobs.md
	tools/readme-jobs.sh docs/workload.md > docs/workload.md.tmp && mv docs/workload.md.tmp docs/workload.md

# ---- fuzzing and sanitizer runs (issue 11) ------------------------------------
# `make fuzz`: the libFuzzer targets in tests/fuzz/, built with clang and
# ASan+UBSan into build/fuzz (the clang packages installed like `deps`), each
# run FUZZ_TIME seconds; fails on a crash, leak or hang.  `make check-san`:
# the unit suites and the e2e scripts in SAN_E2E against the SANITIZE=1 build
# (valgrind.sh, run by `make test`, checks the plain build).
FUZZ_PKGS := clang libclang-rt-14-dev
FUZZ_TIME ?= 60
FUZZ_OPT  := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	     -fno-sanitize-recover=undefined
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(BUILD)/%,$(wildcard tests/fuzz/fuzz_*.c))
# ramp.sh judges where a ramp settles against timing: under ASan the users run
# ~3x slower and the crossing moves; its logic runs under ASan in test_ramp,
# budget.sh and ramp_answer.sh
# ansible.sh tests the playbook (its jobmix runs over ssh, without the ASan
# environment): the runs it makes are pg.sh's, which check-san runs
SAN_E2E   ?= $(filter-out tests/e2e/valgrind.sh tests/e2e/ramp.sh tests/e2e/ansible.sh,$(wildcard tests/e2e/*.sh))
DEB_PKGS  += valgrind
# the block layer's tracer (IOTRACE above): the BPF program's compiler, the
# skeleton's and vmlinux.h's generator, the library that loads it
DEB_PKGS  += clang bpftool libbpf-dev
# the mkfs programs whose option allow-lists tests/e2e/scratch.sh tries (it skips without them)
DEB_PKGS  += xfsprogs btrfs-progs f2fs-tools
# scratch.sh holds a device open O_EXCL with it (axes.sh writes a partition table)
DEB_PKGS  += python3
# the browser tests/e2e/report.sh and html.sh lay the HTML reports out in (they skip without it)
DEB_PKGS  += chromium
# the fleet playbook (tools/ansible): tests/e2e/ansible.sh runs it over a
# private sshd and checks it with ansible-lint; lkp.sh reads the lkp job
# files as YAML (python3-yaml)
DEB_PKGS  += ansible ansible-lint openssh-server openssh-client python3-yaml
.PHONY: fuzz fuzz-build check-san

fuzz:
	@$(MAKE) --no-print-directory deps-install DEPS_LIST="$(DEB_PKGS) $(FUZZ_PKGS)"
	@$(MAKE) --no-print-directory fuzz-build BUILD=build/fuzz CC=clang OPT="$(FUZZ_OPT)" \
		WARN="$(WARN) -Wno-unknown-warning-option -Wno-unknown-attributes" DEB_PKGS="$(DEB_PKGS) $(FUZZ_PKGS)"
	@tests/fuzz/run.sh build/fuzz $(FUZZ_TIME)
fuzz-build: $(FUZZ_BIN)
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(LIB)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# build/san/jobmix finds its helpers and the shipped mixes through build/san/libexec
# and build/san/workloads (links to the tree's own)
check-san: all
	@$(MAKE) --no-print-directory SANITIZE=1 build/san/jobmix $(UNIT_BIN:$(BUILD)/%=build/san/%)
	@ln -sfn ../../libexec build/san/libexec && ln -sfn ../../workloads build/san/workloads
	@rm -rf build/san/log && mkdir -p build/san/log
	@JOBMIX=build/san/jobmix JOBMIX_SANITIZED=1 E2E="$(SAN_E2E)" ASAN_OPTIONS=log_path=$(CURDIR)/build/san/log/asan \
	  UBSAN_OPTIONS=print_stacktrace=1:log_path=$(CURDIR)/build/san/log/ubsan \
	  tests/run.sh build/san/tests; rc=$$?; \
	if [ -n "$$(ls build/san/log)" ]; then \
	  echo "check-san: $$(ls build/san/log | wc -l) sanitizer reports in build/san/log; the first:"; \
	  head -n 40 $$(ls -d build/san/log/* | head -3); exit 1; \
	fi; exit $$rc
$(BUILD)/jobmix: $(BUILD)/src/main.o $(LIB)
	$(call say,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# jobmix(1), generated from the commands table, each command's help and the
# job registry; tests/e2e/man.sh fails when the committed page is stale
man: jobmix
	./jobmix help --man > docs/jobmix.1.tmp && mv docs/jobmix.1.tmp docs/jobmix.1

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/workloads \
		$(DESTDIR)$(MANDIR) $(DESTDIR)$(COMPDIR)
	$(INSTALL) -m 755 jobmix $(DESTDIR)$(BINDIR)/jobmix
	$(INSTALL) -m 755 tools/nightly.sh $(DESTDIR)$(BINDIR)/jobmix-nightly
	$(INSTALL) -m 755 $(filter %.sh,$(SHIP_LIBEXEC)) $(DESTDIR)$(LIBEXECDIR)/
	$(INSTALL) -m 644 $(SHIP_WORKLOADS) $(DESTDIR)$(DATADIR)/workloads/
	$(INSTALL) -m 644 docs/jobmix.1 $(DESTDIR)$(MANDIR)/jobmix.1
	$(INSTALL) -m 644 tools/jobmix.bash-completion $(DESTDIR)$(COMPDIR)/jobmix
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' tools/systemd/jobmix-nightly.service.in >$(DESTDIR)$(UNITDIR)/jobmix-nightly.service
	chmod 644 $(DESTDIR)$(UNITDIR)/jobmix-nightly.service
	$(INSTALL) -m 644 tools/systemd/jobmix-nightly.timer $(DESTDIR)$(UNITDIR)/jobmix-nightly.timer
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/bench
	for f in $(SHIP_DOCS); do $(INSTALL) -m 644 $$f $(DESTDIR)$(DOCDIR)/$$f || exit 1; done
	for f in $(SHIP_TOOLS); do m=644; [ -x $$f ] && m=755; \
		$(INSTALL) -D -m $$m $$f $(DESTDIR)$(DATADIR)/$${f#tools/} || exit 1; done

# removes what install put there, and the directories that are jobmix's own
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/jobmix $(DESTDIR)$(BINDIR)/jobmix-nightly $(DESTDIR)$(MANDIR)/jobmix.1 $(DESTDIR)$(COMPDIR)/jobmix
	rm -f $(DESTDIR)$(UNITDIR)/jobmix-nightly.service $(DESTDIR)$(UNITDIR)/jobmix-nightly.timer
	rm -f $(addprefix $(DESTDIR)$(LIBEXECDIR)/,$(notdir $(SHIP_LIBEXEC)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/workloads/,$(notdir $(SHIP_WORKLOADS)))
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(SHIP_DOCS))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/,$(SHIP_TOOLS:tools/%=%))
	-cd $(DESTDIR)$(DATADIR) 2>/dev/null && for d in $(sort $(dir $(SHIP_TOOLS:tools/%=%))); do \
		rmdir -p --ignore-fail-on-non-empty $$d 2>/dev/null; done; true
	-rmdir $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(DATADIR)/workloads $(DESTDIR)$(DATADIR)
	-rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR)/bench $(DESTDIR)$(DOCDIR)

# A .deb from a copy of the tree (tracked and new files) in build/deb, so that
# dpkg-buildpackage's output (written to the parent directory) stays in build/;
# then lintian, whose report is kept in build/deb/lintian.txt (errors fail).
DEB_DIR := build/deb
deb: deps-tools
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/jobmix-$(VERSION)
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_DIR)/jobmix-$(VERSION)
	cd $(DEB_DIR)/jobmix-$(VERSION) && dpkg-buildpackage -us -uc -b -Jauto
	lintian $(DEB_DIR)/jobmix_$(VERSION)_*.changes > $(DEB_DIR)/lintian.txt 2>&1; rc=$$?; \
		cat $(DEB_DIR)/lintian.txt; exit $$rc
	@ls $(DEB_DIR)/*.deb

clean:
	rm -rf build jobmix

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
