// SPDX-License-Identifier: GPL-2.0
/*
 * Tern mock devices.
 *
 * Each mock device is a platform device with a DRM device of its own, made
 * when the module loads and gone when it unloads. The platform device has
 * no driver: its resources live in a devres group released by hand.
 *
 * One fabric joins all mock devices, built from the mock_topology module
 * parameter; the fabric id of a mock device is its index. The fabric lives
 * as long as the module: devices and the netlink family use it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <drm/drm_drv.h>

#include "model/tern_fabric.h"
#include "tern_drv.h"

/**
 * struct tern_mock - one mock device
 * @pdev: the platform device
 * @tdev: its Tern device
 */
struct tern_mock {
	struct platform_device *pdev;
	struct tern_device *tdev;
};

static struct tern_mock *tern_mocks;
static unsigned int tern_mocks_made;
static struct tern_fabric *tern_mocks_fabric;

static int tern_mock_create(struct tern_mock *mock, unsigned int index,
			    const struct tern_device_config *config)
{
	struct platform_device *pdev;
	struct tern_device *tdev;
	int ret;

	pdev = platform_device_register_simple(TERN_DRIVER_NAME, index,
					       NULL, 0);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);

	if (!devres_open_group(&pdev->dev, NULL, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_unregister_pdev;
	}

	/* Lets other devices import our buffers through PRIME. */
	ret = dma_coerce_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_release_group;

	tdev = devm_drm_dev_alloc(&pdev->dev, &tern_drm_driver,
				  struct tern_device, drm);
	if (IS_ERR(tdev)) {
		ret = PTR_ERR(tdev);
		goto err_release_group;
	}

	ret = tern_device_init(tdev, index, config);
	if (ret)
		goto err_release_group;

	ret = drm_dev_register(&tdev->drm, 0);
	if (ret)
		goto err_release_group;
	tern_debugfs_init(tdev);

	/* Removed by the group's release, before the DRM device goes. */
	ret = tern_sysfs_init(tdev);
	if (ret)
		goto err_unplug;

	mock->pdev = pdev;
	mock->tdev = tdev;
	return 0;

err_unplug:
	drm_dev_unplug(&tdev->drm);
err_release_group:
	devres_release_group(&pdev->dev, NULL);
err_unregister_pdev:
	platform_device_unregister(pdev);
	return ret;
}

static void tern_mock_destroy(struct tern_mock *mock)
{
	drm_dev_unplug(&mock->tdev->drm);
	devres_release_group(&mock->pdev->dev, NULL);
	platform_device_unregister(mock->pdev);
}

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
	int ret;

	ret = tern_mock_fabric_init(count, topology);
	if (ret)
		return ret;
	mock_config.fabric = tern_mocks_fabric;

	tern_mocks = kcalloc(count, sizeof(*tern_mocks), GFP_KERNEL);
	if (!tern_mocks) {
		tern_mock_fini();
		return -ENOMEM;
	}

	while (tern_mocks_made < count) {
		ret = tern_mock_create(&tern_mocks[tern_mocks_made],
				       tern_mocks_made, &mock_config);
		if (ret) {
			pr_err("mock device %u: error %d\n", tern_mocks_made,
			       ret);
			tern_mock_fini();
			return ret;
		}
		tern_mocks_made++;
	}
	return 0;
}

void tern_mock_fini(void)
{
	while (tern_mocks_made)
		tern_mock_destroy(&tern_mocks[--tern_mocks_made]);
	kfree(tern_mocks);
	tern_mocks = NULL;
	vfree(tern_mocks_fabric);
	tern_mocks_fabric = NULL;
}

struct tern_device *tern_mock_device(unsigned int index)
{
	return index < tern_mocks_made ? tern_mocks[index].tdev : NULL;
}

struct tern_fabric *tern_mock_fabric(void)
{
	return tern_mocks_fabric;
}
