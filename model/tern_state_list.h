/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The lists of a Tern device's state (tern_state.h explains them): one
 * line per value, X(name, TYPE, attr, UNIT, metric, text, help), where X
 * is the set's macro. Include this with the macros you need defined; the
 * others expand to nothing, and all are undefined again at the end, so
 * that it can be included once per use.
 */
#ifndef TERN_DEVICE_VALUE
#define TERN_DEVICE_VALUE(name, type, attr, unit, metric, text, help)
#endif
#ifndef TERN_ENGINE_VALUE
#define TERN_ENGINE_VALUE(name, type, attr, unit, metric, text, help)
#endif
#ifndef TERN_LINK_VALUE
#define TERN_LINK_VALUE(name, type, attr, unit, metric, text, help)
#endif
#ifndef TERN_CLIENT_VALUE
#define TERN_CLIENT_VALUE(name, type, attr, unit, metric, text, help)
#endif
#ifndef TERN_HEALTH_REASON
#define TERN_HEALTH_REASON(bit, name, help)
#endif

/* A device: the message of DEVICE_GET, beside its names and engine nests. */
TERN_DEVICE_VALUE(index, U32, DRM_TERN_A_DEV_INDEX, ID, NULL, NULL,
		  "The device's index among Tern devices.")
TERN_DEVICE_VALUE(fabric_id, U32, DRM_TERN_A_DEV_FABRIC_ID, ID, NULL, NULL,
		  "The device's id on the fabric.")
TERN_DEVICE_VALUE(capabilities, U64, DRM_TERN_A_DEV_CAPABILITIES, CAPS,
		  NULL, NULL, "DRM_TERN_CAP_* bits.")
TERN_DEVICE_VALUE(engine_count, U32, DRM_TERN_A_DEV_ENGINE_COUNT, COUNT,
		  NULL, NULL, "Engines of the device.")
TERN_DEVICE_VALUE(port_count, U32, DRM_TERN_A_DEV_PORT_COUNT, COUNT,
		  NULL, NULL, "Fabric ports of the device.")
TERN_DEVICE_VALUE(health, U32, DRM_TERN_A_DEV_HEALTH, HEALTH,
		  "tern_device_health", NULL,
		  "Device health: 0 ok, 1 degraded, 2 failed.")
TERN_DEVICE_VALUE(health_reasons, U32, DRM_TERN_A_DEV_HEALTH_REASONS, REASONS,
		  "tern_device_health_reason", NULL,
		  "1 for each reason the device is not ok (link_down, link_errors, engine_reset, engine_hung, mem_uncorrected).")
TERN_DEVICE_VALUE(memory_used_bytes, U64, DRM_TERN_A_DEV_MEM_USED, BYTES,
		  "tern_memory_used_bytes", "memory/",
		  "Device memory in use by all processes.")
TERN_DEVICE_VALUE(memory_total_bytes, U64, DRM_TERN_A_DEV_MEM_SIZE, BYTES,
		  "tern_memory_total_bytes", "memory/",
		  "Device memory in all.")
TERN_DEVICE_VALUE(memory_host_used_bytes, U64, DRM_TERN_A_DEV_MEM_HOST_USED,
		  BYTES, "tern_memory_host_used_bytes", "memory/host buffers:\t%s\n",
		  "Host memory held by the device's host buffers.")
TERN_DEVICE_VALUE(buffers, U32, DRM_TERN_A_DEV_BUFFER_COUNT, COUNT,
		  "tern_buffers", "memory/buffers:\t%llu\n",
		  "Buffers alive on the device.")
TERN_DEVICE_VALUE(engines_busy, U32, DRM_TERN_A_DEV_ENGINES_BUSY, COUNT,
		  "tern_device_engines_active", NULL,
		  "How many of the device's engines run a job now.")
TERN_DEVICE_VALUE(client_count, U32, DRM_TERN_A_DEV_CLIENT_COUNT, COUNT,
		  "tern_clients", NULL, "Open files (processes) of the device.")
TERN_DEVICE_VALUE(clients_hidden, U32, 0, COUNT, "tern_clients_hidden", NULL,
		  "Open files of the device of other users, which only root or CAP_PERFMON sees.")
TERN_DEVICE_VALUE(jobs_completed, U64, DRM_TERN_A_DEV_JOBS_COMPLETED, COUNT,
		  NULL, "jobs/completed:\t%llu\n", "Jobs that ended without error.")
TERN_DEVICE_VALUE(jobs_failed, U64, DRM_TERN_A_DEV_JOBS_FAILED, COUNT,
		  NULL, "jobs/failed:\t%llu\n", "Jobs that ended with an error.")
TERN_DEVICE_VALUE(job_timeouts, U64, DRM_TERN_A_DEV_JOB_TIMEOUTS, COUNT,
		  "tern_job_timeouts_total", "jobs/timeouts:\t%llu\n",
		  "Jobs failed by the job timeout.")
TERN_DEVICE_VALUE(engine_resets, U64, DRM_TERN_A_DEV_ENGINE_RESETS, COUNT,
		  "tern_engine_resets_total", "jobs/engine resets:\t%llu ",
		  "Engine resets.")
