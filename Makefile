# fdma: top-level build. `make`, `make test`, `make demo`, `make install`.
#
# Out-of-tree builds: BUILD=dir. Sanitizer builds: SAN=address,undefined or
# SAN=thread (make test runs both after the plain suite).
#
# Cross builds: make CROSS_COMPILE=aarch64-linux-gnu- (arm64) or
# CROSS_COMPILE=arm-linux-gnueabihf- (armhf: Zynq-7000) takes CC, AR, LD and
# OBJCOPY from the cross toolchain, builds in build-arm64 or build-armhf,
# and finds the target's zlib and cmocka in SYSROOT (default
# build/arm64-sysroot or build/armhf-sysroot, fetched by
# tests/vm/arm64-sysroot.sh --arch ARCH --libs-only). CC=... AR=... with
# CPPFLAGS=-I... and LDFLAGS=-L... on the command line still work (they get
# the project's include paths and the sanitizer flags too).
#
# What is built (docs/install.md):
#   $(BUILD)/libfdma.a, libfdma.so.$(VERSION)  the public library: it exports
#       exactly the functions include/fdma.h declares (the list is derived
#       from the header at build time by packaging/exports.sh)
#   $(BUILD)/libfdma-internal.a  every object with every global symbol: the
#       fdma command, fdma-modeld and the tests use the engine core, the
#       device and link models and the library's internals
#   $(BUILD)/fdma, $(BUILD)/fdma-modeld

CROSS_COMPILE ?=
ifneq ($(CROSS_COMPILE),)
TRIPLET  := $(patsubst %-,%,$(CROSS_COMPILE))
DEB_ARCH := $(or $(if $(filter aarch64-linux-gnu,$(TRIPLET)),arm64),$(if $(filter arm-linux-gnueabihf,$(TRIPLET)),armhf),$(TRIPLET))
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin AR),default)
AR := $(CROSS_COMPILE)ar
endif
ifeq ($(origin LD),default)
LD := $(CROSS_COMPILE)ld
endif
BUILD    ?= build-$(DEB_ARCH)
SYSROOT  ?= build/$(DEB_ARCH)-sysroot
# The target's zlib and cmocka, unpacked from Debian's packages (not
# installed: the host's package state stays as it is).
ifneq ($(wildcard $(SYSROOT)/usr/include/zlib.h),)
XCPPFLAGS := -I$(SYSROOT)/usr/include
override LDFLAGS += -L$(SYSROOT)/usr/lib/$(TRIPLET) -L$(SYSROOT)/lib/$(TRIPLET) \
	-Wl,-rpath-link,$(SYSROOT)/usr/lib/$(TRIPLET):$(SYSROOT)/lib/$(TRIPLET)
endif
endif
OBJCOPY  ?= $(CROSS_COMPILE)objcopy

CC       ?= cc
BUILD    ?= build
PREFIX   ?= /usr/local
DESTDIR  ?=
SAN      ?=
OPT      ?= -O3

CFLAGS   ?= $(OPT) -g
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# 64-bit off_t and time_t on 32-bit targets (armhf): without them readdir()
# fails with EOVERFLOW on file systems with 64-bit inode numbers, mmap()
# offsets stop at 2 GiB, and times end in 2038. No-ops on 64-bit targets;
# fdma.h has no off_t or time_t, so programs built without them link with
# libfdma all the same.
LFS_FLAGS := -D_FILE_OFFSET_BITS=64 -D_TIME_BITS=64
override CPPFLAGS := -D_GNU_SOURCE $(LFS_FLAGS) $(CPPFLAGS) $(XCPPFLAGS)

# Include sets: each folder sees the headers of its layer and of those it
# may use, and no others, so that a reach across layers is a build error
# (docs/ARCHITECTURE.md has the picture):
#   engine/   the engine core: its own headers, the user-space platform
#   model/    the simulated devices: + model/, the RTL plugin's ABI;
#             fdma-modeld and fdma-proxyd also their ivshmem server
#   lib/      libfdma: + include/ (the API) and lib/
#   tools/    the fdma command: include/ and tools/api/ (fdma_tools.h) only
#   tests/    everything: they test the insides
INC_ENGINE := -Iengine -Iengine/user
INC_MODEL  := $(INC_ENGINE) -Imodel -Irtl/sim
INC_LIB    := -Iinclude $(INC_MODEL) -Ilib
INC_TOOLS  := -Iinclude -Itools/api
INC_TESTS  := $(INC_LIB) -Itests/common
LAYER_INC   = $(INC_LIB)
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

# The library's version is the header's; the soname carries its major
# number (libfdma.so.0), the file the whole version (libfdma.so.0.1.0).
VERSION  := $(shell sed -n 's/^\#define FDMA_VERSION_STRING "\([0-9.]*\)".*/\1/p' include/fdma.h)
SOMAJOR  := $(firstword $(subst ., ,$(VERSION)))
SONAME   := libfdma.so.$(SOMAJOR)

