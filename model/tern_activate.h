/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The functions of the ACTIVATE packet, each one fixed sequence of
 * float32 operations (tern_f32.h), so that tern.ko and the simulator give
 * the same bits. Documentation/compute.rst states each algorithm and its
 * measured accuracy.
 */
#ifndef TERN_ACTIVATE_H
#define TERN_ACTIVATE_H

#include "tern_model_port.h"

/* Whether @function is an enum drm_tern_activation this model knows. */
bool tern_activation_known(u32 function);

/* @function of float32 @x. */
u32 tern_activate(u32 function, u32 x);

#endif /* TERN_ACTIVATE_H */
