/* SPDX-License-Identifier: MIT */
/*
 * libtern's compute: programs of engine instructions for a core of a Tern
 * chip (tensor, vector, scalar and DMA engines around the core's SBUF and
 * PSUM), launched on a stream. Documentation/compute.rst defines every
 * instruction to the bit; Documentation/libtern.rst shows how to use them.
 *
 * A program is what a compiler emits: the instructions of one core in the
 * order they must appear to take effect. libtern gives each engine its own
 * instruction stream and orders the engines with semaphores wherever one
 * instruction touches on-chip memory another engine's earlier instruction
 * touched (read after write, write after read, write after write), so the
 * engines overlap as far as the data allow and the result is that of
 * running the instructions one by one.
 */
#ifndef TERN_COMPUTE_H
#define TERN_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "tern.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Partitions of SBUF and PSUM, and the largest matmul tiles. */
#define TERN_PARTITIONS		128
#define TERN_MATMUL_MAX_M	128
#define TERN_MATMUL_MAX_N	512
/* Bytes of a PSUM bank in each partition: a matmul result stays in one. */
#define TERN_PSUM_BANK_BYTES	2048

typedef enum tern_space {
	TERN_SBUF = 1,		/* the state buffer: data */
	TERN_PSUM = 2,		/* matmul results, float32 */
} tern_space_t;

/* The engines of a core; DMA engines are the chip's, shared by its cores. */
typedef enum tern_engine {
	TERN_ENGINE_DMA = 0,
	TERN_ENGINE_TENSOR = 1,
	TERN_ENGINE_VECTOR = 2,
	TERN_ENGINE_SCALAR = 3,
} tern_engine_t;

/*
 * A rectangle of on-chip memory: @partitions partitions from @partition,
 * in each @elements elements of @dtype from byte @offset. Element [p][f]
 * is element f of partition @partition + p.
 */
typedef struct tern_tile {
	tern_space_t space;
	tern_dtype_t dtype;
	uint32_t partition;
	uint32_t partitions;
	uint32_t offset;
	uint32_t elements;
} tern_tile_t;

/*
 * A tile's image in a buffer: element [p][f] at byte @ptr.offset +
 * p * @partition_stride + f * @element_stride of @ptr.buffer, of @dtype
 * (converted to and from the tile's type as TENSOR_COPY does).
 */
typedef struct tern_view {
	tern_ptr_t ptr;
	size_t partition_stride;
	size_t element_stride;
	tern_dtype_t dtype;
} tern_view_t;

/* Elementwise operations, in float32. */
typedef enum tern_alu_op {
	TERN_ALU_NONE = 0,
	TERN_ALU_ADD = 1,
	TERN_ALU_SUBTRACT = 2,
	TERN_ALU_MULTIPLY = 3,
	TERN_ALU_MAX = 4,
	TERN_ALU_MIN = 5,
} tern_alu_op_t;

/* The functions of tern_program_activate(). */
typedef enum tern_activation {
	TERN_ACT_IDENTITY = 0,
	TERN_ACT_RELU = 1,
	TERN_ACT_GELU_TANH = 2,
	TERN_ACT_SILU = 3,
	TERN_ACT_SIGMOID = 4,
	TERN_ACT_TANH = 5,
	TERN_ACT_EXP = 6,
	TERN_ACT_LOG = 7,
	TERN_ACT_RSQRT = 8,
	TERN_ACT_SQUARE = 9,
	TERN_ACTIVATION_COUNT
} tern_activation_t;

/*
 * A per-partition scalar: a float32 @value, or with @column the float32
 * @offset bytes into each of the input's partitions of SBUF.
 */
typedef struct tern_operand {
	bool column;
	float value;
	uint32_t offset;
} tern_operand_t;

static inline tern_operand_t tern_value(float value)
{
	tern_operand_t o = { false, value, 0 };

	return o;
}

static inline tern_operand_t tern_column(uint32_t offset)
{
	tern_operand_t o = { true, 0.0f, offset };

	return o;
}

/* What a device's cores are; TERN_ERROR_NOT_SUPPORTED without compute. */
typedef struct tern_compute_info {
	uint32_t cores;
	uint32_t partitions;		/* of SBUF and PSUM: 128 */
	uint32_t sbuf_partition_bytes;
	uint32_t psum_partition_bytes;
	uint32_t dma_engine_count;	/* the chip's, shared by its cores */
	uint64_t core_clock_hz;		/* of the cost model's cycles */
} tern_compute_info_t;

