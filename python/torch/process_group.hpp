// SPDX-License-Identifier: MIT
/*
 * ProcessGroupTern: torch.distributed's backend "tern", a c10d
 * ProcessGroup over libtern. Each rank of the group is a process on one
 * Tern device (its local rank's); a collective on CPU tensors copies them
 * into buffers of that device, runs libtern's collective there and
 * copies the results back, on a worker thread, so that the call returns
 * at once with a Work (and its Future, which DDP waits on).
 */
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

extern "C" {
#include "tern.h"
}

namespace tern_torch {

// A buffer of the group's device, reused once the work using it ends.
struct Staging {
	tern_buffer_t buffer = nullptr;
	void *cpu = nullptr;
	size_t bytes = 0;
};

class ProcessGroupTern : public c10d::ProcessGroup {
 public:
	class WorkTern : public c10d::Work {
	 public:
		WorkTern(int rank, c10d::OpType type,
			 std::vector<at::Tensor> outputs);
		c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;
		std::vector<at::Tensor> result() override;

	 private:
		friend class ProcessGroupTern;
		// What the worker does once the stream is done: copy out.
		std::function<void()> finish_;
		std::vector<Staging> staging_;
		std::vector<at::Tensor> outputs_;
		c10::intrusive_ptr<c10::ivalue::Future> future_;
		std::chrono::steady_clock::time_point deadline_;
	};

	ProcessGroupTern(const c10::intrusive_ptr<c10d::Store> &store,
			 int rank, int size, std::chrono::milliseconds timeout);
	~ProcessGroupTern() override;

	static c10::intrusive_ptr<c10d::ProcessGroup>
	create(const c10::intrusive_ptr<c10d::Store> &store, int rank,
	       int size, std::chrono::duration<float> timeout);

	const std::string getBackendName() const override { return "tern"; }

	c10::intrusive_ptr<c10d::Work> broadcast(
		std::vector<at::Tensor> &tensors,
		const c10d::BroadcastOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> allreduce(
		std::vector<at::Tensor> &tensors,
		const c10d::AllreduceOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
		std::vector<at::Tensor> &tensors,
		const c10d::AllreduceCoalescedOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> reduce(
		std::vector<at::Tensor> &tensors,
		const c10d::ReduceOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> allgather(
		std::vector<std::vector<at::Tensor>> &outputs,
		std::vector<at::Tensor> &inputs,
		const c10d::AllgatherOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> _allgather_base(
		at::Tensor &output, at::Tensor &input,
		const c10d::AllgatherOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> reduce_scatter(
		std::vector<at::Tensor> &outputs,
		std::vector<std::vector<at::Tensor>> &inputs,
		const c10d::ReduceScatterOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
		at::Tensor &output, at::Tensor &input,
		const c10d::ReduceScatterOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> alltoall_base(
		at::Tensor &output, at::Tensor &input,
		std::vector<int64_t> &output_splits,
		std::vector<int64_t> &input_splits,
		const c10d::AllToAllOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> alltoall(
		std::vector<at::Tensor> &outputs,
		std::vector<at::Tensor> &inputs,
		const c10d::AllToAllOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors,
					    int dst, int tag) override;
	c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors,
					    int src, int tag) override;
	c10::intrusive_ptr<c10d::Work> barrier(
		const c10d::BarrierOptions &opts) override;

 private:
	// Opens the local rank's device and stream, and joins the comm.
	void join(const c10::intrusive_ptr<c10d::Store> &store, int rank,
		  int size);
	Staging acquire(size_t bytes);
	void release(std::vector<Staging> &staging);
	// Copies @t into a staging buffer of the device (offset @at of @s).
	void stage_in(const Staging &s, size_t at, const at::Tensor &t);
	// The one CPU tensor of a rooted or point-to-point call, its root
	// or (@peer: not ourselves) peer @rank checked.
	at::Tensor one_tensor(const std::vector<at::Tensor> &tensors,
			      int64_t rank, bool peer, const char *what) const;
	c10::intrusive_ptr<WorkTern> make_work(c10d::OpType type,
					       std::vector<at::Tensor> outputs);
	// After enqueueing @work's collectives: on a failure, its staging
	// goes back and the call throws, saying @what failed.
	void enqueued(WorkTern &work, tern_status_t status, const char *what);
	// Hands @work (its collectives enqueued) to the worker.
	c10::intrusive_ptr<c10d::Work> submit(c10::intrusive_ptr<WorkTern> work);
	void check(tern_status_t status, const char *what);
	void run_worker();
	void run_watchdog();

	tern_device_t device_ = nullptr;
	tern_stream_t stream_ = nullptr;
	tern_comm_t comm_ = nullptr;
	std::chrono::milliseconds timeout_;

	std::mutex pool_lock_;
	std::vector<Staging> pool_;

	std::mutex lock_;
	std::condition_variable cond_;
	std::deque<c10::intrusive_ptr<WorkTern>> queue_;
	c10::intrusive_ptr<WorkTern> running_;
	bool stop_ = false;
	std::atomic<bool> aborted_{false};	// the watchdog aborted comm_
	std::thread worker_, watchdog_;
};

} // namespace tern_torch
