// SPDX-License-Identifier: MIT
/*
 * Programs: a core's instructions in program order, each checked by the
 * device model's own rules as it is added, and the waits that order the
 * engines, found as it is added: for every other engine, its latest
 * instruction that touched on-chip memory this one touches, where one of
 * the two writes it. Engines keep a vector clock of what they know has
 * completed, so a wait already implied (directly or through another
 * engine's wait) is not repeated and the search stops where knowledge
 * begins.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compute.h"
#include "submit.h"
#include "tern_model.h"

/* Instructions looked at per engine before waiting for all of them. */
#define TERN_DEPS_SCAN	4096u

static bool tern_grow(void **array, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 64;
	void *bigger;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	bigger = realloc(*array, (size_t)n * size);
	if (!bigger)
		return false;
	*array = bigger;
	*cap = n;
	return true;
}

TERN_API tern_status_t tern_program_create(tern_device_t device, uint32_t core,
					   tern_program_t *program)
{
	struct tern_device *dev = device;
	struct tern_program *p;

	if (!program || !tern_handle_valid(dev, TERN_HANDLE_DEVICE))
		return TERN_ERROR_INVALID_ARGUMENT;
	if (!(dev->info.capabilities & TERN_DEVICE_CAP_COMPUTE)) {
		tern_set_last_error("device %d has no compute engines", dev->index);
		return TERN_ERROR_NOT_SUPPORTED;
	}
	if (core >= dev->info.cores.cores) {
		tern_set_last_error("core %u: device %d has cores 0 to %u", core,
				    dev->index, dev->info.cores.cores - 1);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return TERN_ERROR_OUT_OF_MEMORY;
	p->device = dev;
	p->core = core;
	if (tern_handle_register(p, TERN_HANDLE_PROGRAM)) {
		free(p);
		return TERN_ERROR_OUT_OF_MEMORY;
	}
	*program = p;
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_program_destroy(tern_program_t program)
{
	if (!tern_handle_valid(program, TERN_HANDLE_PROGRAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	tern_handle_unregister(program);
	for (int e = 0; e < TERN_ENGINE_KINDS; e++)
		free(program->order[e]);
	free(program->insns);
	free(program);
	return TERN_SUCCESS;
}

TERN_API tern_status_t tern_program_count(tern_program_t program,
					  uint32_t counts[4])
{
	if (!counts || !tern_handle_valid(program, TERN_HANDLE_PROGRAM))
		return TERN_ERROR_INVALID_ARGUMENT;
	memcpy(counts, program->engine_count, sizeof(program->engine_count));
	return TERN_SUCCESS;
}

/* ---- on-chip regions and the waits between engines ---- */

static bool tern_regions_meet(const struct tern_region *a,
			      const struct tern_region *b)
{
	return a->space == b->space && a->p0 < b->p1 && b->p0 < a->p1 &&
	       a->lo < b->hi && b->lo < a->hi;
}

/* Whether @a and @b touch one byte and one of them writes it. */
static bool tern_insns_conflict(const struct tern_insn *a,
				const struct tern_insn *b)
{
	int na = a->reads + a->writes, nb = b->reads + b->writes;

	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if ((i >= a->reads || j >= b->reads) &&
			    tern_regions_meet(&a->region[i], &b->region[j]))
				return true;
	return false;
}

/* Engine @e now knows what @insn (the @count-th of engine @f) knew. */
static void tern_learn(struct tern_program *p, int e, int f,
		       const struct tern_insn *insn, uint32_t count)
{
	for (int g = 0; g < TERN_ENGINE_KINDS; g++)
		if (p->known[e][g] < insn->seen[g])
			p->known[e][g] = insn->seen[g];
	if (p->known[e][f] < count)
		p->known[e][f] = count;
}

/* Sets @insn's waits, marks the instructions it waits for to signal. */
static void tern_order(struct tern_program *p, struct tern_insn *insn)
{
	int e = insn->engine;

	for (int f = 0; f < TERN_ENGINE_KINDS; f++) {
		uint32_t known = p->known[e][f], i = p->engine_count[f];
		uint32_t stop = i - known > TERN_DEPS_SCAN ?
				i - TERN_DEPS_SCAN : known;
		struct tern_insn *hit = NULL;

		if (f == e || i == known)
			continue;
		for (; i > stop; i--) {
			struct tern_insn *other = &p->insns[p->order[f][i - 1]];

			if (tern_insns_conflict(insn, other)) {
				hit = other;
				break;
			}
		}
		if (!hit && stop > known) {
			/* searched far enough: wait for all of it */
			i = p->engine_count[f];
			hit = &p->insns[p->order[f][i - 1]];
		}
		if (!hit)
			continue;
		hit->signal = true;
		insn->wait[f] = i;
		tern_learn(p, e, f, hit, i);
	}
	memcpy(insn->seen, p->known[e], sizeof(insn->seen));
	insn->seen[e] = p->engine_count[e] + 1;
}

static void tern_region_of(struct tern_region *r, const tern_tile_t *t,
			   size_t esize)
{
	r->space = (uint8_t)t->space;
	r->p0 = (uint16_t)t->partition;
	r->p1 = (uint16_t)(t->partition + t->partitions);
	r->lo = t->offset;
	r->hi = (uint32_t)(t->offset + (uint64_t)t->elements * esize);
}

/*
 * How much work @insn is: a matmul's multiply-adds (K x M x N), the
 * bytes of its largest region for the rest.
 */
static uint64_t tern_insn_work(const struct tern_insn *insn)
{
	const struct drm_tern_packet_header *h = (const void *)insn->packet;
	uint64_t most = 1;

	if (h->opcode == DRM_TERN_OP_MATMUL) {
		const struct drm_tern_packet_matmul *m = (const void *)h;

		return (uint64_t)m->stationary.partitions *
		       m->stationary.elements * m->result.elements;
	}
	for (int i = 0; i < insn->reads + insn->writes; i++) {
		const struct tern_region *r = &insn->region[i];
		uint64_t n = (uint64_t)(r->p1 - r->p0) * (r->hi - r->lo);

		most = n > most ? n : most;
	}
	return most;
}

/* ---- adding an instruction ---- */

/* An instruction being added: filled by the caller, then tern_add(). */
struct tern_draft {
	struct tern_insn insn;
	struct tern_packet_builder b;
	const char *what;
};

static void tern_draft_init(struct tern_draft *d, tern_engine_t engine,
			    const char *what)
{
	memset(&d->insn, 0, sizeof(d->insn));
	d->insn.engine = (uint8_t)engine;
	tern_packets_init(&d->b, d->insn.packet, sizeof(d->insn.packet));
	d->what = what;
}

static void tern_draft_read(struct tern_draft *d, const tern_tile_t *t)
{
	struct tern_insn *i = &d->insn;

	tern_region_of(&i->region[i->reads++], t, tern_dtype_bytes(t->dtype));
}

static void tern_draft_write(struct tern_draft *d, const tern_tile_t *t)
{
	struct tern_insn *i = &d->insn;

	tern_region_of(&i->region[i->reads + i->writes++], t,
		       tern_dtype_bytes(t->dtype));
}

/* A float32 column of @in's partitions at @offset, read or written. */
static void tern_draft_column(struct tern_draft *d, const tern_tile_t *in,
			      uint32_t offset, bool write)
{
	tern_tile_t col = {
		.space = TERN_SBUF, .dtype = TERN_FLOAT32,
		.partition = in->partition, .partitions = in->partitions,
		.offset = offset, .elements = 1,
	};

	if (write)
		tern_draft_write(d, &col);
	else
		tern_draft_read(d, &col);
}

/* Checks the draft's packet as the device will. */
static tern_status_t tern_check(struct tern_program *p, struct tern_draft *d)
{
	struct tern_model_target target = {
		.type = d->insn.engine, .core = p->core,
		.shape = &p->device->info.cores,
	};

	if (d->b.overflow ||
	    tern_model_validate_on(d->insn.packet, (uint32_t)d->b.size, &target,
				   NULL)) {
		tern_set_last_error("%s: the tiles break a rule of the instruction (Documentation/compute.rst): shapes, types, spaces, partitions, or bytes past the core's %u of SBUF and %u of PSUM a partition",
				    d->what, target.shape->sbuf_partition_bytes,
				    target.shape->psum_partition_bytes);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

/* Appends a checked draft and finds its waits. */
static tern_status_t tern_append(struct tern_program *p, struct tern_draft *d)
{
	struct tern_insn *insn;
	int e = d->insn.engine;

	if (p->count == UINT32_MAX - 1 ||
	    !tern_grow((void **)&p->insns, &p->cap, p->count + 1,
		       sizeof(*p->insns)) ||
	    !tern_grow((void **)&p->order[e], &p->order_cap[e],
		       p->engine_count[e] + 1, sizeof(uint32_t)))
		return TERN_ERROR_OUT_OF_MEMORY;
	d->insn.bytes = (uint16_t)d->b.size;
	d->insn.work = tern_insn_work(&d->insn);
	insn = &p->insns[p->count];
	*insn = d->insn;
	tern_order(p, insn);
	p->order[e][p->engine_count[e]++] = p->count++;
	return TERN_SUCCESS;
}

static tern_status_t tern_add(struct tern_program *p, struct tern_draft *d)
{
	tern_status_t status = tern_check(p, d);

	return status ? status : tern_append(p, d);
}

/* ---- the instructions ---- */

static bool tern_tile_args(const tern_tile_t *t)
{
	return t && (unsigned int)t->dtype < TERN_DTYPE_COUNT &&
	       t->partition < 65536 && t->partitions &&
	       t->partitions < 65536 && t->elements && (t->space == TERN_SBUF || t->space == TERN_PSUM);
}

static struct drm_tern_tile tern_drm_tile(const tern_tile_t *t)
{
	struct drm_tern_tile d = {
		.offset = t->offset, .partition = (uint16_t)t->partition,
		.partitions = (uint16_t)t->partitions, .elements = t->elements,
		.space = (uint8_t)t->space, .dtype = (uint8_t)t->dtype,
	};

	return d;
}

static bool tern_program_args(struct tern_program *p)
{
	return tern_handle_valid(p, TERN_HANDLE_PROGRAM) &&
	       tern_handle_valid(p->device, TERN_HANDLE_DEVICE);
}

/*
 * The device address of @v's element [0][0], once @v's grid of @tile's
 * shape lies inside its buffer, a buffer of @p's device.
 */
static tern_status_t tern_view_va(struct tern_program *p, const tern_view_t *v,
				  const tern_tile_t *tile, uint64_t *va,
				  const char *what)
{
	struct tern_buffer *buf = v->ptr.buffer;
	size_t esize = tern_dtype_bytes(v->dtype);
	unsigned __int128 last;

	if (!tern_handle_valid(buf, TERN_HANDLE_BUFFER) || !esize ||
	    v->element_stride > UINT32_MAX || v->partition_stride > INT64_MAX) {
		tern_set_last_error("%s: the view needs a live buffer, a known type, an element stride below 4 GiB and a partition stride below 2^63 bytes",
				    what);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	last = (unsigned __int128)v->ptr.offset +
	       (unsigned __int128)(tile->partitions - 1) * v->partition_stride +
	       (unsigned __int128)(tile->elements - 1) * v->element_stride +
	       esize;
	if (last > buf->bytes) {
		tern_set_last_error("%s: %u x %u elements of %s from byte %zu, partition stride %zu, element stride %zu, end past the buffer's %zu bytes",
				    what, tile->partitions, tile->elements,
				    tern_dtype_name(v->dtype), v->ptr.offset,
				    v->partition_stride, v->element_stride,
				    buf->bytes);
		return TERN_ERROR_OUT_OF_RANGE;
	}
	if (tern_buffer_va_on(buf, p->device, v->ptr.offset, va)) {
		tern_set_last_error("%s: the buffer is not one of the program's device",
				    what);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	if (*va % esize) {
		tern_set_last_error("%s: byte %zu of the buffer is no place for a %s: its address must be a multiple of %zu",
				    what, v->ptr.offset,
				    tern_dtype_name(v->dtype), esize);
		return TERN_ERROR_INVALID_ARGUMENT;
	}
	return TERN_SUCCESS;
}

static tern_status_t tern_program_dma(struct tern_program *p,
				      const tern_view_t *v,
				      const tern_tile_t *tile, bool store)
{
	const char *what = store ? "tern_program_store" : "tern_program_load";
	struct drm_tern_packet_dma_tile *packet;
	struct drm_tern_tile t;
	struct tern_draft d;
	tern_status_t status;
	uint64_t va;

	if (!tern_program_args(p) || !v || !tern_tile_args(tile))
		return TERN_ERROR_INVALID_ARGUMENT;
	t = tern_drm_tile(tile);
	tern_draft_init(&d, TERN_ENGINE_DMA, what);
	/* the tile first, the view's address once the tile is right */
	tern_packet_dma_tile(&d.b, 0, v->partition_stride,
			     (uint32_t)v->element_stride, (uint8_t)v->dtype,
			     (uint16_t)p->core, &t, store);
	status = tern_check(p, &d);
	if (status)
		return status;
	packet = (struct drm_tern_packet_dma_tile *)d.insn.packet;
	status = tern_view_va(p, v, tile, &va, what);
	if (status)
		return status;
	packet->va = va;
	d.insn.buffer = v->ptr.buffer;
	if (store)
		tern_draft_read(&d, tile);
	else
		tern_draft_write(&d, tile);
	return tern_append(p, &d);
}

TERN_API tern_status_t tern_program_load(tern_program_t program,
					 const tern_tile_t *dst,
					 const tern_view_t *src)
{
	return tern_program_dma(program, src, dst, false);
}

TERN_API tern_status_t tern_program_store(tern_program_t program,
					  const tern_view_t *dst,
					  const tern_tile_t *src)
{
	return tern_program_dma(program, dst, src, true);
}

TERN_API tern_status_t tern_program_matmul(tern_program_t program,
					   const tern_tile_t *result,
					   const tern_tile_t *stationary,
					   const tern_tile_t *moving,
					   bool accumulate)
{
	struct drm_tern_tile s, m, r;
	struct tern_draft d;

	if (!tern_program_args(program) || !tern_tile_args(result) ||
	    !tern_tile_args(stationary) || !tern_tile_args(moving))
		return TERN_ERROR_INVALID_ARGUMENT;
	s = tern_drm_tile(stationary);
	m = tern_drm_tile(moving);
	r = tern_drm_tile(result);
	tern_draft_init(&d, TERN_ENGINE_TENSOR, "tern_program_matmul");
	tern_packet_matmul(&d.b, &s, &m, &r, accumulate);
	tern_draft_read(&d, stationary);
	tern_draft_read(&d, moving);
	if (accumulate)
		tern_draft_read(&d, result);
	tern_draft_write(&d, result);
	return tern_add(program, &d);
}

static bool tern_vector_or_scalar(tern_engine_t engine)
{
	return engine == TERN_ENGINE_VECTOR || engine == TERN_ENGINE_SCALAR;
}

TERN_API tern_status_t tern_program_copy(tern_program_t program,
					 tern_engine_t engine,
					 const tern_tile_t *out,
					 const tern_tile_t *in, bool transpose)
{
	struct drm_tern_tile i, o;
	struct tern_draft d;

	if (!tern_program_args(program) || !tern_tile_args(out) ||
	    !tern_tile_args(in) || !tern_vector_or_scalar(engine))
		return TERN_ERROR_INVALID_ARGUMENT;
	i = tern_drm_tile(in);
	o = tern_drm_tile(out);
	tern_draft_init(&d, engine, "tern_program_copy");
	tern_packet_tensor_copy(&d.b, &i, &o,
				transpose ? DRM_TERN_TENSOR_COPY_TRANSPOSE : 0);
	tern_draft_read(&d, in);
	tern_draft_write(&d, out);
	return tern_add(program, &d);
}

TERN_API tern_status_t tern_program_tensor_tensor(tern_program_t program,
						  const tern_tile_t *out,
						  const tern_tile_t *in0,
						  tern_alu_op_t op,
						  const tern_tile_t *in1)
{
	struct drm_tern_tile a, b, o;
	struct tern_draft d;

	if (!tern_program_args(program) || !tern_tile_args(out) ||
	    !tern_tile_args(in0) || !tern_tile_args(in1))
		return TERN_ERROR_INVALID_ARGUMENT;
	a = tern_drm_tile(in0);
	b = tern_drm_tile(in1);
	o = tern_drm_tile(out);
	tern_draft_init(&d, TERN_ENGINE_VECTOR, "tern_program_tensor_tensor");
	tern_packet_tensor_tensor(&d.b, &a, &b, &o, (uint32_t)op);
	tern_draft_read(&d, in0);
	tern_draft_read(&d, in1);
	tern_draft_write(&d, out);
	return tern_add(program, &d);
}

/* The packet's word for @o: its float32 bits, or its column's offset. */
static uint32_t tern_operand_word(tern_operand_t o)
{
	uint32_t bits;

	if (o.column)
		return o.offset;
	memcpy(&bits, &o.value, sizeof(bits));
	return bits;
}

TERN_API tern_status_t tern_program_tensor_scalar(tern_program_t program,
						  tern_engine_t engine,
						  const tern_tile_t *out,
						  const tern_tile_t *in,
						  tern_alu_op_t op0,
						  tern_operand_t s0,
						  tern_alu_op_t op1,
						  tern_operand_t s1)
{
	uint32_t flags = (s0.column ? DRM_TERN_SCALAR_OPERAND0_COLUMN : 0) |
			 (s1.column ? DRM_TERN_SCALAR_OPERAND1_COLUMN : 0);
	struct drm_tern_tile i, o;
	struct tern_draft d;

	if (!tern_program_args(program) || !tern_tile_args(out) ||
	    !tern_tile_args(in) || !tern_vector_or_scalar(engine) ||
	    (unsigned int)op0 > 0xffff || (unsigned int)op1 > 0xffff)
		return TERN_ERROR_INVALID_ARGUMENT;
	if (op1 == TERN_ALU_NONE)
		s1 = tern_value(0.0f);
	i = tern_drm_tile(in);
	o = tern_drm_tile(out);
	tern_draft_init(&d, engine, "tern_program_tensor_scalar");
	tern_packet_tensor_scalar(&d.b, &i, &o, flags, (uint16_t)op0,
				  tern_operand_word(s0), (uint16_t)op1,
				  tern_operand_word(s1));
	tern_draft_read(&d, in);
	if (s0.column)
		tern_draft_column(&d, in, s0.offset, false);
	if (s1.column)
		tern_draft_column(&d, in, s1.offset, false);
	tern_draft_write(&d, out);
	return tern_add(program, &d);
}

TERN_API tern_status_t tern_program_reduce(tern_program_t program,
					   const tern_tile_t *out,
					   const tern_tile_t *in,
					   tern_alu_op_t op)
{
	struct drm_tern_tile i, o;
	struct tern_draft d;

	if (!tern_program_args(program) || !tern_tile_args(out) ||
	    !tern_tile_args(in))
		return TERN_ERROR_INVALID_ARGUMENT;
	i = tern_drm_tile(in);
	o = tern_drm_tile(out);
	tern_draft_init(&d, TERN_ENGINE_VECTOR, "tern_program_reduce");
	tern_packet_tensor_reduce(&d.b, &i, &o, (uint32_t)op);
	tern_draft_read(&d, in);
	tern_draft_write(&d, out);
	return tern_add(program, &d);
}

TERN_API tern_status_t tern_program_activate(tern_program_t program,
					     const tern_tile_t *out,
					     const tern_tile_t *in,
					     tern_activation_t function,
					     tern_operand_t scale,
					     tern_operand_t bias,
					     const uint32_t *sum)
{
	uint32_t flags = (scale.column ? DRM_TERN_ACTIVATE_SCALE_COLUMN : 0) |
			 (bias.column ? DRM_TERN_ACTIVATE_BIAS_COLUMN : 0) |
			 (sum ? DRM_TERN_ACTIVATE_SUM : 0);
	struct drm_tern_tile i, o;
	struct tern_draft d;

	if (!tern_program_args(program) || !tern_tile_args(out) ||
	    !tern_tile_args(in) || (unsigned int)function > 0xffff)
		return TERN_ERROR_INVALID_ARGUMENT;
	i = tern_drm_tile(in);
	o = tern_drm_tile(out);
	tern_draft_init(&d, TERN_ENGINE_SCALAR, "tern_program_activate");
	tern_packet_activate(&d.b, &i, &o, flags, (uint16_t)function,
			     tern_operand_word(scale), tern_operand_word(bias),
			     sum ? *sum : 0);
	tern_draft_read(&d, in);
	if (scale.column)
		tern_draft_column(&d, in, scale.offset, false);
	if (bias.column)
		tern_draft_column(&d, in, bias.offset, false);
	tern_draft_write(&d, out);
	if (sum)
		tern_draft_column(&d, in, *sum, true);
	return tern_add(program, &d);
}
