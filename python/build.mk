# SPDX-License-Identifier: MIT
#
# The Python module tern, for Debian's python3 (PYTHON, /usr/bin/python3:
# the interpreter python3-torch is built for, whatever else is first on
# PATH), built in place into $(BUILD)/python/tern: PYTHONPATH=$(BUILD)/python
# imports it, the extension finding libtern beside it by its rpath.
# Sanitizer builds leave it out: a sanitized extension needs the sanitizer
# preloaded into the interpreter.

PYTHON ?= /usr/bin/python3

ifeq ($(SAN),)
ifneq ($(wildcard $(PYTHON)),)
PY_INCLUDE := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
PY_EXT_SUFFIX := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
endif
endif

ifneq ($(wildcard $(PY_INCLUDE)/Python.h),)
PY_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard python/src/*.c)))
PY_PKG := $(BUILD)/python/tern
PY_EXT := $(PY_PKG)/_tern$(PY_EXT_SUFFIX)
PY_SOURCES := $(patsubst python/tern/%,$(PY_PKG)/%,$(wildcard python/tern/*.py))

$(PY_OBJS): CFLAGS_COMMON += -I$(PY_INCLUDE) -Ipython/src

$(PY_EXT): $(PY_OBJS) $(BUILD)/libtern.so
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(PY_OBJS) -L$(BUILD) -ltern \
		-Wl,-rpath,'$$ORIGIN/../..'

$(PY_PKG)/%.py: python/tern/%.py
	@mkdir -p $(dir $@)
	cp $< $@

USERSPACE_TARGETS += $(PY_EXT) $(PY_SOURCES)
endif
