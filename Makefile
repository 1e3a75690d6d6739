# lua-flame: one static binary with its BPF programs and flame-graph assets inside.
# `make` installs the Debian packages it needs, builds the static libraries from Debian's
# sources and links ./lua-flame; `make test` runs every test; `make demo` profiles a bundled
# Lua workload; `make dist` writes the release tarballs. `make ARCH=arm64` cross-builds
# ./lua-flame-aarch64 (objects in build/arm64, libraries in .cache/deps-arm64).

# ARCH: the architecture the binary is for. Kernel-style names are accepted too, as ARCH may
# come from the environment.
ARCH      ?= x86_64
ifneq ($(filter $(ARCH),x86_64 x86 amd64),)
DEPS      ?= .cache/deps
B         := build
CC        := musl-gcc
ARCHNAME  := x86_64
BPF_ARCH  := x86
BIN       ?= lua-flame
PKG_FLAGS :=
# The C++ runtime's demangler (cp-demangle, which needs only the C library); found at link
# time, once the build packages are in.
SUPCXX     = $(shell gcc -print-file-name=libsupc++.a)
else ifneq ($(filter $(ARCH),arm64 aarch64),)
# Cross build: Debian's aarch64 musl (musl-dev:arm64) drives the aarch64 cross gcc; the
# libraries are built from the same Debian sources as x86-64's (scripts/build-deps.sh).
DEPS      ?= .cache/deps-arm64
B         := build/arm64
CC        := aarch64-linux-musl-gcc
ARCHNAME  := aarch64
BPF_ARCH  := arm64
BIN       ?= lua-flame-aarch64
PKG_FLAGS := --arm64
SUPCXX     = $(shell aarch64-linux-gnu-gcc -print-file-name=libsupc++.a)
# Debian release whose arm64 cloud kernel gives vmlinux.h its types (CO-RE relocates them
# on whichever kernel the binary runs on).
VMLINUX_SUITE ?= bookworm
else
$(error ARCH=$(ARCH): lua-flame builds for x86_64 (the default) or arm64)
endif
DEPPREFIX := $(DEPS)/prefix
DEPSTAMP  := $(DEPPREFIX)/.complete
CLANG     ?= clang
BPFTOOL   ?= bpftool
PREFIX    ?= /usr/local
VERSION   := 0.1.0
DISTNAME  := lua-flame-$(VERSION)-$(ARCHNAME)-linux

# cmd/ is grouped in folders by concern; each folder's headers are included by bare name
CMD_DIRS    := cmd $(sort $(dir $(wildcard cmd/*/ cmd/*/*/)))
CMD_INCS    := $(patsubst %,-I%,$(CMD_DIRS:/=))
CFLAGS    := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
             -I$(DEPPREFIX)/include $(CMD_INCS) -Ibpf -Irender -I$(B) \
             -DLUA_FLAME_VERSION='"$(VERSION)"'
LDFLAGS   := -static
LIBS      := $(DEPPREFIX)/lib/libbpf.a $(DEPPREFIX)/lib/libelf.a $(DEPPREFIX)/lib/libz.a
# BPF_DEFS: extra definitions for the BPF programs (scripts/bench-stages.sh: -DLF_STAGES)
BPF_DEFS  ?=
BPFCFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Wextra -Werror \
             -I$(B) -I$(DEPPREFIX)/include -Ibpf $(BPF_DEFS)
# BIN (above): the binary; a build with other BPF_DEFS goes to a B and BIN of its own

