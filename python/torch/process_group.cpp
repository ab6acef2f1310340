// SPDX-License-Identifier: MIT
/*
 * ProcessGroupTern (process_group.hpp): the collectives, the worker that
 * sees each one through, and the watchdog that aborts the communicator
 * when one outlives the group's timeout, so that no wait hangs.
 *
 * Order: every call enqueues its collectives on the group's one stream,
 * in call order, as every rank calls them; the worker waits for them in
 * that order, copies the results out and completes the Work and its
 * Future. A failed collective's error (libtern's, sticky on the
 * communicator) fails its Work and every later one.
 */
#include "process_group.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

namespace tern_torch {

namespace {

tern_dtype_t dtype_of(const at::Tensor &t)
{
	switch (t.scalar_type()) {
	case at::kFloat:
		return TERN_FLOAT32;
	case at::kHalf:
		return TERN_FLOAT16;
	case at::kBFloat16:
		return TERN_BFLOAT16;
	case at::kInt:
		return TERN_INT32;
	case at::kLong:
		return TERN_INT64;
	case at::kChar:
		return TERN_INT8;
	case at::kByte:
		return TERN_UINT8;
	default:
		TORCH_CHECK(false, "ProcessGroupTern: tensors of ", t.scalar_type(),
			    " are not supported (float32, float16, bfloat16, "
			    "int32, int64, int8 and uint8 are)");
	}
}

tern_redop_t redop_of(const c10d::ReduceOp &op)
{
	switch (op) {
	case c10d::ReduceOp::SUM:
		return TERN_SUM;
	case c10d::ReduceOp::AVG:
		return TERN_AVG;
	case c10d::ReduceOp::PRODUCT:
		return TERN_PROD;
	case c10d::ReduceOp::MIN:
		return TERN_MIN;
	case c10d::ReduceOp::MAX:
		return TERN_MAX;
	default:
		TORCH_CHECK(false, "ProcessGroupTern: reduce op ",
			    static_cast<int>(op),
			    " is not supported (SUM, AVG, PRODUCT, MIN, MAX are)");
	}
}

void check_cpu(const at::Tensor &t)
{
	TORCH_CHECK(t.device().is_cpu(),
		    "ProcessGroupTern: tensors must be on the CPU, not ",
		    t.device());
	dtype_of(t);
}

void check_same(const at::Tensor &a, const at::Tensor &b, const char *what)
{
	TORCH_CHECK(a.scalar_type() == b.scalar_type(), "ProcessGroupTern: ",
		    what, ": tensors of ", a.scalar_type(), " and ",
		    b.scalar_type());
	TORCH_CHECK(a.numel() == b.numel(), "ProcessGroupTern: ", what,
		    ": tensors of ", a.numel(), " and ", b.numel(),
		    " elements");
}

size_t bytes_of(const at::Tensor &t)
{
	return static_cast<size_t>(t.numel()) * t.element_size();
}

// A tensor over @bytes of staging @s at @at, shaped and typed as @like.
at::Tensor view_of(const Staging &s, size_t at, const at::Tensor &like)
{
	return at::from_blob(static_cast<char *>(s.cpu) + at, like.sizes(),
			     at::TensorOptions().dtype(like.scalar_type()));
}

std::string status_text(tern_status_t st)
{
	std::string text = tern_status_name(st);
	const char *why = tern_get_last_error();

	text += ": ";
	text += tern_status_string(st);
	if (why && *why) {
		text += " (";
		text += why;
		text += ")";
	}
	return text;
}

// What is left until @deadline, in what libtern takes: 1 ms to an hour.
int init_timeout_ms(std::chrono::steady_clock::time_point deadline)
{
	auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
		deadline - std::chrono::steady_clock::now()).count();

	if (left < 1)
		return 1;
	if (left > TERN_COMM_INIT_TIMEOUT_MAX_MS)
		return TERN_COMM_INIT_TIMEOUT_MAX_MS;
	return static_cast<int>(left);
}

int local_rank(int rank, int count)
{
	const char *env = std::getenv("LOCAL_RANK");

	if (env && *env)
		return std::atoi(env);
	return count > 0 ? rank % count : 0;
}

} // namespace

