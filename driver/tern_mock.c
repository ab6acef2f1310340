// SPDX-License-Identifier: GPL-2.0
/*
 * Tern mock devices.
 *
 * Each mock device is a platform device with a DRM device of its own, made
 * when the module loads and gone when it unloads. The platform device has
 * no driver: its resources live in a devres group released by hand.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include <drm/drm_drv.h>

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
static unsigned int tern_mock_count;

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

	mock->pdev = pdev;
	mock->tdev = tdev;
	return 0;

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

int tern_mock_init(unsigned int count, const struct tern_device_config *config)
{
	int ret;

	tern_mocks = kcalloc(count, sizeof(*tern_mocks), GFP_KERNEL);
	if (!tern_mocks)
		return -ENOMEM;

	while (tern_mock_count < count) {
		ret = tern_mock_create(&tern_mocks[tern_mock_count],
				       tern_mock_count, config);
		if (ret) {
			pr_err("mock device %u: error %d\n", tern_mock_count,
			       ret);
			tern_mock_fini();
			return ret;
		}
		tern_mock_count++;
	}
	return 0;
}

void tern_mock_fini(void)
{
	while (tern_mock_count)
		tern_mock_destroy(&tern_mocks[--tern_mock_count]);
	kfree(tern_mocks);
	tern_mocks = NULL;
}