TERN_DEVICE_VALUE(engine_hang_resets, U64, DRM_TERN_A_DEV_ENGINE_HANG_RESETS,
		  COUNT, "tern_engine_hang_resets_total", "jobs/(%llu after a hang)\n",
		  "Engine resets after the engine hung (the engine_reset health reason).")
TERN_DEVICE_VALUE(mem_errors_corrected, U64,
		  DRM_TERN_A_DEV_MEM_ERRORS_CORRECTED, COUNT,
		  "tern_memory_errors_total{kind=\"corrected\"}",
		  "memory/memory errors:\t%llu corrected, ",
		  "Device memory errors by kind.")
TERN_DEVICE_VALUE(mem_errors_uncorrected, U64,
		  DRM_TERN_A_DEV_MEM_ERRORS_UNCORRECTED, COUNT,
		  "tern_memory_errors_total{kind=\"uncorrected\"}",
		  "memory/%llu uncorrected\n", "Device memory errors by kind.")

/* An engine: a DRM_TERN_A_DEV_ENGINE nest of a device message. */
TERN_ENGINE_VALUE(index, U32, DRM_TERN_A_ENGINE_INDEX, ID, NULL, NULL,
		  "The engine's number.")
TERN_ENGINE_VALUE(type, U32, DRM_TERN_A_ENGINE_TYPE, ENGINE_TYPE, NULL, NULL,
		  "What it runs: dma, tensor, vector or scalar (enum drm_tern_engine_type).")
TERN_ENGINE_VALUE(core, U32, DRM_TERN_A_ENGINE_CORE, CORE, NULL, NULL,
		  "The core whose engine it is; DRM_TERN_ENGINE_NO_CORE for a DMA engine.")
TERN_ENGINE_VALUE(busy, U32, DRM_TERN_A_ENGINE_BUSY, BOOL,
		  "tern_engine_active", NULL,
		  "1 while the engine runs a job, else 0.")
TERN_ENGINE_VALUE(hung, U32, DRM_TERN_A_ENGINE_HUNG, BOOL, NULL, NULL,
		  "1 while the engine is hung, awaiting a reset.")
TERN_ENGINE_VALUE(busy_ns, U64, DRM_TERN_A_ENGINE_BUSY_NS, NS,
		  "tern_engine_busy_seconds_total", NULL,
		  "Time the engine had a job.")
TERN_ENGINE_VALUE(jobs_queued, U32, DRM_TERN_A_ENGINE_JOBS_QUEUED, COUNT,
		  "tern_engine_jobs_queued", NULL,
		  "Jobs handed to the engine and not ended.")
TERN_ENGINE_VALUE(jobs_completed, U64, DRM_TERN_A_ENGINE_JOBS_COMPLETED, COUNT,
		  "tern_engine_jobs_total{result=\"completed\"}", NULL,
		  "Jobs the engine ended, by result.")
TERN_ENGINE_VALUE(jobs_failed, U64, DRM_TERN_A_ENGINE_JOBS_FAILED, COUNT,
		  "tern_engine_jobs_total{result=\"failed\"}", NULL,
		  "Jobs the engine ended, by result.")
TERN_ENGINE_VALUE(timeouts, U64, DRM_TERN_A_ENGINE_TIMEOUTS, COUNT, NULL, NULL,
		  "Its jobs failed by the job timeout.")
TERN_ENGINE_VALUE(resets, U64, DRM_TERN_A_ENGINE_RESETS, COUNT, NULL, NULL,
		  "Times it was reset.")
TERN_ENGINE_VALUE(hang_resets, U64, DRM_TERN_A_ENGINE_HANG_RESETS, COUNT,
		  NULL, NULL, "Resets while it was hung; part of resets.")
TERN_ENGINE_VALUE(steps, U64, DRM_TERN_A_ENGINE_STEPS, COUNT, NULL, NULL,
		  "Steps its jobs ran, each bounded by the model's work budget.")
TERN_ENGINE_VALUE(step_max_ns, U64, DRM_TERN_A_ENGINE_STEP_MAX_NS, NS,
		  NULL, NULL, "The longest of those steps.")

/* A fabric link, end A (device, port) to end B: LINK_GET, link events. */
TERN_LINK_VALUE(index, U32, DRM_TERN_A_LINK_INDEX, ID, NULL, NULL,
		"The link's index on the fabric.")
TERN_LINK_VALUE(device_a, U32, DRM_TERN_A_LINK_DEVICE_A, ID, NULL, NULL,
		"Fabric id of end A's device.")
TERN_LINK_VALUE(port_a, U32, DRM_TERN_A_LINK_PORT_A, ID, NULL, NULL,
		"End A's port.")
TERN_LINK_VALUE(device_b, U32, DRM_TERN_A_LINK_DEVICE_B, ID, NULL, NULL,
		"Fabric id of end B's device.")
TERN_LINK_VALUE(port_b, U32, DRM_TERN_A_LINK_PORT_B, ID, NULL, NULL,
		"End B's port.")
