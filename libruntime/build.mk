# SPDX-License-Identifier: MIT
#
# libtern: $(BUILD)/libtern.so.$(TERN_VERSION) (+ libtern.so.0, libtern.so links),
# $(BUILD)/libtern.a and $(BUILD)/tern.pc. Included by the top Makefile.
# Other areas link with $(LIBTERN_A) or -L$(BUILD) -ltern.

# The file name follows the project's VERSION; the soname changes only
# when the ABI (libtern.map) breaks.
LIBTERN_VERSION := $(TERN_VERSION)

# tern.h states the version for programs built against it; it must be
# VERSION's, or a release would report two.
TERN_H_VERSION := $(shell sed -n 's/^\#define TERN_VERSION_\(MAJOR\|MINOR\|PATCH\) //p' \
	libruntime/tern.h | paste -sd.)
ifneq ($(TERN_H_VERSION),$(TERN_VERSION))
$(error libruntime/tern.h says version $(TERN_H_VERSION), VERSION says $(TERN_VERSION))
endif
LIBTERN_SONAME := libtern.so.0

LIBTERN_SRCS := $(addprefix libruntime/, \
	status.c debug.c settings.c handle.c backend.c \
	device.c buffer.c stream.c transfer.c event.c worklog.c slots.c \
	packets.c fabric.c dtype.c submit.c) \
	$(sort $(wildcard libruntime/kernel/*.c)) \
	$(sort $(wildcard libruntime/sim/*.c)) simd/wire.c simd/netlink.c \
	$(sort $(wildcard libruntime/compute/*.c)) \
	$(sort $(wildcard libruntime/coll/*.c libruntime/coll/*/*.c \
		libruntime/coll/*/*/*.c)) \
	libruntime/net/stats.c \
	$(sort $(wildcard libruntime/net/ofi/*.c))
LIBTERN_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(LIBTERN_SRCS)) $(MODEL_OBJS)

LIBTERN_SO := $(BUILD)/libtern.so.$(LIBTERN_VERSION)
LIBTERN_A := $(BUILD)/libtern.a
LIBTERN_PC := $(BUILD)/tern.pc
# What a program linking libtern statically needs after $(LIBTERN_A).
LIBTERN_LIBS := $(LDLIBS_DRM) -lcrypto -ldl -lpthread $(MODEL_LIBS)

$(LIBTERN_SO): $(LIBTERN_OBJS) libruntime/libtern.map
	$(CC) -shared -Wl,-soname,$(LIBTERN_SONAME) \
		-Wl,--version-script=libruntime/libtern.map -Wl,--no-undefined \
		-Wl,-z,defs -Wl,-z,now -Wl,-z,relro $(LDFLAGS_SAN) \
		-o $@ $(LIBTERN_OBJS) $(LIBTERN_LIBS)

$(BUILD)/$(LIBTERN_SONAME): $(LIBTERN_SO)
	ln -sf $(notdir $<) $@

$(BUILD)/libtern.so: $(BUILD)/$(LIBTERN_SONAME)
	ln -sf $(notdir $<) $@

$(LIBTERN_A): $(LIBTERN_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# tern_pc_subst PREFIX,LIBDIR,INCLUDEDIR: the sed command that fills in
# tern.pc.in; directories below PREFIX are written as ${prefix}/...
tern_pc_subst = sed -e 's|@PREFIX@|$(1)|' \
	-e 's|@LIBDIR@|$(patsubst $(1)/%,$${prefix}/%,$(2))|' \
	-e 's|@INCLUDEDIR@|$(patsubst $(1)/%,$${prefix}/%,$(3))|' \
	-e 's|@VERSION@|$(LIBTERN_VERSION)|'

# The build tree's tern.pc names the install directories (install.mk) as
# they were when it was made; `make install` writes its own from the
# template, so installing elsewhere rebuilds nothing.
$(LIBTERN_PC): libruntime/tern.pc.in libruntime/build.mk VERSION
	@mkdir -p $(dir $@)
	$(call tern_pc_subst,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) $< > $@

USERSPACE_TARGETS += $(LIBTERN_SO) $(BUILD)/$(LIBTERN_SONAME) \
	$(BUILD)/libtern.so $(LIBTERN_A) $(LIBTERN_PC)