// ---- works ----

ProcessGroupTern::WorkTern::WorkTern(int rank, c10d::OpType type,
				     std::vector<at::Tensor> outputs)
	: c10d::Work(rank, type), outputs_(std::move(outputs)),
	  future_(c10::make_intrusive<c10::ivalue::Future>(
		  c10::ListType::create(c10::TensorType::get())))
{
}

c10::intrusive_ptr<c10::ivalue::Future> ProcessGroupTern::WorkTern::getFuture()
{
	return future_;
}

std::vector<at::Tensor> ProcessGroupTern::WorkTern::result()
{
	return outputs_;
}

// ---- the group ----

ProcessGroupTern::ProcessGroupTern(const c10::intrusive_ptr<c10d::Store> &store,
				   int rank, int size,
				   std::chrono::milliseconds timeout)
	: c10d::ProcessGroup(rank, size), timeout_(timeout)
{
	try {
		join(store, rank, size);
	} catch (...) {
		// No destructor runs for a constructor that throws.
		if (device_)
			tern_device_close(device_);	/* and its stream */
		throw;
	}
	worker_ = std::thread(&ProcessGroupTern::run_worker, this);
	watchdog_ = std::thread(&ProcessGroupTern::run_watchdog, this);
}

void ProcessGroupTern::join(const c10::intrusive_ptr<c10d::Store> &store,
			    int rank, int size)
{
	// The group's timeout bounds it all: the wait for rank 0's id, then
	// for the other ranks (libtern's default, TERN_COMM_INIT_TIMEOUT_MS,
	// is no one's choice here).
	const auto deadline = std::chrono::steady_clock::now() + timeout_;
	tern_unique_id_t id;
	int count = 0;

	check(tern_device_count(&count), "counting the devices");
	TORCH_CHECK(count > 0, "ProcessGroupTern: no Tern device");
	check(tern_device_open(local_rank(rank, count), &device_),
	      "opening the local rank's device");
	check(tern_stream_create(device_, &stream_), "creating a stream");
	// Rank 0's id reaches the others through the group's store, which
	// anyone who reaches it may read: the id goes without its secret,
	// which each rank takes from TERN_COMM_SECRET or, on rank 0's host,
	// from a file only the user can read (tern_unique_id_public).
	if (rank == 0) {
		tern_unique_id_t full;

		check(tern_get_unique_id(&full), "making the communicator's id");
		check(tern_unique_id_public(&full, &id),
		      "keeping the communicator's secret");
		store->set("tern_unique_id",
			   std::vector<uint8_t>(id.internal,
						id.internal + sizeof(id.internal)));
	} else {
		store->wait({ "tern_unique_id" }, timeout_);
		auto got = store->get("tern_unique_id");

		TORCH_CHECK(got.size() == sizeof(id.internal),
			    "ProcessGroupTern: the store's id has ", got.size(),
			    " bytes");
		std::memcpy(id.internal, got.data(), sizeof(id.internal));
	}
	const int ms = init_timeout_ms(deadline);
	const std::string what = "joining the communicator (the other ranks "
				 "waited for up to " + std::to_string(ms) +
				 " ms, the rest of the group's timeout)";

	check(tern_comm_init_rank_timeout(&comm_, size, &id, rank, device_, ms),
	      what.c_str());
}

ProcessGroupTern::~ProcessGroupTern()
{
	{
		std::unique_lock<std::mutex> guard(lock_);
		stop_ = true;
		cond_.notify_all();
	}
	if (worker_.joinable())
		worker_.join();
	if (watchdog_.joinable())
		watchdog_.join();
	if (comm_ && !aborted_)
		tern_comm_destroy(comm_);
	for (auto &s : pool_)
		tern_buffer_free(s.buffer);
	if (device_)
		tern_device_close(device_);	/* and its stream */
}