TERN_LINK_VALUE(state, U32, DRM_TERN_A_LINK_STATE, PORT_STATE, "tern_link_up",
		NULL, "1 while the fabric link is up; labels name its ends.")
TERN_LINK_VALUE(bytes_a_to_b, U64, DRM_TERN_A_LINK_BYTES_A_TO_B, BYTES,
		"tern_link_bytes_total{direction=\"a_to_b\"}", NULL,
		"Bytes carried by the link, by direction.")
TERN_LINK_VALUE(bytes_b_to_a, U64, DRM_TERN_A_LINK_BYTES_B_TO_A, BYTES,
		"tern_link_bytes_total{direction=\"b_to_a\"}", NULL,
		"Bytes carried by the link, by direction.")
TERN_LINK_VALUE(packets_a_to_b, U64, DRM_TERN_A_LINK_PACKETS_A_TO_B, COUNT,
		NULL, NULL, "Transfers from A to B.")
TERN_LINK_VALUE(packets_b_to_a, U64, DRM_TERN_A_LINK_PACKETS_B_TO_A, COUNT,
		NULL, NULL, "Transfers from B to A.")
TERN_LINK_VALUE(errors, U64, DRM_TERN_A_LINK_ERRORS, COUNT,
		"tern_link_errors_total", NULL, "Errors the link counted.")
TERN_LINK_VALUE(bandwidth, U64, DRM_TERN_A_LINK_BANDWIDTH, BYTES_PER_S,
		NULL, NULL, "Nominal bytes per second each way.")
TERN_LINK_VALUE(latency_ns, U32, DRM_TERN_A_LINK_LATENCY_NS, NS, NULL, NULL,
		"Nominal one-hop latency.")

/* A client, one open file of a device (the command beside): CLIENT_GET. */
TERN_CLIENT_VALUE(device, U32, DRM_TERN_A_CLIENT_DEVICE, ID, NULL, NULL,
		  "The device's index.")
TERN_CLIENT_VALUE(id, U64, DRM_TERN_A_CLIENT_ID, ID, NULL, NULL,
		  "Unique among the clients, never reused.")
TERN_CLIENT_VALUE(pid, U32, DRM_TERN_A_CLIENT_PID, ID, NULL, NULL,
		  "The process that opened it, in the reader's pid namespace (0: not there).")
TERN_CLIENT_VALUE(memory_device_bytes, U64, DRM_TERN_A_CLIENT_MEM_DEVICE,
		  BYTES, "tern_client_memory_bytes{kind=\"device\"}", NULL,
		  "Memory of the buffers a process holds on a device, by kind.")
TERN_CLIENT_VALUE(memory_host_bytes, U64, DRM_TERN_A_CLIENT_MEM_HOST, BYTES,
		  "tern_client_memory_bytes{kind=\"host\"}", NULL,
		  "Memory of the buffers a process holds on a device, by kind.")
TERN_CLIENT_VALUE(buffers, U32, DRM_TERN_A_CLIENT_BUFFERS, COUNT, NULL, NULL,
		  "Buffer handles it holds.")
TERN_CLIENT_VALUE(queues, U32, DRM_TERN_A_CLIENT_QUEUES, COUNT, NULL, NULL,
		  "Queues it has.")
TERN_CLIENT_VALUE(jobs_submitted, U64, DRM_TERN_A_CLIENT_JOBS_SUBMITTED, COUNT,
		  NULL, NULL, "Jobs it submitted.")
TERN_CLIENT_VALUE(jobs_active, U32, DRM_TERN_A_CLIENT_JOBS_ACTIVE, COUNT,
		  NULL, NULL, "Its jobs not yet ended.")
TERN_CLIENT_VALUE(busy_ns, U64, DRM_TERN_A_CLIENT_BUSY_NS, NS, NULL, NULL,
		  "Engine time its jobs used.")

/* Why a device is not ok, X(bit, name, help), in the order they are shown. */
TERN_HEALTH_REASON(DRM_TERN_HEALTH_REASON_LINK_DOWN, "link_down",
		   "One of its links is down.")
TERN_HEALTH_REASON(DRM_TERN_HEALTH_REASON_LINK_ERRORS, "link_errors",
		   "Its links counted errors since the last clear.")
TERN_HEALTH_REASON(DRM_TERN_HEALTH_REASON_ENGINE_RESET, "engine_reset",
		   "An engine was reset while hung since the last clear.")
TERN_HEALTH_REASON(DRM_TERN_HEALTH_REASON_ENGINE_HUNG, "engine_hung",
		   "An engine is hung now.")
TERN_HEALTH_REASON(DRM_TERN_HEALTH_REASON_MEM_UNCORRECTED, "mem_uncorrected",
		   "An uncorrectable memory error since the last clear.")

#undef TERN_DEVICE_VALUE
#undef TERN_ENGINE_VALUE
#undef TERN_LINK_VALUE
#undef TERN_CLIENT_VALUE
#undef TERN_HEALTH_REASON