tern_status_t tern_device_get_compute(tern_device_t device,
				      tern_compute_info_t *info);

typedef struct tern_program *tern_program_t;

/*
 * A program for core @core of @device (0 to the cores of
 * tern_device_get_compute() less one). TERN_ERROR_NOT_SUPPORTED on a
 * device without compute engines.
 */
tern_status_t tern_program_create(tern_device_t device, uint32_t core,
				  tern_program_t *program);
tern_status_t tern_program_destroy(tern_program_t program);

/*
 * The instructions. Each checks its tiles against the core (Documentation/
 * compute.rst gives every rule) and returns TERN_ERROR_INVALID_ARGUMENT,
 * with tern_get_last_error() saying which rule, leaving the program as it
 * was. Buffers are checked at launch: each view must lie inside its
 * buffer, a buffer of the program's device.
 */
/* DMA: @src's elements into @dst (SBUF), and back. */
tern_status_t tern_program_load(tern_program_t program, const tern_tile_t *dst,
				const tern_view_t *src);
tern_status_t tern_program_store(tern_program_t program, const tern_view_t *dst,
				 const tern_tile_t *src);
/*
 * Tensor engine: @result (PSUM, float32, [M][N]) = (or +=, @accumulate)
 * @stationary[K][M]^T . @moving[K][N], summed in K order by fused
 * multiply-adds in float32.
 */
tern_status_t tern_program_matmul(tern_program_t program,
				  const tern_tile_t *result,
				  const tern_tile_t *stationary,
				  const tern_tile_t *moving, bool accumulate);
/*
 * @out = @in converted to @out's type, on the vector or scalar engine; or
 * transposed (@transpose, vector engine: out[f][p] = in[p][f]).
 */
tern_status_t tern_program_copy(tern_program_t program, tern_engine_t engine,
				const tern_tile_t *out, const tern_tile_t *in,
				bool transpose);
/* Vector engine: @out = @in0 @op @in1, element by element. */
tern_status_t tern_program_tensor_tensor(tern_program_t program,
					 const tern_tile_t *out,
					 const tern_tile_t *in0,
					 tern_alu_op_t op,
					 const tern_tile_t *in1);
/*
 * @out = (@in @op0 @s0) @op1 @s1, each step rounded to float32; @op1
 * TERN_ALU_NONE for one step. Vector or scalar engine.
 */
tern_status_t tern_program_tensor_scalar(tern_program_t program,
					 tern_engine_t engine,
					 const tern_tile_t *out,
					 const tern_tile_t *in,
					 tern_alu_op_t op0, tern_operand_t s0,
					 tern_alu_op_t op1, tern_operand_t s1);
/* Vector engine: @out[p][0] = @in[p][0] @op @in[p][1] ... (ADD or MAX). */
tern_status_t tern_program_reduce(tern_program_t program,
				  const tern_tile_t *out,
				  const tern_tile_t *in, tern_alu_op_t op);
/*
 * Scalar engine: @out = @function(fma(@in, @scale, @bias)); with @sum
 * (optional) the float32 column at that SBUF offset of @in's partitions
 * receives each partition's sum of the results.
 */
tern_status_t tern_program_activate(tern_program_t program,
				    const tern_tile_t *out,
				    const tern_tile_t *in,
				    tern_activation_t function,
				    tern_operand_t scale, tern_operand_t bias,
				    const uint32_t *sum);

/* Instructions in @program, on each engine (tern_engine_t order). */
tern_status_t tern_program_count(tern_program_t program, uint32_t counts[4]);

/*
 * Runs @program on @stream's device after the work already on @stream;
 * work queued on @stream later starts after every engine of the program
 * has finished. Its DMA runs on a DMA engine libtern keeps for the core.
 * Launches on one core run
 * one after the other, whatever their streams, since they share its
 * on-chip memory, which keeps what a program left for the next. Failures
 * (a view outside its buffer, a buffer freed) are the stream's, as for any
 * other work. A program may be launched any number of times.
 */
