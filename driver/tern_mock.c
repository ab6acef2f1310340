// SPDX-License-Identifier: GPL-2.0
/*
 * Tern mock devices.
 *
 * Each mock device is a platform device, tern.N, bound by the "tern"
 * platform driver: probe makes its DRM device, remove unplugs it and the
 * driver's devres frees the rest. Its sysfs files are the driver's
 * dev_groups (tern_sysfs.c). Unbinding a device that processes hold
 * open (echo tern.N > /sys/bus/platform/drivers/tern/unbind) is a hot
 * unplug: their ioctls fail with -ENODEV, their jobs end with -ENODEV at
 * their next step, their mappings of buffers show a dummy page; what they
 * hold goes when they close it. Binding it again makes a new DRM device
 * with the same index.
 *
 * One fabric joins all mock devices, built from the mock_topology module
 * parameter; the fabric id of a mock device is its index. The fabric lives
 * as long as the module: devices and the netlink family use it.
 *
 * tern_mock_device_get() hands out the bound devices, held; remove empties
 * a device's slot before it unplugs it, so no new user finds it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>

#include "tern_fabric.h"
#include "tern_compat.h"
#include "tern_drv.h"

static struct platform_device **tern_mock_pdevs;
static unsigned int tern_mock_count;
static bool tern_mock_driver_registered;
static struct tern_fabric *tern_mocks_fabric;

/* The bound devices by index, under tern_mock_lock. */
static struct tern_drm_device **tern_mock_tdevs;
static DEFINE_MUTEX(tern_mock_lock);

static int tern_mock_probe(struct platform_device *pdev)
{
	const struct tern_device_config *config = dev_get_platdata(&pdev->dev);
	struct tern_drm_device *tdev;
	int ret;

	if (!config || pdev->id < 0 || pdev->id >= tern_mock_count)
		return -ENODEV;

	/* Lets other devices import our buffers through PRIME. */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	tdev = devm_drm_dev_alloc(&pdev->dev, &tern_drm_driver,
				  struct tern_drm_device, drm);
	if (IS_ERR(tdev))
		return PTR_ERR(tdev);

	ret = tern_device_init(tdev, pdev->id, config);
	if (ret)
		return ret;

	ret = drm_dev_register(&tdev->drm, 0);
	if (ret)
		return ret;
	tern_debugfs_init(tdev);

	/* What sysfs (tern_sysfs_groups) and remove find. */
	platform_set_drvdata(pdev, tdev);
	mutex_lock(&tern_mock_lock);
	tern_mock_tdevs[pdev->id] = tdev;
	mutex_unlock(&tern_mock_lock);
	return 0;
}

void tern_mock_remove(struct platform_device *pdev)
{
	struct tern_drm_device *tdev = platform_get_drvdata(pdev);

	mutex_lock(&tern_mock_lock);
	tern_mock_tdevs[pdev->id] = NULL;
	mutex_unlock(&tern_mock_lock);
	/*
	 * Files still open see -ENODEV and their mappings a dummy page; the
	 * DRM device, its memory and engines go with the last of them.
	 */
	drm_dev_unplug(&tdev->drm);
}

static struct platform_driver tern_mock_driver = {
	.driver = {
		.name = TERN_DRIVER_NAME,
		/* Devices bind from module init, one after the other. */
		.probe_type = PROBE_FORCE_SYNCHRONOUS,
		.dev_groups = tern_sysfs_groups,
	},
	.probe = tern_mock_probe,
	.remove = tern_mock_platform_remove,
};

static int tern_mock_fabric_init(unsigned int count, const char *topology)
{
	int ret;

	if (!count)
		return 0;

	tern_mocks_fabric = vzalloc(sizeof(*tern_mocks_fabric));
	if (!tern_mocks_fabric)
		return -ENOMEM;

	ret = tern_fabric_init(tern_mocks_fabric, count, topology);
	if (ret) {
		pr_err("mock_topology=%s: not a topology of %u devices (auto, none, ring, torus:RxC, full, custom:A-B,...)\n",
		       topology, count);
		vfree(tern_mocks_fabric);
		tern_mocks_fabric = NULL;
	}
	return ret;
}

int tern_mock_init(unsigned int count, const char *topology,
		   const struct tern_device_config *config)
{
	struct tern_device_config mock_config = *config;
	unsigned int i;
	int ret;

	ret = tern_mock_fabric_init(count, topology);
	if (ret)
		return ret;
	mock_config.fabric = tern_mocks_fabric;

	tern_mock_pdevs = kcalloc(count, sizeof(*tern_mock_pdevs), GFP_KERNEL);
	tern_mock_tdevs = kcalloc(count, sizeof(*tern_mock_tdevs), GFP_KERNEL);
	if (count && (!tern_mock_pdevs || !tern_mock_tdevs)) {
		ret = -ENOMEM;
		goto err_fini;
	}
	tern_mock_count = count;

	tern_sysfs_setup();
	ret = platform_driver_register(&tern_mock_driver);
	if (ret)
		goto err_fini;
	tern_mock_driver_registered = true;

	for (i = 0; i < count; i++) {
		struct platform_device *pdev;

		/* The device keeps its own copy of the configuration. */
		pdev = platform_device_register_data(NULL, TERN_DRIVER_NAME, i,
						     &mock_config,
						     sizeof(mock_config));
		if (IS_ERR(pdev)) {
			ret = PTR_ERR(pdev);
			goto err_fini;
		}
		tern_mock_pdevs[i] = pdev;
		/* A device that did not bind has failed its probe. */
		if (!tern_mock_tdevs[i]) {
			pr_err("mock device %u: did not bind\n", i);
			ret = -ENODEV;
			goto err_fini;
		}
	}
	return 0;

err_fini:
	tern_mock_fini();
	return ret;
}

void tern_mock_fini(void)
{
	unsigned int i;

	for (i = tern_mock_count; i-- > 0;) {
		/* Unbinds it first, if it is bound. */
		if (tern_mock_pdevs[i])
			platform_device_unregister(tern_mock_pdevs[i]);
	}
	if (tern_mock_driver_registered)
		platform_driver_unregister(&tern_mock_driver);
	tern_mock_driver_registered = false;
	tern_mock_count = 0;
	kfree(tern_mock_pdevs);
	tern_mock_pdevs = NULL;
	kfree(tern_mock_tdevs);
	tern_mock_tdevs = NULL;
	vfree(tern_mocks_fabric);
	tern_mocks_fabric = NULL;
}

/* How many mock devices there are, bound or not: their indexes go below. */
unsigned int tern_mock_device_count(void)
{
	return tern_mock_count;
}

/*
 * The bound device @index, with a reference the caller drops with
 * drm_dev_put(); NULL if there is none or it is unbound.
 */
struct tern_drm_device *tern_mock_device_get(unsigned int index)
{
	struct tern_drm_device *tdev = NULL;

	mutex_lock(&tern_mock_lock);
	if (index < tern_mock_count && tern_mock_tdevs[index]) {
		tdev = tern_mock_tdevs[index];
		drm_dev_get(&tdev->drm);
	}
	mutex_unlock(&tern_mock_lock);
	return tdev;
}

struct tern_fabric *tern_mock_fabric(void)
{
	return tern_mocks_fabric;
}