c10::intrusive_ptr<c10d::ProcessGroup>
ProcessGroupTern::create(const c10::intrusive_ptr<c10d::Store> &store,
			 int rank, int size, std::chrono::duration<float> timeout)
{
	return c10::make_intrusive<ProcessGroupTern>(
		store, rank, size,
		std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
}

void ProcessGroupTern::check(tern_status_t status, const char *what)
{
	TORCH_CHECK(status == TERN_SUCCESS, "ProcessGroupTern: ", what, ": ",
		    status_text(status));
}

Staging ProcessGroupTern::acquire(size_t bytes)
{
	Staging s;

	bytes = bytes ? bytes : 1;
	{
		std::lock_guard<std::mutex> guard(pool_lock_);
		for (size_t i = 0; i < pool_.size(); i++) {
			if (pool_[i].bytes >= bytes &&
			    pool_[i].bytes <= 2 * bytes + 4096) {
				s = pool_[i];
				pool_.erase(pool_.begin() + i);
				return s;
			}
		}
	}
	s.bytes = bytes;
	check(tern_buffer_alloc(device_, TERN_MEMORY_DEVICE, bytes, &s.buffer),
	      "allocating device memory");
	check(tern_buffer_map(s.buffer, &s.cpu), "mapping device memory");
	return s;
}

void ProcessGroupTern::release(std::vector<Staging> &staging)
{
	std::lock_guard<std::mutex> guard(pool_lock_);

	for (auto &s : staging) {
		// A few kept: the sizes a training step asks again.
		if (pool_.size() < 16)
			pool_.push_back(s);
		else
			tern_buffer_free(s.buffer);
	}
	staging.clear();
}

void ProcessGroupTern::stage_in(const Staging &s, size_t at,
				const at::Tensor &t)
{
	view_of(s, at, t).copy_(t);
}

void ProcessGroupTern::enqueued(WorkTern &work, tern_status_t status,
				const char *what)
{
	if (status == TERN_SUCCESS)
		return;
	release(work.staging_);
	check(status, what);
}

at::Tensor ProcessGroupTern::one_tensor(const std::vector<at::Tensor> &tensors,
				       int64_t rank, bool peer,
				       const char *what) const
{
	TORCH_CHECK(tensors.size() == 1, "ProcessGroupTern: ", what,
		    " takes one tensor a rank");
	TORCH_CHECK(rank >= 0 && rank < getSize() &&
		    (!peer || rank != getRank()),
		    "ProcessGroupTern: ", what, ": no ", peer ? "peer " : "rank ",
		    rank);
	check_cpu(tensors[0]);
	return tensors[0];
}

c10::intrusive_ptr<ProcessGroupTern::WorkTern>
ProcessGroupTern::make_work(c10d::OpType type, std::vector<at::Tensor> outputs)
{
	TORCH_CHECK(!aborted_, "ProcessGroupTern: the communicator was aborted "
		    "(a collective outlived the group's timeout)");
	return c10::make_intrusive<WorkTern>(getRank(), type,
					     std::move(outputs));
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::submit(c10::intrusive_ptr<WorkTern> work)
{
	std::unique_lock<std::mutex> guard(lock_);

	work->deadline_ = std::chrono::steady_clock::now() + timeout_;
	queue_.push_back(work);
	cond_.notify_all();
	return work;
}

void ProcessGroupTern::run_worker()
{
	for (;;) {
		c10::intrusive_ptr<WorkTern> work;
		tern_status_t st;

		{
			std::unique_lock<std::mutex> guard(lock_);

			cond_.wait(guard, [&] { return stop_ || !queue_.empty(); });
			if (queue_.empty())
				return;
			work = queue_.front();
			queue_.pop_front();
			running_ = work;
		}
		st = aborted_ ? TERN_ERROR_CANCELLED :
				tern_stream_synchronize(stream_);
		if (st == TERN_SUCCESS) {
			try {
				if (work->finish_)
					work->finish_();
				// the future first: a wait() may read it at once
				work->future_->markCompleted(
					c10::IValue(work->outputs_));
				work->finish();
			} catch (...) {
				auto e = std::current_exception();

				work->future_->setError(e);
				work->finish(e);
			}
			release(work->staging_);
		} else {
			auto e = std::make_exception_ptr(std::runtime_error(
				"ProcessGroupTern: a collective failed: " +
				status_text(st)));

			release(work->staging_);
			work->future_->setError(e);
			work->finish(e);
		}
		std::unique_lock<std::mutex> guard(lock_);
		running_.reset();
	}
}

// Aborts the communicator when the work in flight outlives its deadline:
// its peers learn of it, and every wait ends with an error.
void ProcessGroupTern::run_watchdog()
{
	std::unique_lock<std::mutex> guard(lock_);

	while (!stop_) {
		cond_.wait_for(guard, std::chrono::milliseconds(100));
		if (running_ && !aborted_ &&
		    std::chrono::steady_clock::now() > running_->deadline_) {
			aborted_ = true;
			tern_comm_abort(comm_);
		}
	}
}

// ---- collectives ----

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::allreduce(std::vector<at::Tensor> &tensors,
			    const c10d::AllreduceOptions &opts)
{
	const tern_redop_t op = redop_of(opts.reduceOp);
	auto work = make_work(c10d::OpType::ALLREDUCE, tensors);
	std::vector<size_t> at;
	size_t total = 0;

	for (auto &t : tensors) {
		check_cpu(t);
		at.push_back(total);
		total += bytes_of(t);
	}
	Staging s = acquire(total);

	work->staging_.push_back(s);
	for (size_t i = 0; i < tensors.size(); i++)
		stage_in(s, at[i], tensors[i]);
	check(tern_group_start(), "starting a group");
	for (size_t i = 0; i < tensors.size(); i++) {
		tern_ptr_t p = tern_ptr(s.buffer, at[i]);

		tern_status_t st = tern_all_reduce(p, p, tensors[i].numel(),
						   dtype_of(tensors[i]), op,
						   comm_, stream_);
		if (st)
			tern_group_end();
		enqueued(*work, st, "all-reduce");
	}
	enqueued(*work, tern_group_end(), "all-reduce");
	work->finish_ = [s, at, tensors]() mutable {
		for (size_t i = 0; i < tensors.size(); i++)
			tensors[i].copy_(view_of(s, at[i], tensors[i]));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::allreduce_coalesced(std::vector<at::Tensor> &tensors,
				      const c10d::AllreduceCoalescedOptions &opts)
{
	c10d::AllreduceOptions one;

	one.reduceOp = opts.reduceOp;
	return allreduce(tensors, one);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::broadcast(std::vector<at::Tensor> &tensors,
			    const c10d::BroadcastOptions &opts)
{
	at::Tensor t = one_tensor(tensors, opts.rootRank, false, "broadcast");
	auto work = make_work(c10d::OpType::BROADCAST, tensors);
	Staging s = acquire(bytes_of(t));

	work->staging_.push_back(s);
	if (getRank() == opts.rootRank)
		stage_in(s, 0, t);
	tern_ptr_t p = tern_ptr(s.buffer, 0);
	tern_status_t st = tern_broadcast(p, p, t.numel(), dtype_of(t),
					  static_cast<int>(opts.rootRank), comm_,
					  stream_);
	enqueued(*work, st, "broadcast");
	work->finish_ = [s, t]() mutable { t.copy_(view_of(s, 0, t)); };
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::reduce(std::vector<at::Tensor> &tensors,
			 const c10d::ReduceOptions &opts)
{
	at::Tensor t = one_tensor(tensors, opts.rootRank, false, "reduce");
	const tern_redop_t op = redop_of(opts.reduceOp);
	auto work = make_work(c10d::OpType::REDUCE, tensors);
	Staging s = acquire(bytes_of(t));
	const bool root = getRank() == opts.rootRank;

	work->staging_.push_back(s);
	stage_in(s, 0, t);
	tern_ptr_t p = tern_ptr(s.buffer, 0);
	tern_status_t st = tern_reduce(p, p, t.numel(), dtype_of(t), op,
				       static_cast<int>(opts.rootRank), comm_,
				       stream_);
	enqueued(*work, st, "reduce");
	if (root)
		work->finish_ = [s, t]() mutable { t.copy_(view_of(s, 0, t)); };
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::_allgather_base(at::Tensor &output, at::Tensor &input,
				  const c10d::AllgatherOptions &opts)
{
	(void)opts;
	check_cpu(input);
	check_cpu(output);
	TORCH_CHECK(output.scalar_type() == input.scalar_type() &&
		    output.numel() == input.numel() * getSize(),
		    "ProcessGroupTern: all-gather: the output must hold the "
		    "size's inputs (", input.numel() * getSize(),
		    " elements), not ", output.numel());
	auto work = make_work(c10d::OpType::_ALLGATHER_BASE, { output });
	const size_t in = bytes_of(input);
	Staging s = acquire(in * (getSize() + 1));

	work->staging_.push_back(s);
	stage_in(s, 0, input);
	tern_status_t st = tern_all_gather(tern_ptr(s.buffer, 0),
					   tern_ptr(s.buffer, in),
					   input.numel(), dtype_of(input),
					   comm_, stream_);
	enqueued(*work, st, "all-gather");
	work->finish_ = [s, in, output]() mutable {
		output.copy_(view_of(s, in, output));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::allgather(std::vector<std::vector<at::Tensor>> &outputs,
			    std::vector<at::Tensor> &inputs,
			    const c10d::AllgatherOptions &opts)
{
	TORCH_CHECK(inputs.size() == 1 && outputs.size() == 1 &&
		    outputs[0].size() == static_cast<size_t>(getSize()),
		    "ProcessGroupTern: all-gather takes one input and a list "
		    "of the group's size of outputs");
	at::Tensor input = inputs[0];
	check_cpu(input);
	for (auto &o : outputs[0])
		check_same(o, input, "all-gather");
	auto work = make_work(c10d::OpType::ALLGATHER, outputs[0]);
	const size_t in = bytes_of(input);
	Staging s = acquire(in * (getSize() + 1));

	(void)opts;
	work->staging_.push_back(s);
	stage_in(s, 0, input);
	tern_status_t st = tern_all_gather(tern_ptr(s.buffer, 0),
					   tern_ptr(s.buffer, in),
					   input.numel(), dtype_of(input),
					   comm_, stream_);
	enqueued(*work, st, "all-gather");
	std::vector<at::Tensor> outs = outputs[0];
	work->finish_ = [s, in, outs]() mutable {
		for (size_t r = 0; r < outs.size(); r++)
			outs[r].copy_(view_of(s, in * (r + 1), outs[r]));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::_reduce_scatter_base(at::Tensor &output, at::Tensor &input,
				       const c10d::ReduceScatterOptions &opts)
{
	check_cpu(input);
	check_cpu(output);
	TORCH_CHECK(output.scalar_type() == input.scalar_type() &&
		    input.numel() == output.numel() * getSize(),
		    "ProcessGroupTern: reduce-scatter: the input must hold the "
		    "size's outputs (", output.numel() * getSize(),
		    " elements), not ", input.numel());
	const tern_redop_t op = redop_of(opts.reduceOp);
	auto work = make_work(c10d::OpType::_REDUCE_SCATTER_BASE, { output });
	const size_t in = bytes_of(input);
	Staging s = acquire(in + bytes_of(output));

	work->staging_.push_back(s);
	stage_in(s, 0, input);
	tern_status_t st = tern_reduce_scatter(tern_ptr(s.buffer, 0),
					       tern_ptr(s.buffer, in),
					       output.numel(), dtype_of(input),
					       op, comm_, stream_);
	enqueued(*work, st, "reduce-scatter");
	work->finish_ = [s, in, output]() mutable {
		output.copy_(view_of(s, in, output));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::reduce_scatter(std::vector<at::Tensor> &outputs,
				 std::vector<std::vector<at::Tensor>> &inputs,
				 const c10d::ReduceScatterOptions &opts)
{
	TORCH_CHECK(outputs.size() == 1 && inputs.size() == 1 &&
		    inputs[0].size() == static_cast<size_t>(getSize()),
		    "ProcessGroupTern: reduce-scatter takes one output and a "
		    "list of the group's size of inputs");
	at::Tensor output = outputs[0];
	check_cpu(output);
	for (auto &i : inputs[0])
		check_same(i, output, "reduce-scatter");
	const tern_redop_t op = redop_of(opts.reduceOp);
	auto work = make_work(c10d::OpType::REDUCE_SCATTER, outputs);
	const size_t b = bytes_of(output);
	Staging s = acquire(b * (getSize() + 1));

	work->staging_.push_back(s);
	for (size_t r = 0; r < inputs[0].size(); r++)
		stage_in(s, b * r, inputs[0][r]);
	tern_status_t st = tern_reduce_scatter(tern_ptr(s.buffer, 0),
					       tern_ptr(s.buffer, b * getSize()),
					       output.numel(), dtype_of(output),
					       op, comm_, stream_);
	enqueued(*work, st, "reduce-scatter");
	const size_t at = b * getSize();
	work->finish_ = [s, at, output]() mutable {
		output.copy_(view_of(s, at, output));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::alltoall_base(at::Tensor &output, at::Tensor &input,
				std::vector<int64_t> &output_splits,
				std::vector<int64_t> &input_splits,
				const c10d::AllToAllOptions &opts)
{
	const int n = getSize();
	(void)opts;
	check_cpu(input);
	check_cpu(output);
	TORCH_CHECK(input.scalar_type() == output.scalar_type(),
		    "ProcessGroupTern: all-to-all: tensors of ",
		    input.scalar_type(), " and ", output.scalar_type());
	const int64_t row = input.dim() ? input.numel() / std::max<int64_t>(input.size(0), 1) : 1;
	std::vector<int64_t> in_rows = input_splits, out_rows = output_splits;
	if (in_rows.empty())
		in_rows.assign(n, input.dim() ? input.size(0) / n : 0);
	if (out_rows.empty())
		out_rows.assign(n, output.dim() ? output.size(0) / n : 0);
	TORCH_CHECK(in_rows.size() == static_cast<size_t>(n) &&
		    out_rows.size() == static_cast<size_t>(n),
		    "ProcessGroupTern: all-to-all: splits must have the group's size");
	int64_t in_total = 0, out_total = 0;
	for (int r = 0; r < n; r++) {
		TORCH_CHECK(in_rows[r] >= 0 && out_rows[r] >= 0,
			    "ProcessGroupTern: all-to-all: a negative split");
		in_total += in_rows[r];
		out_total += out_rows[r];
	}
	TORCH_CHECK(in_total * row == input.numel() &&
		    out_total * row == output.numel(),
		    "ProcessGroupTern: all-to-all: the splits do not add up to "
		    "the tensors' rows");
	auto work = make_work(c10d::OpType::ALLTOALL_BASE, { output });
	const size_t es = input.element_size(), in = bytes_of(input);
	Staging s = acquire(in + bytes_of(output));
	const tern_dtype_t dt = dtype_of(input);

	work->staging_.push_back(s);
	stage_in(s, 0, input.contiguous());
	check(tern_group_start(), "starting a group");
	tern_status_t st = TERN_SUCCESS;
	size_t ia = 0, oa = in;
	for (int r = 0; r < n && !st; r++) {
		const size_t ic = static_cast<size_t>(in_rows[r] * row);
		const size_t oc = static_cast<size_t>(out_rows[r] * row);

		st = tern_send(tern_ptr(s.buffer, ia), ic, dt, r, comm_, stream_);
		if (!st)
			st = tern_recv(tern_ptr(s.buffer, oa), oc, dt, r, comm_,
				       stream_);
		ia += ic * es;
		oa += oc * es;
	}
	tern_status_t end = tern_group_end();
	enqueued(*work, st ? st : end, "all-to-all");
	work->finish_ = [s, in, output]() mutable {
		output.copy_(view_of(s, in, output));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::alltoall(std::vector<at::Tensor> &outputs,
			   std::vector<at::Tensor> &inputs,
			   const c10d::AllToAllOptions &opts)
{
	const int n = getSize();
	(void)opts;
	TORCH_CHECK(inputs.size() == static_cast<size_t>(n) &&
		    outputs.size() == static_cast<size_t>(n),
		    "ProcessGroupTern: all-to-all takes lists of the group's size");
	size_t total = 0;
	std::vector<size_t> in_at, out_at;
	for (int r = 0; r < n; r++) {
		check_cpu(inputs[r]);
		check_cpu(outputs[r]);
		TORCH_CHECK(inputs[r].scalar_type() == inputs[0].scalar_type() &&
			    outputs[r].scalar_type() == inputs[0].scalar_type(),
			    "ProcessGroupTern: all-to-all: tensors of one dtype");
		in_at.push_back(total);
		total += bytes_of(inputs[r]);
	}
	for (int r = 0; r < n; r++) {
		out_at.push_back(total);
		total += bytes_of(outputs[r]);
	}
	auto work = make_work(c10d::OpType::ALLTOALL, outputs);
	Staging s = acquire(total);
	const tern_dtype_t dt = dtype_of(inputs[0]);

	work->staging_.push_back(s);
	for (int r = 0; r < n; r++)
		stage_in(s, in_at[r], inputs[r]);
	check(tern_group_start(), "starting a group");
	tern_status_t st = TERN_SUCCESS;
	for (int r = 0; r < n && !st; r++) {
		st = tern_send(tern_ptr(s.buffer, in_at[r]), inputs[r].numel(),
			       dt, r, comm_, stream_);
		if (!st)
			st = tern_recv(tern_ptr(s.buffer, out_at[r]),
				       outputs[r].numel(), dt, r, comm_, stream_);
	}
	tern_status_t end = tern_group_end();
	enqueued(*work, st ? st : end, "all-to-all");
	std::vector<at::Tensor> outs = outputs;
	work->finish_ = [s, out_at, outs]() mutable {
		for (size_t r = 0; r < outs.size(); r++)
			outs[r].copy_(view_of(s, out_at[r], outs[r]));
	};
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::send(std::vector<at::Tensor> &tensors, int dst, int tag)
{
	(void)tag;
	at::Tensor t = one_tensor(tensors, dst, true, "send");
	auto work = make_work(c10d::OpType::SEND, tensors);
	Staging s = acquire(bytes_of(t));

	work->staging_.push_back(s);
	stage_in(s, 0, t);
	tern_status_t st = tern_send(tern_ptr(s.buffer, 0), t.numel(),
				     dtype_of(t), dst, comm_, stream_);
	enqueued(*work, st, "send");
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::recv(std::vector<at::Tensor> &tensors, int src, int tag)
{
	(void)tag;
	at::Tensor t = one_tensor(tensors, src, true, "recv");
	auto work = make_work(c10d::OpType::RECV, tensors);
	Staging s = acquire(bytes_of(t));

	work->staging_.push_back(s);
	tern_status_t st = tern_recv(tern_ptr(s.buffer, 0), t.numel(),
				     dtype_of(t), src, comm_, stream_);
	enqueued(*work, st, "recv");
	work->finish_ = [s, t]() mutable { t.copy_(view_of(s, 0, t)); };
	return submit(work);
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupTern::barrier(const c10d::BarrierOptions &opts)
{
	(void)opts;
	auto work = make_work(c10d::OpType::BARRIER, {});
	Staging s = acquire(4);

	work->staging_.push_back(s);
	tern_ptr_t p = tern_ptr(s.buffer, 0);
	tern_status_t st = tern_all_reduce(p, p, 1, TERN_INT32, TERN_SUM,
					   comm_, stream_);
	enqueued(*work, st, "barrier");
	return submit(work);
}

} // namespace tern_torch