# Install locations (GNU names). udev and systemd-sysusers read
# $(PREFIX)/lib/... for both /usr and /usr/local; DKMS only looks in /usr/src.
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR  ?= $(PREFIX)/lib/sysusers.d
DKMSDIR    ?= /usr/src/fdma-$(VERSION)

LIB_SRC   := $(wildcard engine/*.c model/*.c lib/*.c)
TOOL_SRC  := $(wildcard tools/*.c)
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
SIM_SRC   := $(wildcard tests/sim/test_*.c)
TESTLIB_SRC := $(wildcard tests/common/*.c)

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
PIC_OBJ   := $(LIB_SRC:%.c=$(BUILD)/pic/%.o)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/%.o)
TESTLIB_OBJ := $(TESTLIB_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN  := $(UNIT_SRC:%.c=$(BUILD)/%)
SIM_BIN   := $(SIM_SRC:%.c=$(BUILD)/%)
LIBI      := $(BUILD)/libfdma-internal.a
LIBA      := $(BUILD)/libfdma.a
LIBSO     := $(BUILD)/libfdma.so.$(VERSION)
EXPORTS   := $(BUILD)/fdma.exports
EXPORTMAP := $(BUILD)/fdma.map
FDMA      := $(BUILD)/fdma
MODELD_SRC := $(wildcard model/modeld/*.c) $(wildcard model/ivshmem/*.c)
MODELD    := $(if $(MODELD_SRC),$(BUILD)/fdma-modeld)
# The device models behind QEMU's x-pci-proxy-dev (it shares the ivshmem server).
PROXYD_SRC := $(wildcard model/proxyd/*.c) $(wildcard model/ivshmem/*.c)
PROXYD    := $(BUILD)/fdma-proxyd

.PHONY: all lib rtl rtl-figures formal gpu-example gst tests test test-plain test-asan test-tsan test-vm test-install test-cross \
	check-tests check-symbols demo bench install install-lib install-bin install-man install-gst \
	install-udev install-dkms clean
# The RTL device's plugin (rules below, with the tests').
VERILATOR ?= verilator
RTL_V     := $(wildcard rtl/*.v rtl/sim/*.v)
RTL_VH    := $(wildcard rtl/*.vh)
VL_ROOT   := $(if $(CROSS_COMPILE),,$(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null))
RTLLIB    := $(if $(VL_ROOT),$(BUILD)/libfdma-rtl.so)
VL_INC    := $(VL_ROOT)/include
VL_DIR    := $(BUILD)/rtl/obj
CXX       ?= g++
RTL_CXXFLAGS := -std=c++17 -fPIC -O2 -g -Wall -Wextra -Werror -isystem $(VL_INC) -isystem $(VL_INC)/vltstd

all: $(LIBA) $(LIBSO) $(LIBI) $(FDMA) $(MODELD) $(PROXYD) $(RTLLIB) $(GST_PLUGIN)
lib: $(LIBA) $(LIBSO)

$(BUILD)/engine/%.o $(BUILD)/pic/engine/%.o: LAYER_INC = $(INC_ENGINE)
$(BUILD)/model/%.o $(BUILD)/pic/model/%.o: LAYER_INC = $(INC_MODEL)
$(BUILD)/model/modeld/%.o $(BUILD)/model/proxyd/%.o $(BUILD)/model/ivshmem/%.o: \
	LAYER_INC = $(INC_MODEL) -Imodel/ivshmem
$(BUILD)/tools/%.o: LAYER_INC = $(INC_TOOLS)
# liburing (Debian's liburing-dev; the cross sysroots have it too): the
# fdma command's frame files go through io_uring (tools/frameio_uring.c),
# and libfdma's synchronous transfers through fdma.ko's io_uring commands
# (lib/kdev.c). Without it files are read and written one at a time, and
# fdma says so, and those transfers take the ioctls.
URING_H := $(if $(CROSS_COMPILE),$(SYSROOT),)/usr/include/liburing.h
ifneq ($(wildcard $(URING_H)),)
$(BUILD)/tools/frameio_uring.o: LAYER_INC = $(INC_TOOLS) -DFDMA_HAVE_LIBURING
$(BUILD)/lib/kdev.o $(BUILD)/pic/lib/kdev.o: LAYER_INC = $(INC_LIB) -DFDMA_HAVE_LIBURING
URING_LIBS := -luring
LDLIBS += $(URING_LIBS)
endif
$(BUILD)/tests/common/%.o: LAYER_INC = $(INC_TESTS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(LAYER_INC) $(CPPFLAGS) $(ALL_CFLAGS) -c $< -o $@

# The shared library's objects: position-independent, and every symbol
# hidden but the API's (packaging/fdma_export.h).  That shim reads
# include/fdma.h, whatever the layer (the plain objects keep the layers).
$(BUILD)/pic/%.o: %.c packaging/fdma_export.h
	@mkdir -p $(dir $@)
	$(CC) $(LAYER_INC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -include packaging/fdma_export.h -c $< -o $@

# Everything, every global symbol: for the tools and the tests only.
$(LIBI): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

# The public API, derived from the header on every build (no list to keep
# by hand): the names, and a version script for the shared library.
$(EXPORTS): include/fdma.h packaging/exports.sh
	@mkdir -p $(dir $@)
	sh packaging/exports.sh include/fdma.h $(CC) >$@.tmp && mv $@.tmp $@
$(EXPORTMAP): include/fdma.h packaging/exports.sh
	@mkdir -p $(dir $@)
	sh packaging/exports.sh --map include/fdma.h $(CC) >$@.tmp && mv $@.tmp $@

# The public static library: all objects linked into one relocatable
# object (so calls between them are resolved inside it), then every global
# symbol but the API made local. A program linking libfdma.a sees only the
# fdma_* calls of include/fdma.h; fdma_err, the engine core and the models
# cannot clash with its own names or be called by it. (The header has no
# visibility annotations, so the objects keep default visibility and the
# symbol list, not -fvisibility, decides.)
$(LIBA): $(LIB_OBJ) $(EXPORTS)
	$(LD) -r -o $(BUILD)/libfdma-all.o $(LIB_OBJ)
	$(OBJCOPY) --keep-global-symbols=$(EXPORTS) $(BUILD)/libfdma-all.o $(BUILD)/fdma.o
	@rm -f $@ $(BUILD)/libfdma-all.o
	$(AR) rcs $@ $(BUILD)/fdma.o

# The shared library: soname libfdma.so.MAJOR, the version script exports
# the API and makes the rest local; -z defs so that zlib, libm and
# libpthread are recorded as its dependencies (a program linking -lfdma
# needs nothing else).
$(LIBSO): $(PIC_OBJ) $(EXPORTMAP)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SONAME) -Wl,--version-script=$(EXPORTMAP) \
		-Wl,-z,defs -o $@ $(PIC_OBJ) $(LDLIBS)
	ln -sfn $(notdir $@) $(BUILD)/$(SONAME)
	ln -sfn $(SONAME) $(BUILD)/libfdma.so

$(FDMA): $(TOOL_OBJ) $(LIBI)
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(LIBI) $(URING_LIBS) $(LDLIBS)

# The device model as an ivshmem peer: "the FPGA" for a QEMU guest (tests/vm/).
$(BUILD)/fdma-modeld: $(MODELD_SRC:%.c=$(BUILD)/%.o) $(LIBI)
	$(CC) $(LDFLAGS) -o $@ $(MODELD_SRC:%.c=$(BUILD)/%.o) $(LIBI) $(LDLIBS)

$(BUILD)/fdma-proxyd: $(PROXYD_SRC:%.c=$(BUILD)/%.o) $(LIBI)
	$(CC) $(LDFLAGS) -o $@ $(PROXYD_SRC:%.c=$(BUILD)/%.o) $(LIBI) $(LDLIBS)

# ---- the RTL engine (rtl/), Verilated, as libfdma-rtl.so: the rtl: device ----
# Built when Verilator is installed and the build is native (model/fdma_mdev_rtl.c
# loads it with dlopen(), so nothing else depends on it or on C++).

$(VL_DIR)/Vfdma_sim_top__ALL.a: $(RTL_V) $(RTL_VH)
	@mkdir -p $(VL_DIR)
	$(VERILATOR) --cc -O3 -Wall --x-assign unique --x-initial unique -Irtl \
		--top-module fdma_sim_top --Mdir $(VL_DIR) -CFLAGS "-fPIC -O2" $(RTL_V)
	$(MAKE) -s -C $(VL_DIR) -f Vfdma_sim_top.mk OPT_FAST="-O2 -fPIC" Vfdma_sim_top__ALL.a
# Verilator's runtime (a static pattern: a plain pattern's stem cannot be
# empty, as verilated.o would need).
$(addprefix $(BUILD)/rtl/,verilated.o verilated_threads.o): $(BUILD)/rtl/%.o: $(VL_INC)/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(RTL_CXXFLAGS) -w -c $< -o $@
# The model's headers too: the harness reads struct fdma_model_cfg; and
# the engine's, for struct fdma_desc (its data fault finds a descriptor's data).
$(BUILD)/rtl/harness.o: rtl/sim/harness.cpp rtl/sim/fdma_rtl.h model/fdma_model.h model/fdma_link.h \
		engine/fdma_regs.h engine/user/fdma_plat.h $(VL_DIR)/Vfdma_sim_top__ALL.a
	$(CXX) $(RTL_CXXFLAGS) -I$(VL_DIR) -Imodel -Irtl/sim -Iengine -Iengine/user -c $< -o $@
$(BUILD)/rtl/fdma_link.o: model/fdma_link.c model/fdma_link.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -fPIC -O2 -g -Imodel -c $< -o $@
$(BUILD)/libfdma-rtl.so: $(BUILD)/rtl/harness.o $(BUILD)/rtl/fdma_link.o $(VL_DIR)/Vfdma_sim_top__ALL.a \
		$(BUILD)/rtl/verilated.o $(BUILD)/rtl/verilated_threads.o
	$(CXX) -shared -Wl,--no-undefined -o $@ $(BUILD)/rtl/harness.o $(BUILD)/rtl/fdma_link.o \
		$(VL_DIR)/Vfdma_sim_top__ALL.a $(BUILD)/rtl/verilated.o $(BUILD)/rtl/verilated_threads.o \
		-pthread -lm
rtl: $(RTLLIB) $(if $(RTLLIB),$(BUILD)/rtl-figures)

# Cycle-accurate figures of the RTL (docs/studies/rtl.md).
$(BUILD)/rtl-figures: rtl/sim/rtl_figures.c $(LIBI)
	$(CC) $(INC_TOOLS) -Irtl/sim $(INC_MODEL) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBI) $(LDLIBS)
rtl-figures: $(RTLLIB) $(BUILD)/rtl-figures
	FDMA_RTL_LIB=$(abspath $(RTLLIB)) $(BUILD)/rtl-figures

$(BUILD)/tests/%: tests/%.c $(TESTLIB_OBJ) $(LIBI)
	@mkdir -p $(dir $@)
	$(CC) $(INC_TESTS) $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIBI) -lcmocka $(LDLIBS)
# The figures' SVG writer is the command's (tools/plot.c), not the library's: its test links it.
$(BUILD)/tests/unit/test_plot: tests/unit/test_plot.c $(BUILD)/tools/plot.o $(TESTLIB_OBJ) $(LIBI)
	@mkdir -p $(dir $@)
	$(CC) $(INC_TESTS) -Itools $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/tools/plot.o \
		$(TESTLIB_OBJ) $(LIBI) -lcmocka $(LDLIBS)

# fdma soak's arithmetic and the test pattern (tools/soak_stats.c, util.c).
SOAK_OBJ := $(BUILD)/tools/soak_stats.o $(BUILD)/tools/util.o
$(BUILD)/tests/unit/test_soak: tests/unit/test_soak.c $(SOAK_OBJ) $(TESTLIB_OBJ) $(LIBI)
	@mkdir -p $(dir $@)
	$(CC) $(INC_TESTS) -Itools $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(SOAK_OBJ) \
		$(TESTLIB_OBJ) $(LIBI) -lcmocka $(LDLIBS)

# The frame files (tools/frameio.c) are the command's too: their test links them.
FRAMEIO_OBJ := $(BUILD)/tools/frameio.o $(BUILD)/tools/frameio_uring.o $(BUILD)/tools/util.o
$(BUILD)/tests/unit/test_frameio: tests/unit/test_frameio.c $(FRAMEIO_OBJ) $(TESTLIB_OBJ) $(LIBI)
	@mkdir -p $(dir $@)
	$(CC) $(INC_TESTS) -Itools $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(FRAMEIO_OBJ) \
		$(TESTLIB_OBJ) $(LIBI) -lcmocka $(URING_LIBS) $(LDLIBS)

# Requests in an application's io_uring (fdma_uring_prep()): the test's
# ring is liburing's where it is; without it the ring tests are not built.
$(BUILD)/tests/sim/test_uring: tests/sim/test_uring.c $(TESTLIB_OBJ) $(LIBI)
	@mkdir -p $(dir $@)
	$(CC) $(INC_TESTS) $(if $(URING_LIBS),-DFDMA_HAVE_LIBURING) $(CPPFLAGS) $(ALL_CFLAGS) \
		$(LDFLAGS) -o $@ $< $(TESTLIB_OBJ) $(LIBI) -lcmocka $(URING_LIBS) $(LDLIBS)

# The recording recipe (examples/fdma_record.c: libfdma's public API and
# liburing, nothing else), where liburing is: tests/cli/test_record.sh runs it.
RECORD_EXAMPLE := $(if $(URING_LIBS),$(BUILD)/examples/fdma-record)
$(BUILD)/examples/fdma-record: examples/fdma_record.c include/fdma.h $(LIBA)
	@mkdir -p $(dir $@)
	$(CC) -Iinclude $(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIBA) -luring $(LDLIBS)

tests: $(RECORD_EXAMPLE) $(UNIT_BIN) $(SIM_BIN) $(FDMA) $(LIBSO) $(if $(SAN),,$(RTLLIB))
# Kept between builds (make would delete them as intermediates).
.SECONDARY: $(TESTLIB_OBJ)

# The interrupt tests again on the RTL with MSI instead of MSI-X (through
# the 7-series shim's interrupt port), and the card-memory tests with card
# memory behind the AXI4 master (a simulated DDR-like slave). test_faults
# is there too: the AXI card's write responses keep a descriptor's record
# waiting after its data drained, while the next descriptor's reads, issued
# ahead, come back (one of them poisoned).
RTL_MSI_TESTS = test_coalesce test_wait
RTL_AXI_TESTS = test_transfer test_faults
# And on a harness that behaves like a root complex (docs/rtl.md): every
# completion split at a 64-byte RCB, every buffer below 4 GiB (3DW
# headers), the core's completion buffer checked for overflow, TX stalled
# for stretches while another CPU reads registers and moves MSI-X vectors;
# then the same with rx_np_ok instead of rx_np_req credits.
RTL_RC_TESTS = test_transfer test_stream test_faults test_wait
RTL_RC_ENV = FDMA_TEST_SIM=rtl=1,rcb=64,addr=32 FDMA_RTL_TX_STALL=2000 FDMA_RTL_HOST_READS=4
RTL_NPOK_TESTS = test_transfer test_coalesce
RTL_NPOK_ENV = FDMA_TEST_SIM=rtl=1,addr=32 FDMA_RTL_NP=ok FDMA_RTL_TX_STALL=500 FDMA_RTL_HOST_READS=8
# And with descriptor fetches answered only after the engine's completion
# timeout (fault=desc@N in test_faults): the late completion must be
# dropped and its tag not reused before it came.
RTL_LATE_TESTS = test_faults
RTL_LATE_ENV = FDMA_TEST_SIM=rtl=1 FDMA_RTL_LATE=1

# Runs every test program; each prints its own summary and ends by the
# one exit contract (tests/common/test_exit.h): 0 passed, 1 failed, 77
# skipped (nothing here to test). Fails if any fails.
# The end-to-end sim tests run on the FDMA model, then on the XDMA model
# (sim:engine=xdma), then, where Verilator built libfdma-rtl.so, on the RTL
# engine (rtl=1); a test that needs what one of them lacks says why it
# skips.
check-tests: tests
	@pass=0; fail=0; skipped=0; \
	run1() { what=$$1; shift; echo "== $$what"; "$$@"; rc=$$?; \
		case $$rc in \
		0) pass=$$((pass+1)) ;; \
		77) skipped=$$((skipped+1)); echo "SKIPPED: $$what (nothing here to test)" ;; \
		*) fail=$$((fail+1)); echo "FAILED: $$what (exit $$rc)" ;; \
		esac; }; \
	for t in $(UNIT_BIN) $(SIM_BIN); do run1 "$$t" $$t; done; \
	for t in $(SIM_BIN); do \
		run1 "$$t on the XDMA model (FDMA_TEST_SIM=engine=xdma)" env FDMA_TEST_SIM=engine=xdma $$t; \
	done; \
	if [ -n "$(RTLLIB)" ] && [ -z "$(SAN)" ]; then \
		for t in $(SIM_BIN); do \
			run1 "$$t on the RTL engine (FDMA_TEST_SIM=rtl=1)" \
				env FDMA_TEST_SIM=rtl=1 FDMA_RTL_LIB=$(abspath $(RTLLIB)) $$t; \
		done; \
		rtl_row() { what=$$1; vars=$$2; shift 2; \
			for t; do \
				run1 "$$t on the RTL engine, $$what ($$vars)" \
					env $$vars FDMA_RTL_LIB=$(abspath $(RTLLIB)) $$t; \
			done; }; \
		rtl_row "with MSI" "FDMA_RTL_IRQ=msi FDMA_TEST_SIM=rtl=1" \
			$(addprefix $(BUILD)/tests/sim/,$(RTL_MSI_TESTS)); \
		rtl_row "card memory through AXI4" "FDMA_RTL_CARD=axi FDMA_TEST_SIM=rtl=1" \
			$(addprefix $(BUILD)/tests/sim/,$(RTL_AXI_TESTS)); \
		rtl_row "a root complex's rules" "$(RTL_RC_ENV)" \
			$(addprefix $(BUILD)/tests/sim/,$(RTL_RC_TESTS)); \
		rtl_row "reads held by rx_np_ok" "$(RTL_NPOK_ENV)" \
			$(addprefix $(BUILD)/tests/sim/,$(RTL_NPOK_TESTS)); \
		rtl_row "completions after the timeout" "$(RTL_LATE_ENV)" \
			$(addprefix $(BUILD)/tests/sim/,$(RTL_LATE_TESTS)); \
	fi; \
	for t in tests/cli/test_*.sh; do run1 "$$t" env FDMA=$(FDMA) BUILD=$(BUILD) sh $$t; done; \
	echo "$(BUILD): $$pass passed, $$fail failed, $$skipped skipped"; \
	echo "$$pass $$fail $$skipped" > $(BUILD)/test-summary; \
	[ $$fail -eq 0 ]

# The CUDA example (examples/gpu/, docs/dmabuf.md), where nvcc is found:
# CUDA's static runtime, the driver looked up at run time, so it runs (and
# says "no GPU", exit 77) on machines without one.
NVCC ?= $(shell command -v nvcc 2>/dev/null || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; })
GPU_EXAMPLE := $(BUILD)/examples/fdma-gpu-stream
gpu-example: $(if $(NVCC),$(GPU_EXAMPLE))
	@[ -n "$(NVCC)" ] || echo "gpu-example: no nvcc (the CUDA toolkit): not built"
$(GPU_EXAMPLE): examples/gpu/fdma_gpu_stream.cu include/fdma.h $(LIBA)
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -Iinclude -Xcompiler -Wall,-Wextra -cudart static -o $@ $< $(LIBA) $(filter-out -pthread,$(LDLIBS)) -lpthread

# ---- the GStreamer elements (gst/): fdmasrc and fdmasink (docs/gstreamer.md) ----
# Built where pkg-config finds GStreamer's development files (native builds
# only: a cross build has no target GStreamer here). The plugin sees
# include/fdma.h only and links libfdma.so like any program; its test
# program (tests/gst/, gst-check) links the plugin's objects and registers
# them itself.
GST_PKGS    := gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0
HAVE_GST    := $(if $(CROSS_COMPILE),,$(shell pkg-config --exists $(GST_PKGS) 2>/dev/null && echo 1))
GST_CFLAGS  := $(if $(HAVE_GST),$(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(GST_PKGS))))
GST_LIBS    := $(if $(HAVE_GST),$(shell pkg-config --libs $(GST_PKGS)))
GST_SRC     := $(wildcard gst/*.c)
GST_OBJ     := $(GST_SRC:%.c=$(BUILD)/%.o)
GST_PLUGIN  := $(if $(HAVE_GST),$(BUILD)/gst/libgstfdma.so)
HAVE_GSTCHECK := $(if $(HAVE_GST),$(shell pkg-config --exists gstreamer-check-1.0 2>/dev/null && echo 1))
GST_TEST    := $(if $(HAVE_GSTCHECK),$(BUILD)/tests/gst/test_gstfdma)
GSTPLUGINDIR ?= $(if $(HAVE_GST),$(shell pkg-config --variable=pluginsdir gstreamer-1.0))

$(BUILD)/gst/%.o: gst/%.c
	@mkdir -p $(dir $@)
	$(CC) -Iinclude $(GST_CFLAGS) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -c $< -o $@
$(BUILD)/gst/libgstfdma.so: $(GST_OBJ) $(LIBSO)
	$(CC) -shared $(LDFLAGS) -Wl,-z,defs -o $@ $(GST_OBJ) -L$(BUILD) -lfdma $(GST_LIBS)
$(BUILD)/tests/gst/test_gstfdma: tests/gst/test_gstfdma.c $(GST_OBJ) $(LIBSO)
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -Igst $(GST_CFLAGS) $(shell pkg-config --cflags-only-other gstreamer-check-1.0) \
		$(CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(GST_OBJ) -L$(BUILD) -lfdma \
		-Wl,-rpath,$(abspath $(BUILD)) $(shell pkg-config --libs gstreamer-check-1.0) $(GST_LIBS) -lz
gst: $(GST_PLUGIN) $(GST_TEST)
tests: $(GST_PLUGIN) $(GST_TEST)

test-plain:
	$(MAKE) BUILD=build gpu-example
	$(MAKE) BUILD=build check-tests
test-asan:
	$(MAKE) BUILD=build-asan SAN=address,undefined OPT=-O1 check-tests
test-tsan:
	$(MAKE) BUILD=build-tsan SAN=thread OPT=-O1 check-tests

# The libraries' exported symbols against the header's functions, in the
# build tree (test-install checks the installed files the same way).
check-symbols: $(LIBA) $(LIBSO)
	@sh tests/install/check_symbols.sh include/fdma.h $(LIBA) $(LIBSO)

# `make install` into a temporary DESTDIR, then programs built against it
# with pkg-config, static and shared; the soname, the symbols, the man
# pages, the udev rule, the DKMS tree (tests/install/test_install.sh).
# Writes build/install-summary.
test-install:
	+@tests/install/test_install.sh

# The library, tools and unit and sim tests built with Debian's arm64 and
# armhf cross compilers and run under qemu-user (tests/cross/test_cross.sh);
# an architecture whose compiler, QEMU or sysroot is missing is skipped and
# says so. Writes build/cross-summary.
test-cross:
	@tests/cross/test_cross.sh

# The kernel driver in QEMU guests: tests/vm/matrix.sh runs tests/vm/run.sh
# for x86_64 and arm64 guests, coherent and not, with swiotlb=force and with
# a stuck channel, and writes build/vm-summary (runs passed, failed). A run
# whose QEMU, cross compiler, arm64 sysroot or kernel is missing is skipped
# and says so (.ci/run installs them all).
test-vm: $(LIBI) $(MODELD)
	+@tests/vm/matrix.sh

# The RTL's 4-state benches (rtl/tb/run.sh, Icarus), the board design's
# lint (rtl/boards/litefury/lint.sh, its synthesis left to a run by hand),
# then its proofs and their mutation test (rtl/formal/run.sh,
# docs/rtl.md); each skipped, and saying so, without its tool. Writes
# build/formal-summary (checks passed, failed).
formal:
	@mkdir -p build
	@: >build/formal.log; rc=0; \
	if command -v verilator >/dev/null; then \
		SKIP_SYNTH=1 rtl/boards/litefury/lint.sh build/litefury >>build/formal.log 2>&1 || rc=1; \
	else echo "SKIP: the board design's lint: no verilator" >>build/formal.log; fi; \
	if command -v iverilog >/dev/null; then \
		rtl/tb/run.sh build/tb >>build/formal.log 2>&1 || rc=1; \
	else echo "SKIP: the Icarus benches: no iverilog" >>build/formal.log; fi; \
	if command -v yosys-smtbmc >/dev/null && command -v z3 >/dev/null; then \
		rtl/formal/run.sh build/formal >>build/formal.log 2>&1 || rc=1; \
	else echo "SKIP: formal: no yosys-smtbmc or no z3" >>build/formal.log; fi; \
	cat build/formal.log; \
	echo "$$(grep -c '^PASS' build/formal.log) $$(grep -c '^FAIL' build/formal.log)" > build/formal-summary; \
	exit $$rc

# The whole suite: plain, then AddressSanitizer+UBSan, then ThreadSanitizer,
# then the RTL's proofs, then the installed library, then the cross builds
# under qemu-user, then the kernel driver in VMs (tests/vm/matrix.sh).
# Each stage's wall time goes to build/test-times (and the log), so that the
# CI budget can be read stage by stage. A stage builds with one job per CPU
# (TEST_JOBS); its tests still run one at a time. The guests' debug kernel,
# when not cached, builds at the lowest priority beside the stages from the
# start (tests/vm/debug-kernel.sh --background), on what they leave of the
# CPUs; the VM stage's debug rows wait for it.
TEST_STAGES = test-plain test-asan test-tsan formal test-install test-cross test-vm
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
test:
	@mkdir -p build; : >build/test-times; \
	tests/vm/debug-kernel.sh --background build/debug-kernel.log 2>&1 || true; \
	for s in $(TEST_STAGES); do \
		t=$$(date +%s); $(MAKE) --no-print-directory -j$(TEST_JOBS) $$s || exit 1; \
		echo "$$s: $$(($$(date +%s) - t)) s" | tee -a build/test-times; \
	done
	@cat build/test-times
	@cat build/test-summary build-asan/test-summary build-tsan/test-summary build/formal-summary \
		build/install-summary build/cross-summary build/vm-summary | \
	awk '{ p += $$1; f += $$2 } END { printf "total: %d passed, %d failed\n", p, f }'

demo: $(FDMA)
	@sh tools/demo.sh $(FDMA)

# ---- install -------------------------------------------------------------------------
# make install [PREFIX=/usr/local] [DESTDIR=]: everything below; each part
# also on its own. Nothing here runs ldconfig, udevadm, systemd-sysusers or
# dkms: a DESTDIR install is a staging tree (docs/install.md says what to
# run after a real one).
install: install-lib install-bin install-man install-udev install-dkms install-python install-gst

# The libraries, their header and fdma.pc. Only fdma.h: it is the whole API
# and stands alone. fdma_ioctl.h (the driver's ioctl interface) is not
# installed: libfdma's kdev: backend is how programs use the driver, and
# the header stays with the driver's sources (/usr/src/fdma-VERSION/include)
# for anyone writing against the ioctls directly.
install-lib: $(LIBA) $(LIBSO) $(RTLLIB)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 644 $(LIBA) $(DESTDIR)$(LIBDIR)/libfdma.a
	$(if $(RTLLIB),install -m 755 $(RTLLIB) $(DESTDIR)$(LIBDIR)/libfdma-rtl.so)
	install -m 755 $(LIBSO) $(DESTDIR)$(LIBDIR)/libfdma.so.$(VERSION)
	ln -sfn libfdma.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(LIBDIR)/libfdma.so
	install -m 644 include/fdma.h $(DESTDIR)$(INCLUDEDIR)/fdma.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@URING_LIBS@|$(URING_LIBS)|g' \
	    packaging/fdma.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/fdma.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/fdma.pc

# The Python module (python/fdma, docs/python.md): plain files over
# libfdma.so.0 through ctypes, nothing compiled. Debian's python3 reads
# /usr/lib/python3/dist-packages for PREFIX=/usr, and for any other prefix
# (the default /usr/local) PREFIX/lib/python3.X/dist-packages, X its own
# minor version: so the default install imports without PYTHONPATH.
PYVERSION  := $(shell for p in /usr/bin/python3 python3; do \
	$$p -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null && break; done)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(or $(PYVERSION),3)/dist-packages)
.PHONY: install-python
install-python:
	install -d $(DESTDIR)$(PYTHONDIR)/fdma
	install -m 644 python/fdma/*.py $(DESTDIR)$(PYTHONDIR)/fdma/

install-bin: $(FDMA) $(MODELD)
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(FDMA) $(DESTDIR)$(BINDIR)/fdma
	$(if $(MODELD),install -m 755 $(MODELD) $(DESTDIR)$(BINDIR)/fdma-modeld)

install-man:
	for sec in 1 3 7; do \
		install -d $(DESTDIR)$(MANDIR)/man$$sec && \
		install -m 644 docs/man/*.$$sec $(DESTDIR)$(MANDIR)/man$$sec/ || exit 1; \
	done

# The GStreamer plugin, into GStreamer's own plugin folder (pkg-config's
# pluginsdir whatever PREFIX is: GStreamer looks nowhere else unless told
# by GST_PLUGIN_PATH). GSTPLUGINDIR=... puts it elsewhere.
install-gst: $(GST_PLUGIN)
	$(if $(GST_PLUGIN),install -d $(DESTDIR)$(GSTPLUGINDIR) && \
		install -m 755 $(GST_PLUGIN) $(DESTDIR)$(GSTPLUGINDIR)/libgstfdma.so, \
		@echo "install-gst: no GStreamer development files: the plugin was not built")

# /dev/fdma* for the group fdma (mode 0660), and the group itself for
# systemd-sysusers.
install-udev:
	install -d $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(SYSUSERSDIR)
	install -m 644 packaging/udev/60-fdma.rules $(DESTDIR)$(UDEVRULESDIR)/60-fdma.rules
	install -m 644 packaging/sysusers/fdma.conf $(DESTDIR)$(SYSUSERSDIR)/fdma.conf

# fdma.ko's and fdma_dmac.ko's sources for DKMS, in the repository's layout
# (kernel/'s Kbuild takes the engine core from ../engine and the ioctl
# header from ../include): kernel/ without build products, the links its
# Makefile makes or the VM harness's parts (kernel/harness/, built only with
# FDMA_HARNESS=y), engine/ (without the device models' test block, fdma_mdbg.h,
# and the user-space platform, engine/user/), include/fdma_ioctl.h, a top-level Makefile and
# dkms.conf.
install-dkms:
	install -d $(DESTDIR)$(DKMSDIR)/kernel $(DESTDIR)$(DKMSDIR)/kernel/include \
		$(DESTDIR)$(DKMSDIR)/kernel/dmac $(DESTDIR)$(DKMSDIR)/engine \
		$(DESTDIR)$(DKMSDIR)/include
	for f in kernel/Kbuild kernel/Makefile kernel/README.md kernel/*.c kernel/*.h \
		kernel/include/*.h kernel/dmac/Kbuild kernel/dmac/*.c kernel/dmac/*.h; do \
		case $$f in *.mod.c) continue ;; esac; \
		[ -L $$f ] || install -m 644 $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	for f in engine/*.c engine/*.h; do \
		[ $$f = engine/fdma_mdbg.h ] || install -m 644 $$f $(DESTDIR)$(DKMSDIR)/engine/ || exit 1; \
	done
	install -m 644 include/fdma_ioctl.h $(DESTDIR)$(DKMSDIR)/include/
	install -m 644 packaging/dkms/Makefile $(DESTDIR)$(DKMSDIR)/Makefile
	sed 's|@VERSION@|$(VERSION)|g' packaging/dkms/dkms.conf.in >$(DESTDIR)$(DKMSDIR)/dkms.conf
	chmod 644 $(DESTDIR)$(DKMSDIR)/dkms.conf

clean:
	rm -rf build build-asan build-tsan build-a64 build-a64-asan build-arm64 build-armhf build-pkg
	[ ! -f kernel/Makefile ] || $(MAKE) -C kernel clean

# The compiler's dependency files, by name (a find in $(BUILD) would also
# pick up the arm64 sysroot's *.d folders under build/).
DEPS := $(GST_OBJ:.o=.d) $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(TOOL_OBJ:.o=.d) $(TESTLIB_OBJ:.o=.d) \
	$(MODELD_SRC:%.c=$(BUILD)/%.d) $(UNIT_BIN:=.d) $(SIM_BIN:=.d)
-include $(wildcard $(DEPS))
