# fdma: top-level build. `make`, `make test`, `make demo`, `make install`.
#
# Out-of-tree builds: BUILD=dir. Sanitizer builds: SAN=address,undefined or
# SAN=thread (make test runs both after the plain suite). Cross builds:
# CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar, with CPPFLAGS=-I... and
# LDFLAGS=-L... for the target's zlib and cmocka (given on the command line,
# they still get the project's include paths and the sanitizer flags).

CC       ?= cc
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=
OPT      ?= -O3

CFLAGS   ?= $(OPT) -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
override CPPFLAGS := -Iinclude -Iengine -Ilib -Imodel -D_GNU_SOURCE $(CPPFLAGS)
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) -pthread -MMD -MP
LDLIBS   := -lz -lm -pthread
ifneq ($(SAN),)
ALL_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
override LDFLAGS += -fsanitize=$(SAN)
endif
# A UBSan finding fails the test that hit it (by default UBSan reports and goes on).
UBSAN_OPTIONS ?= halt_on_error=1:print_stacktrace=1
export UBSAN_OPTIONS

ifeq ($(SAN),thread)
# Every fence here sits beside an acquire/release access TSan does see.
ALL_CFLAGS += -Wno-tsan
endif

LIB_SRC   := $(wildcard engine/*.c model/*.c lib/*.c)
TOOL_SRC  := $(wildcard tools/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
SIM_SRC   := $(wildcard tests/sim/test_*.c)
TESTLIB_SRC := $(wildcard tests/common/*.c)

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/%.o)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(UNIT_SRC:%.c=$(BUILD)/%)
SIM_BIN   := $(SIM_SRC:%.c=$(BUILD)/%)
LIBA      := $(BUILD)/libfdma.a
FDMA      := $(BUILD)/fdma
MODELD_SRC := $(wildcard model/modeld/*.c)
MODELD    := $(if $(MODELD_SRC),$(BUILD)/fdma-modeld)

.PHONY: all tests test test-plain test-asan test-tsan test-vm check-tests demo bench install clean
all: $(LIBA) $(FDMA) $(MODELD)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(FDMA): $(TOOL_OBJ) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(LIBA) $(LDLIBS)

# The device model as an ivshmem peer: "the FPGA" for a QEMU guest (tests/vm/).
$(BUILD)/fdma-modeld: $(MODELD_SRC:%.c=$(BUILD)/%.o) $(LIBA)
	$(CC) $(LDFLAGS) -o $@ $(MODELD_SRC:%.c=$(BUILD)/%.o) $(LIBA) $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(TESTLIB_OBJ) $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/common $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIBA) -lcmocka $(LDLIBS)

tests: $(UNIT_BIN) $(SIM_BIN) $(FDMA)

# Runs every test binary; each prints cmocka's summary. Fails if any fails.
check-tests: tests
	@fail=0; pass=0; \
	for t in $(UNIT_BIN) $(SIM_BIN); do \
		echo "== $$t"; \
		if $$t; then pass=$$((pass+1)); else fail=$$((fail+1)); echo "FAILED: $$t"; fi; \
	done; \
	for t in tests/cli/test_*.sh; do \
		echo "== $$t"; \
		if FDMA=$(FDMA) BUILD=$(BUILD) sh $$t; then pass=$$((pass+1)); else fail=$$((fail+1)); echo "FAILED: $$t"; fi; \
	done; \
	echo "$(BUILD): $$pass passed, $$fail failed"; \
	echo "$$pass $$fail" > $(BUILD)/test-summary; \
	[ $$fail -eq 0 ]

test-plain:
	$(MAKE) BUILD=build check-tests
test-asan:
	$(MAKE) BUILD=build-asan SAN=address,undefined OPT=-O1 check-tests
test-tsan:
	$(MAKE) BUILD=build-tsan SAN=thread OPT=-O1 check-tests

# The kernel driver in QEMU guests: tests/vm/matrix.sh runs tests/vm/run.sh
# for x86_64 and arm64 guests, coherent and not, with swiotlb=force and with
# a stuck channel, and writes build/vm-summary (runs passed, failed). A run
# whose QEMU, cross compiler, arm64 sysroot or kernel is missing is skipped
# and says so (.ci/run installs them all).
test-vm: $(LIBA) $(MODELD)
	@tests/vm/matrix.sh

# The whole suite: plain, then AddressSanitizer+UBSan, then ThreadSanitizer,
# then the kernel driver in VMs (tests/vm/matrix.sh).
test: test-plain test-asan test-tsan test-vm
	@cat build/test-summary build-asan/test-summary build-tsan/test-summary build/vm-summary | \
	awk '{ p += $$1; f += $$2 } END { printf "total: %d passed, %d failed\n", p, f }'

demo: $(FDMA)
	@sh tools/demo.sh $(FDMA)

install: $(LIBA) $(FDMA) $(MODELD)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(FDMA) $(DESTDIR)$(PREFIX)/bin/fdma
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libfdma.a
	install -m 644 include/fdma.h $(DESTDIR)$(PREFIX)/include/fdma.h
	for sec in 1 3 7; do \
		install -d $(DESTDIR)$(PREFIX)/share/man/man$$sec && \
		install -m 644 docs/man/*.$$sec $(DESTDIR)$(PREFIX)/share/man/man$$sec/ || exit 1; \
	done

clean:
	rm -rf build build-asan build-tsan build-a64 build-a64-asan
	[ ! -f kernel/Makefile ] || $(MAKE) -C kernel clean

# The compiler's dependency files, by name (a find in $(BUILD) would also
# pick up the arm64 sysroot's *.d folders under build/).
DEPS := $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(TESTLIB_OBJ:.o=.d) $(MODELD_SRC:%.c=$(BUILD)/%.d) \
	$(UNIT_BIN:=.d) $(SIM_BIN:=.d)
-include $(wildcard $(DEPS))
