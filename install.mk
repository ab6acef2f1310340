# SPDX-License-Identifier: MIT
#
# make install       libtern, tern.h, tern_sim.h, tern_compute.h, tern_accel.h, tern.pc, the
#                    tools, the man pages, Documentation/*.rst (DOCDIR) and
#                    the udev rule, under DESTDIR + PREFIX
# make uninstall     removes exactly those files
# make install-dkms  tern.ko's sources and dkms.conf into
#                    $(DESTDIR)$(DKMSSRCDIR)/tern-$(TERN_VERSION)/, for dkms
# make uninstall-dkms
#
# install builds nothing itself: it needs the library and the tools, so a
# tree built by `make` installs as is, and only what is out of date is
# rebuilt. Every directory is overridable; see Documentation/install.rst.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/tern
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# udev reads rules from its own directory (udev.pc's udevdir, /lib/udev
# on Debian) and from /etc/udev/rules.d, never from /usr/local: a /usr
# install goes where packages put rules, any other prefix where the
# administrator's own rules live.
ifeq ($(PREFIX),/usr)
UDEVRULESDIR ?= $(or $(shell pkg-config --variable=udevdir udev 2>/dev/null),/lib/udev)/rules.d
else
UDEVRULESDIR ?= /etc/udev/rules.d
endif
# The Python package: where Debian's python3 looks, /usr/lib/python3/
# dist-packages for a /usr install (as python3-* packages put theirs),
# else PREFIX/lib/python3.X/dist-packages (/usr/local's is on its path).
ifeq ($(PREFIX),/usr)
PYTHONDIR ?= /usr/lib/python3/dist-packages
else
PYTHONDIR ?= $(PREFIX)/lib/python$(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)/dist-packages
endif
# dkms looks for sources in /usr/src/<name>-<version>, whatever the prefix.
DKMSSRCDIR ?= /usr/src

# Where libtern looks for tern-simd (libruntime/sim/daemon.c), fixed when
# it is built: its build tree and BINDIR, for a program linked with
# libtern.a or living in a folder of its own; and BINDIR as seen from
# LIBDIR, for libtern.so wherever the tree is installed. A packager whose
# build tree goes away may set TERN_SIMD_DIRS=$(BINDIR).
TERN_SIMD_DIRS ?= $(abspath $(BUILD)):$(BINDIR)
TERN_SIMD_FROM_LIBDIR := $(shell realpath -m --relative-to=$(LIBDIR) $(BINDIR))
$(BUILD)/libruntime/sim/daemon.o: CFLAGS_COMMON += \
	-DTERN_SIMD_DIRS='"$(TERN_SIMD_DIRS)"' \
	-DTERN_SIMD_FROM_LIBDIR='"$(TERN_SIMD_FROM_LIBDIR)"'

INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 0755
INSTALL_DATA ?= $(INSTALL) -m 0644
# Refreshes the dynamic linker's cache after a real (not staged) install
# as root; `make install LDCONFIG=:` skips it.
LDCONFIG ?= ldconfig

