// SPDX-License-Identifier: GPL-2.0
/*
 * Tern fault injection on the device and its engines, in debugfs, next to
 * fabric_link (tern_debugfs.c); root only.
 *
 * mem_error:
 *  - write "correctable [OFFSET]" or "uncorrectable [OFFSET]": device
 *    memory reports an error at OFFSET (default 0, below the memory's
 *    size; decimal or 0x-hex). It is counted, announced with
 *    DRM_TERN_CMD_MEM_ERROR_NTF, and an uncorrectable one fails the device's
 *    health. Anything else: -EINVAL.
 *
 * engine_hang:
 *  - write an engine index: that engine stops making progress; the job
 *    timeout finds the job it holds, fails it with -ETIMEDOUT and resets
 *    the engine (tern_job.c). A bad index: -EINVAL.
 *  - read: the hung engines, one index per line.
 *
 * run_job_delay_ms:
 *  - a number of milliseconds (default 0): after handing each job to its
 *    engine, the scheduler's run_job sleeps that long before giving the
 *    scheduler the job's fence. With a delay above the job timeout, the
 *    timeout fires while the scheduler is still using the job: the window
 *    a driver's timeout handler must survive, made wide enough to test.
 *
 * timeout_delay_ms:
 *  - a number of milliseconds (default 0): the job timeout sleeps that
 *    long after resetting the engine, before it returns. The reset ends
 *    the timed-out job meanwhile, as it may on a loaded machine, while the
 *    scheduler holds the job off its pending list.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "tern_accel.h"
#include "tern_drv.h"
#include "tern_engine.h"
#include "tern_health.h"
#include "tern_netlink.h"

/*
 * Device memory reports an error at @offset: counted, announced, and the
 * device's health recomputed. -EINVAL if @offset is outside the memory.
 */
int tern_mem_error_inject(struct tern_drm_device *tdev, bool uncorrectable,
			  u64 offset)
{
	u32 kind = uncorrectable ? DRM_TERN_MEM_ERROR_UNCORRECTED :
				   DRM_TERN_MEM_ERROR_CORRECTED;

	if (offset >= tdev->mem_size)
		return -EINVAL;

	atomic64_inc(uncorrectable ? &tdev->mem_errors_uncorrected :
		     &tdev->mem_errors_corrected);
	drm_notice(&tdev->drm, "%s memory error at 0x%llx (injected)\n",
		   uncorrectable ? "uncorrectable" : "correctable", offset);
	tern_netlink_mem_error(tdev, kind, offset);
	tern_health_update(tdev);
	return 0;
}

/* Parses "correctable|uncorrectable [OFFSET]" and injects it. */
static int tern_mem_error_apply(struct tern_drm_device *tdev, char *command)
{
	char *kind, *rest = strim(command);
	bool uncorrectable;
	u64 offset = 0;

	kind = strsep(&rest, " \t");
	if (!strcmp(kind, "correctable"))
		uncorrectable = false;
	else if (!strcmp(kind, "uncorrectable"))
		uncorrectable = true;
	else
		return -EINVAL;

	if (rest) {
		rest = skip_spaces(rest);
		if (kstrtou64(rest, 0, &offset))
			return -EINVAL;
	}
	return tern_mem_error_inject(tdev, uncorrectable, offset);
}

static ssize_t tern_mem_error_write(struct file *file,
				    const char __user *ubuf, size_t len,
				    loff_t *pos)
{
	struct tern_drm_device *tdev = file->private_data;
	char buf[64];
	int ret, idx;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;
	ret = tern_mem_error_apply(tdev, buf);
	drm_dev_exit(idx);
	return ret ? ret : len;
}

static const struct file_operations tern_mem_error_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tern_mem_error_write,
	.llseek = noop_llseek,
};

static int tern_engine_hang_show(struct seq_file *m, void *unused)
{
	struct tern_drm_device *tdev = m->private;
	unsigned int i;

	for (i = 0; i < tdev->engine_count; i++) {
		if (READ_ONCE(tdev->engines[i].hung))
			seq_printf(m, "%u\n", i);
	}
	return 0;
}

static int tern_engine_hang_open(struct inode *inode, struct file *file)
{
	return single_open(file, tern_engine_hang_show, inode->i_private);
}

static ssize_t tern_engine_hang_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *pos)
{
	struct tern_drm_device *tdev = ((struct seq_file *)file->private_data)->private;
	unsigned int index;
	int ret, idx;

	ret = kstrtouint_from_user(ubuf, len, 0, &index);
	if (ret)
		return -EINVAL;
	if (index >= tdev->engine_count)
		return -EINVAL;

	if (!drm_dev_enter(&tdev->drm, &idx))
		return -ENODEV;
	tern_engine_hang(&tdev->engines[index]);
	drm_dev_exit(idx);
	return len;
}

static const struct file_operations tern_engine_hang_fops = {
	.owner = THIS_MODULE,
	.open = tern_engine_hang_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.write = tern_engine_hang_write,
	.release = single_release,
};

void tern_fault_debugfs_init(struct tern_drm_device *tdev, struct dentry *root)
{
	debugfs_create_file("mem_error", 0200, root, tdev,
			    &tern_mem_error_fops);
	debugfs_create_file("engine_hang", 0600, root, tdev,
			    &tern_engine_hang_fops);
	debugfs_create_u32("run_job_delay_ms", 0600, root,
			   &tdev->run_job_delay_ms);
	debugfs_create_u32("timeout_delay_ms", 0600, root,
			   &tdev->timeout_delay_ms);
}
