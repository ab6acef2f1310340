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

# tern._torch, the process group of torch.distributed's backend "tern":
# C++, as c10d is, against Debian's libtorch-dev, with the pybind11 torch
# was built with (so that its ProcessGroup type is the one Python knows).
TORCH_INCLUDE ?= /usr/include
ifneq ($(wildcard $(TORCH_INCLUDE)/torch/csrc/distributed/c10d/ProcessGroup.hpp),)
CXX ?= g++
PY_TORCH_OBJS := $(patsubst %.cpp,$(BUILD)/%.o,$(sort $(wildcard python/torch/*.cpp)))
PY_TORCH_EXT := $(PY_PKG)/_torch$(PY_EXT_SUFFIX)
PY_TORCH_CXXFLAGS := -fPIC -std=c++17 -O2 -g -Wall -Wextra -Werror \
	-D_GLIBCXX_USE_CXX11_ABI=1 -DTORCH_API_INCLUDE_EXTENSION_H \
	-DTORCH_EXTENSION_NAME=_torch -Ilibruntime -isystem $(PY_INCLUDE) \
	-isystem $(TORCH_INCLUDE)/torch/csrc/api/include

$(BUILD)/python/torch/%.o: python/torch/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(PY_TORCH_CXXFLAGS) -MMD -MP -c $< -o $@

$(PY_TORCH_EXT): $(PY_TORCH_OBJS) $(BUILD)/libtern.so
	@mkdir -p $(dir $@)
	$(CXX) -shared -o $@ $(PY_TORCH_OBJS) -L$(BUILD) -ltern -ltorch \
		-ltorch_cpu -lc10 -ltorch_python -Wl,-rpath,'$$ORIGIN/../..'

USERSPACE_TARGETS += $(PY_TORCH_EXT)
endif
endif