TERN_MAN_PAGES := man/tern-inspect.1 man/tern-bench.1 man/libtern.3
TERN_UDEV_RULES := dist/udev/70-tern.rules
# The references the man pages point to (tern-inspect's JSON field tables).
TERN_DOCS := $(sort $(wildcard Documentation/*.rst))
# The Python package as python/build.mk builds it (empty if it does not).
TERN_PY_FILES := $(PY_SOURCES) $(PY_EXT) $(PY_TORCH_EXT)

# Paths as installed (DESTDIR included), so that uninstall removes the
# same list install wrote.
I_LIBDIR := $(DESTDIR)$(LIBDIR)
I_INSTALLED := \
	$(I_LIBDIR)/libtern.so.$(LIBTERN_VERSION) \
	$(I_LIBDIR)/$(LIBTERN_SONAME) \
	$(I_LIBDIR)/libtern.so \
	$(I_LIBDIR)/libtern.a \
	$(DESTDIR)$(PKGCONFIGDIR)/tern.pc \
	$(DESTDIR)$(INCLUDEDIR)/tern.h \
	$(DESTDIR)$(INCLUDEDIR)/tern_sim.h \
	$(DESTDIR)$(INCLUDEDIR)/tern_compute.h \
	$(DESTDIR)$(INCLUDEDIR)/drm/tern_accel.h \
	$(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(TOOLS_PROGRAMS) $(TERN_SIMD))) \
	$(foreach page,$(TERN_MAN_PAGES), \
		$(DESTDIR)$(MANDIR)/man$(subst .,,$(suffix $(page)))/$(notdir $(page))) \
	$(addprefix $(DESTDIR)$(UDEVRULESDIR)/,$(notdir $(TERN_UDEV_RULES))) \
	$(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(TERN_DOCS))) \
	$(addprefix $(DESTDIR)$(PYTHONDIR)/tern/,$(notdir $(TERN_PY_FILES)))

.PHONY: install install-lib install-headers install-tools install-man \
	install-doc install-udev install-python uninstall install-dkms \
	uninstall-dkms

install: install-lib install-headers install-tools install-man install-doc \
	install-udev install-python
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG); fi

install-lib: $(LIBTERN_SO) $(LIBTERN_A) libruntime/tern.pc.in
	$(INSTALL) -d $(I_LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	$(INSTALL_DATA) $(LIBTERN_SO) $(I_LIBDIR)/
	ln -sf libtern.so.$(LIBTERN_VERSION) $(I_LIBDIR)/$(LIBTERN_SONAME)
	ln -sf $(LIBTERN_SONAME) $(I_LIBDIR)/libtern.so
	$(INSTALL_DATA) $(LIBTERN_A) $(I_LIBDIR)/
	$(call tern_pc_subst,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) \
		libruntime/tern.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/tern.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/tern.pc

# tern.h stands alone, tern_sim.h (the simulator's administration, for
# tools) and tern_compute.h (programs and kernels on the cores) beside it; tern_accel.h includes "drm.h", which a program finds
# next to it in /usr/include/drm or through libdrm's Cflags (tern.pc's
# Requires.private).
install-headers:
	$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/drm
	$(INSTALL_DATA) libruntime/tern.h libruntime/tern_sim.h \
		libruntime/tern_compute.h $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL_DATA) uapi/drm/tern_accel.h $(DESTDIR)$(INCLUDEDIR)/drm/

# tern-simd goes with the tools, where libtern looks for it (above).
install-tools: $(TOOLS_PROGRAMS) $(TERN_SIMD)
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	$(INSTALL_PROGRAM) $(TOOLS_PROGRAMS) $(TERN_SIMD) $(DESTDIR)$(BINDIR)/

install-man:
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(INSTALL_DATA) $(filter %.1,$(TERN_MAN_PAGES)) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL_DATA) $(filter %.3,$(TERN_MAN_PAGES)) $(DESTDIR)$(MANDIR)/man3/

install-doc:
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)
	$(INSTALL_DATA) $(TERN_DOCS) $(DESTDIR)$(DOCDIR)/

install-udev:
	$(INSTALL) -d $(DESTDIR)$(UDEVRULESDIR)
	$(INSTALL_DATA) $(TERN_UDEV_RULES) $(DESTDIR)$(UDEVRULESDIR)/

# Nothing where the module is not built (no Python headers).
install-python: $(TERN_PY_FILES)
ifneq ($(TERN_PY_FILES),)
	$(INSTALL) -d $(DESTDIR)$(PYTHONDIR)/tern
	$(INSTALL_DATA) $(TERN_PY_FILES) $(DESTDIR)$(PYTHONDIR)/tern/
endif

# Files only: directories are left, as they may be shared (/usr/local/bin).
uninstall:
	rm -f $(I_INSTALLED)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then $(LDCONFIG); fi

# ---- dkms ----
# The source tree keeps the repository's layout: the top Kbuild builds
# driver/, which includes ../uapi/drm and ../model and reads ../VERSION.
DKMS_TREE := $(DESTDIR)$(DKMSSRCDIR)/tern-$(TERN_VERSION)
DKMS_DRIVER_SRCS := driver/Kbuild \
	$(filter-out %.mod.c,$(wildcard driver/*.c driver/*.h)) \
	$(wildcard model/*.c model/*.h)

install-dkms: dist/dkms.conf.in VERSION Kbuild $(DKMS_DRIVER_SRCS) uapi/drm/tern_accel.h
	rm -rf $(DKMS_TREE)
	$(INSTALL) -d $(DKMS_TREE)/driver $(DKMS_TREE)/model $(DKMS_TREE)/uapi/drm
	$(INSTALL_DATA) Kbuild VERSION $(DKMS_TREE)/
	$(INSTALL_DATA) $(filter driver/%,$(DKMS_DRIVER_SRCS)) $(DKMS_TREE)/driver/
	$(INSTALL_DATA) $(filter model/%,$(DKMS_DRIVER_SRCS)) $(DKMS_TREE)/model/
	$(INSTALL_DATA) uapi/drm/tern_accel.h $(DKMS_TREE)/uapi/drm/
	sed -e 's|@VERSION@|$(TERN_VERSION)|g' dist/dkms.conf.in > $(DKMS_TREE)/dkms.conf
	chmod 0644 $(DKMS_TREE)/dkms.conf

uninstall-dkms:
	rm -rf $(DKMS_TREE)