CMD_SRCS    := $(filter-out cmd/main.c $(SKIP),$(wildcard $(addsuffix /*.c,$(CMD_DIRS:/=))))
RENDER_SRCS := $(filter-out $(SKIP),$(wildcard render/*.c))
EMBED_SRCS  := $(filter-out $(SKIP),$(wildcard embed/*.S))
BPF_SRCS    := $(wildcard bpf/*.bpf.c)
# profile_compat: the same program built without bpf_loop, for kernels before 5.17
SKELS       := $(patsubst bpf/%.bpf.c,$(B)/%.skel.h,$(BPF_SRCS)) $(B)/profile_compat.skel.h $(B)/profile_alloc.skel.h
LIB_OBJS    := $(patsubst %.c,$(B)/%.o,$(CMD_SRCS) $(RENDER_SRCS)) \
               $(patsubst %.S,$(B)/%.o,$(EMBED_SRCS))
UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))

.PHONY: all packages deps test test-kernels test-arm64 demo install clean bench dist dist-one help FORCE
.SECONDARY:
all: $(BIN)

help:
	@echo "make          build ./lua-flame (installs build packages, builds static libraries once)"
	@echo "make demo     build, profile the bundled Lua workload for 5 s, write perf.svg and perf.folded"
	@echo "make test     build and run every test (root); ends 'N passed, N failed'"
	@echo "make test-kernels  boot Debian's 5.10, 6.1 and 6.12 kernels under qemu and check the same stacks on each"
	@echo "make bench    run the benchmarks under scripts/ and print their figures"
	@echo "make ARCH=arm64  cross-build ./lua-flame-aarch64, a static aarch64 binary (objects in build/arm64)"
	@echo "make test-arm64  build ./lua-flame-aarch64 and test it on Debian's arm64 kernel under qemu"
	@echo "make dist     write dist/lua-flame-$(VERSION)-{x86_64,aarch64}-linux.tar.gz (stripped binary,"
	@echo "              man page, licences, SHA256SUMS); builds both binaries"
	@echo "make install  install the binary and man page under PREFIX (default /usr/local), DESTDIR honoured"
	@echo "make clean    remove build outputs (the static library cache in .cache stays)"

# Every tool used below (clang, bpftool, musl-gcc) comes from these packages, so every
# rule that runs one waits for them; the script is idempotent and quick when all is there.
packages:
	scripts/install-packages.sh $(PKG_FLAGS)

deps: $(DEPSTAMP)
$(DEPSTAMP): | packages
ifeq ($(BPF_ARCH),x86)
	DEPS=$(abspath $(DEPS)) scripts/build-deps.sh
else
	ARCH=$(BPF_ARCH) DEPS=$(abspath $(DEPS)) SRC=$(abspath .cache/deps/src) scripts/build-deps.sh
endif
	touch $@

ifeq ($(BPF_ARCH),x86)
$(B)/vmlinux.h: | packages
	@mkdir -p $(B)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@
else
# This machine's kernel is x86-64: the arm64 types come from the BTF inside Debian's arm64
# kernel image (scripts/debian-kernel.sh downloads it once into .cache/kernels).
$(B)/vmlinux.h: | packages
	@mkdir -p $(B)
	ROOT=$(CURDIR) && . scripts/debian-kernel.sh && img=$$(fetch_kernel $(VMLINUX_SUITE) arm64) \
		&& scripts/btf-from-image.sh "$$img" $(B)/vmlinux.btf
	$(BPFTOOL) btf dump file $(B)/vmlinux.btf format c > $@.tmp && mv $@.tmp $@
endif

# The commit the binary is built from, rewritten only when it changes.
$(B)/build_id.h: FORCE
	@mkdir -p $(B)
	@id=$$(git describe --always --dirty --abbrev=12 2>/dev/null || echo unknown); \
	 line="#define LUA_FLAME_BUILD \"$$id\""; \
	 [ "$$(cat $@ 2>/dev/null)" = "$$line" ] || echo "$$line" > $@

$(B)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(B)/vmlinux.h $(DEPSTAMP)
	$(CLANG) $(BPFCFLAGS) -c $< -o $@

$(B)/profile_compat.bpf.o: bpf/profile.bpf.c $(wildcard bpf/*.h) $(B)/vmlinux.h $(DEPSTAMP)
	$(CLANG) $(BPFCFLAGS) -DLF_NO_BPF_LOOP -c $< -o $@

$(B)/profile_alloc.bpf.o: bpf/profile.bpf.c $(wildcard bpf/*.h) $(B)/vmlinux.h $(DEPSTAMP)
	$(CLANG) $(BPFCFLAGS) -DLF_ALLOC -c $< -o $@

$(B)/%.skel.h: $(B)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@.tmp && mv $@.tmp $@

# The benchmark's floor (bench/): a program that only filters the PID and counts, and its loader.
$(B)/bench/floor.bpf.o: bench/floor.bpf.c bench/floor.h $(B)/vmlinux.h $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPFCFLAGS) -c $< -o $@

$(B)/bench/floor.skel.h: $(B)/bench/floor.bpf.o
	$(BPFTOOL) gen skeleton $< name floor_bpf > $@.tmp && mv $@.tmp $@

$(B)/bench-floor: bench/floor.c bench/floor.h $(B)/bench/floor.skel.h $(DEPSTAMP)
	$(CC) $(CFLAGS) -I$(B)/bench $(LDFLAGS) -o $@ $< $(LIBS)

$(B)/cmd/main.o: $(B)/build_id.h

$(B)/%.o: %.c $(wildcard $(addsuffix /*.h,$(CMD_DIRS:/=)) bpf/*.h render/*.h) $(SKELS) $(DEPSTAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.S $(wildcard render/*.js render/*.css) | packages
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(BIN): $(B)/cmd/main.o $(LIB_OBJS) $(DEPSTAMP)
	$(CC) $(LDFLAGS) -o $@ $(B)/cmd/main.o $(LIB_OBJS) $(LIBS) $(SUPCXX)

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS) $(DEPSTAMP) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS) $(SUPCXX)

# `make unit` builds and runs every unit test, alone (no root, no BPF); `make ARCH=arm64 unit`
# (or `make unit-arm64`) the aarch64 builds, each under qemu-aarch64-static in user mode, from
# the packages of --arm64. Same count lines as tests/run.sh; fails if any test does.
UNIT_EXEC := $(if $(filter arm64,$(BPF_ARCH)),qemu-aarch64-static)
.PHONY: unit unit-arm64
unit: $(UNIT_BINS) | packages
	@mkdir -p tests/out/$(ARCHNAME)
	@passed=0; failed=0; for t in $(UNIT_BINS); do \
		log=tests/out/$(ARCHNAME)/$${t##*/}.log; \
		$(UNIT_EXEC) $$t >$$log 2>&1; rc=$$?; \
		p=$$(grep -c '^PASS: ' $$log); f=$$(grep -c '^FAIL: ' $$log); \
		if [ $$rc != 0 ] && [ $$f = 0 ]; then f=1; echo "FAIL: $$t exited with status $$rc" >>$$log; fi; \
		echo "$$t: $$p passed, $$f failed"; \
		[ $$f = 0 ] || grep -E '^(FAIL: |  )' $$log | head -20 | sed 's/^/    /'; \
		passed=$$((passed + p)); failed=$$((failed + f)); \
	done; echo "unit tests ($(ARCHNAME)): $$passed passed, $$failed failed"; [ $$failed = 0 ]

unit-arm64:
	+$(MAKE) ARCH=arm64 unit

test: lua-flame $(UNIT_BINS)
	scripts/install-packages.sh --test
	@# non-GC64 LuaJIT interpreters for the LuaJIT tests, built once from Debian's sources
	[ -x .cache/luajit-layouts/upstream-0/src/luajit ] && [ -x .cache/luajit-layouts/openresty-0/src/luajit ] \
		|| scripts/gen-luajit-layouts.sh --build-vms
	tests/run.sh

test-arm64:
	+$(MAKE) ARCH=arm64 lua-flame-aarch64
	+$(MAKE) ARCH=arm64 unit
	scripts/install-packages.sh --test
	scripts/test-arm64.sh

test-kernels: lua-flame
	scripts/install-packages.sh --test
	scripts/test-kernels.sh

demo: lua-flame
	scripts/install-packages.sh --demo
	scripts/demo.sh

bench: lua-flame $(B)/bench-floor
	scripts/install-packages.sh --test
	scripts/bench.sh

# Both architectures' tarballs, each from a make of its own (ARCH decides every path).
dist:
	+$(MAKE) ARCH=x86_64 dist-one
	+$(MAKE) ARCH=arm64 dist-one

dist-one: $(BIN)
	DEPS=$(abspath $(DEPS)) scripts/dist.sh $(DISTNAME) $(BIN) $(ARCHNAME)

install: lua-flame
	install -D -m 0755 lua-flame $(DESTDIR)$(PREFIX)/bin/lua-flame
	install -D -m 0644 doc/lua-flame.1 $(DESTDIR)$(PREFIX)/share/man/man1/lua-flame.1

clean:
	rm -rf $(B) lua-flame dist
