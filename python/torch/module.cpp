// SPDX-License-Identifier: MIT
/*
 * tern._torch: the Python face of ProcessGroupTern. tern/torch.py
 * registers create() as the backend "tern" with torch.distributed.
 */
#include <pybind11/chrono.h>
#include <torch/extension.h>

#include "process_group.hpp"

PYBIND11_MODULE(_torch, m)
{
	m.doc() = "ProcessGroupTern, torch.distributed's backend \"tern\"";
	m.def("create", &tern_torch::ProcessGroupTern::create,
	      pybind11::arg("store"), pybind11::arg("rank"),
	      pybind11::arg("size"), pybind11::arg("timeout"),
	      "create(store, rank, size, timeout) -> ProcessGroup",
	      pybind11::call_guard<pybind11::gil_scoped_release>());
}