tern_status_t tern_program_launch(tern_program_t program, tern_stream_t stream);

/* ---- tiled kernels: C = act(alpha * op(A) . op(B) + beta * C + bias) ---- */

/*
 * A matrix in a buffer: @rows x @cols elements of @dtype, row r starting
 * @ld elements after row r - 1 (@ld >= @cols).
 */
typedef struct tern_matrix {
	tern_ptr_t ptr;
	tern_dtype_t dtype;
	uint32_t rows;
	uint32_t cols;
	uint32_t ld;
} tern_matrix_t;

static inline tern_matrix_t tern_matrix(tern_ptr_t ptr, tern_dtype_t dtype,
					uint32_t rows, uint32_t cols)
{
	tern_matrix_t m = { ptr, dtype, rows, cols, cols };

	return m;
}

typedef struct tern_gemm_options {
	bool transpose_a;	/* op(A) = A^T */
	bool transpose_b;
	float alpha;		/* 1 when the options are NULL */
	float beta;		/* 0: C is not read */
	/* Per-tensor scales of 8-bit float inputs: A's values are A * scale_a. */
	float scale_a;
	float scale_b;
	const tern_ptr_t *bias;	/* optional: N float32, added to every row */
	tern_activation_t activation;
	uint32_t cores;		/* 0: every core of the device */
} tern_gemm_options_t;

/* The options a NULL stands for: alpha 1, scales 1, the rest 0. */
void tern_gemm_options_init(tern_gemm_options_t *options);

/*
 * @c (M x N) = act(alpha * op(@a) . op(@b) + beta * C + bias), op(A) M x K
 * and op(B) K x N, in float32 on the tensor engine from float32, bfloat16,
 * float16 or 8-bit float inputs, rounded once to @c's type (float32,
 * bfloat16 or float16). The matrices may not overlap @c. Queued on
 * @stream; TERN_ERROR_INVALID_ARGUMENT with a sentence for shapes that do
 * not agree, a type it does not take, a view outside its buffer.
 */
tern_status_t tern_gemm(const tern_matrix_t *a, const tern_matrix_t *b,
			const tern_matrix_t *c,
			const tern_gemm_options_t *options,
			tern_stream_t stream);

/*
 * ---- row kernels ----
 *
 * Each takes matrices of one shape (rows x cols, rows as far apart as
 * their ld says) of float32, bfloat16 or float16, computes in float32 by
 * the device's own operations, one row to a partition, and rounds once to
 * each output's type; Documentation/libtern.rst gives each one's sequence
 * of roundings. A row must fit in a core's SBUF (TERN_ERROR_NOT_SUPPORTED
 * with a sentence otherwise). Outputs may be their inputs themselves (in
 * place) but may not overlap them otherwise.
 */

/* @y = @function(@x), element by element. */
tern_status_t tern_activation(const tern_matrix_t *x, const tern_matrix_t *y,
			      tern_activation_t function, tern_stream_t stream);
/* @dx = @dy * function'(@x): the activation's backward. */
tern_status_t tern_activation_backward(const tern_matrix_t *x,
				       const tern_matrix_t *dy,
				       const tern_matrix_t *dx,
				       tern_activation_t function,
				       tern_stream_t stream);
/* @out = @a @op @b, element by element. */
tern_status_t tern_elementwise(const tern_matrix_t *a, tern_alu_op_t op,
			       const tern_matrix_t *b, const tern_matrix_t *out,
			       tern_stream_t stream);
/* @y = softmax of each row of @x, or with @log its log-softmax. */
tern_status_t tern_softmax(const tern_matrix_t *x, const tern_matrix_t *y,
			   bool log, tern_stream_t stream);
/* @dx from the forward's output @y and @dy (softmax or, @log, log-softmax). */
tern_status_t tern_softmax_backward(const tern_matrix_t *y,
				    const tern_matrix_t *dy,
				    const tern_matrix_t *dx, bool log,
				    tern_stream_t stream);
/*
 * Attention's probabilities: @y = softmax of each row of @x * @scale +
 * @mask (optional, added: 0 where a query may look, -infinity where it
 * may not, as a causal mask's upper triangle), and the backward, @dx =
 * @scale * softmax's backward from @y and @dy: the gradient of the
 * scores before the scale. @scale is finite and not 0.
 */
