# lua-flame: one static binary with its BPF programs and flame-graph assets inside.
# `make` fetches and builds what it needs; `make test` runs every test; `make demo`
# profiles a bundled Lua workload.

DEPS      ?= .cache/deps
DEPPREFIX := $(DEPS)/prefix
B         := build
CC        := musl-gcc
CLANG     ?= clang
BPFTOOL   ?= bpftool
PREFIX    ?= /usr/local
VERSION   := 0.1.0

CFLAGS    := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror \
             -I$(DEPPREFIX)/include -Icmd -Ibpf -Irender -I$(B) \
             -DLUA_FLAME_VERSION='"$(VERSION)"'
LDFLAGS   := -static
LIBS      := $(DEPPREFIX)/lib/libbpf.a $(DEPPREFIX)/lib/libelf.a $(DEPPREFIX)/lib/libz.a
BPFCFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wextra -Werror \
             -I$(B) -I$(DEPPREFIX)/include -Ibpf

CMD_SRCS    := $(filter-out cmd/main.c $(SKIP),$(wildcard cmd/*.c))
RENDER_SRCS := $(filter-out $(SKIP),$(wildcard render/*.c))
EMBED_SRCS  := $(filter-out $(SKIP),$(wildcard embed/*.S))
BPF_SRCS    := $(wildcard bpf/*.bpf.c)
SKELS       := $(patsubst bpf/%.bpf.c,$(B)/%.skel.h,$(BPF_SRCS))
LIB_OBJS    := $(patsubst %.c,$(B)/%.o,$(CMD_SRCS) $(RENDER_SRCS)) \
               $(patsubst %.S,$(B)/%.o,$(EMBED_SRCS))
UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))
PROG_SRCS   := $(wildcard tests/progs/*.c)

.PHONY: all deps test demo install clean bench
.SECONDARY:
all: lua-flame

deps: $(DEPPREFIX)/lib/libbpf.a
$(DEPPREFIX)/lib/libbpf.a $(DEPPREFIX)/lib/libelf.a $(DEPPREFIX)/lib/libz.a:
	scripts/install-packages.sh
	DEPS=$(abspath $(DEPS)) scripts/build-deps.sh

$(B)/vmlinux.h:
	@mkdir -p $(B)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(B)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) $(B)/vmlinux.h $(DEPPREFIX)/lib/libbpf.a
	$(CLANG) $(BPFCFLAGS) -c $< -o $@

$(B)/%.skel.h: $(B)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@.tmp && mv $@.tmp $@

$(B)/%.o: %.c $(wildcard cmd/*.h bpf/*.h render/*.h) $(SKELS) $(DEPPREFIX)/lib/libbpf.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.S $(wildcard render/*.js render/*.css)
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

lua-flame: $(B)/cmd/main.o $(LIB_OBJS) $(LIBS)
	$(CC) $(LDFLAGS) -o $@ $^

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS) $(LIBS) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(LIBS)

test: lua-flame $(UNIT_BINS)
	scripts/install-packages.sh --test
	@# non-GC64 LuaJIT interpreters for the LuaJIT tests, built once from Debian's sources
	[ -x .cache/luajit-layouts/upstream-0/src/luajit ] && [ -x .cache/luajit-layouts/openresty-0/src/luajit ] \
		|| scripts/gen-luajit-layouts.sh --build-vms
	tests/run.sh

demo: lua-flame
	scripts/install-packages.sh --test
	scripts/demo.sh

bench: lua-flame
	scripts/bench.sh

install: lua-flame
	install -D -m 0755 lua-flame $(DESTDIR)$(PREFIX)/bin/lua-flame
	install -D -m 0644 doc/lua-flame.1 $(DESTDIR)$(PREFIX)/share/man/man1/lua-flame.1

clean:
	rm -rf $(B) lua-flame