tern_status_t tern_attention_softmax(const tern_matrix_t *x,
				     const tern_matrix_t *mask, float scale,
				     const tern_matrix_t *y,
				     tern_stream_t stream);
tern_status_t tern_attention_softmax_backward(const tern_matrix_t *y,
					      const tern_matrix_t *dy,
					      float scale,
					      const tern_matrix_t *dx,
					      tern_stream_t stream);
/*
 * Layer norm of each row: @y = (@x - mean) * rstd * @gamma + @beta, with
 * rstd = 1 / sqrt(var + @eps); @gamma and @beta are cols float32 each,
 * and @mean and @rstd (rows float32 each) receive what the backward needs.
 */
tern_status_t tern_layer_norm(const tern_matrix_t *x, tern_ptr_t gamma,
			      tern_ptr_t beta, float eps,
			      const tern_matrix_t *y, tern_ptr_t mean,
			      tern_ptr_t rstd, tern_stream_t stream);
/* Its backward: @dx, and @dgamma and @dbeta (cols float32 each). */
tern_status_t tern_layer_norm_backward(const tern_matrix_t *x,
				       tern_ptr_t gamma, tern_ptr_t mean,
				       tern_ptr_t rstd,
				       const tern_matrix_t *dy,
				       const tern_matrix_t *dx,
				       tern_ptr_t dgamma, tern_ptr_t dbeta,
				       tern_stream_t stream);
/*
 * Cross-entropy of each row of @logits against @targets (a probability
 * per class: one-hot labels or soft ones): @loss (rows float32) =
 * -sum(targets * log_softmax(logits)); with @dlogits (optional),
 * (softmax(logits) - targets) * @grad_scale, the gradient of
 * @grad_scale times the summed loss (1 / rows for a mean).
 */
tern_status_t tern_cross_entropy(const tern_matrix_t *logits,
				 const tern_matrix_t *targets, tern_ptr_t loss,
				 const tern_matrix_t *dlogits, float grad_scale,
				 tern_stream_t stream);
/* @sums (cols float32) = the sum of @x's rows: a bias's gradient. */
tern_status_t tern_sum_rows(const tern_matrix_t *x, tern_ptr_t sums,
			    tern_stream_t stream);

/*
 * ---- optimizer steps ----
 *
 * One step on @count float32 parameters, in place, from their float32
 * gradients, as PyTorch's torch.optim.SGD and Adam define it;
 * Documentation/libtern.rst gives each one's sequence of roundings. The
 * state vectors (@count float32 each) start at zero and are the
 * optimizer's own between steps. No two vectors may overlap.
 */
typedef struct tern_sgd_options {
	float lr;
	float momentum;		/* 0: no velocity (it may then be NULL) */
	float dampening;
	float weight_decay;
	bool nesterov;
	uint64_t step;		/* 1 for the first step, then 2, 3, ... */
} tern_sgd_options_t;

/*
 * g = grad + weight_decay * param; with momentum, velocity = g on step 1,
 * else momentum * velocity + (1 - dampening) * g, and g = velocity (or
 * with @nesterov g + momentum * velocity); param = param - lr * g.
 */
tern_status_t tern_sgd_step(tern_ptr_t param, tern_ptr_t grad,
			    tern_ptr_t velocity, size_t count,
			    const tern_sgd_options_t *options,
			    tern_stream_t stream);

typedef struct tern_adam_options {
	float lr;
	float beta1, beta2;
	float eps;
	float weight_decay;
	bool decoupled;		/* AdamW: decay the parameters themselves */
	uint64_t step;		/* 1 for the first step, then 2, 3, ... */
} tern_adam_options_t;

/*
 * g = grad (+ weight_decay * param, or with @decoupled param *= 1 - lr *
 * weight_decay); m = beta1 * m + (1 - beta1) * g; v = beta2 * v + (1 -
 * beta2) * g^2; param = param - lr / (1 - beta1^step) * m /
 * (sqrt(v / (1 - beta2^step)) + eps).
 */
tern_status_t tern_adam_step(tern_ptr_t param, tern_ptr_t grad, tern_ptr_t m,
			     tern_ptr_t v, size_t count,
			     const tern_adam_options_t *options,
			     tern_stream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* TERN_COMPUTE_H */
