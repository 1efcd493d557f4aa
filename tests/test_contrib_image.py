"""compat.contrib_image: tf.contrib.image's rotate, translate and transform (input_fn augmentation) as their
documented behaviour (TensorFlow 2.15 has no tf.contrib): a quarter turn of a square image is numpy's rot90, a whole
pixel translation a shift with zeros coming in, a half pixel one with BILINEAR the mean of neighbours; HW, HWC and
NHWC images keep their rank and dtype; one angle per image of a batch; a composed transform is the two in order;
in an input_fn's dataset (a graph) as eagerly."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from estimator_migrate.compat import contrib_image

IMAGE = np.arange(25, dtype=np.float32).reshape(5, 5)


def test_a_quarter_turn_is_rot90_and_a_translation_shifts_in_zeros():
    np.testing.assert_array_equal(contrib_image.rotate(IMAGE, np.pi / 2).numpy(), np.rot90(IMAGE))
    shifted = np.zeros_like(IMAGE)
    shifted[1:, 2:] = IMAGE[:-1, :-2]  # dx = 2 (columns), dy = 1 (rows)
    np.testing.assert_array_equal(contrib_image.translate(IMAGE, [2.0, 1.0]).numpy(), shifted)
    half = contrib_image.translate(IMAGE, [0.5, 0.0], interpolation="BILINEAR").numpy()
    np.testing.assert_allclose(half[:, 1:], (IMAGE[:, :-1] + IMAGE[:, 1:]) / 2)


def test_ranks_dtypes_and_one_angle_per_image():
    hwc = np.stack([IMAGE, IMAGE + 100], axis=-1).astype(np.uint8)
    rotated = contrib_image.rotate(hwc, np.pi)
    assert rotated.dtype == tf.uint8 and rotated.shape == (5, 5, 2)
    np.testing.assert_array_equal(rotated.numpy(), hwc[::-1, ::-1])
    batch = np.stack([IMAGE, IMAGE])[..., None]
    turned = contrib_image.rotate(batch, [0.0, np.pi / 2]).numpy()
    np.testing.assert_array_equal(turned[0, :, :, 0], IMAGE)
    np.testing.assert_array_equal(turned[1, :, :, 0], np.rot90(IMAGE))
    with pytest.raises(TypeError, match="rank between 2 and 4"):
        contrib_image.rotate(IMAGE[0], 1.0)


def test_composed_transforms_apply_in_order():
    right = contrib_image.translations_to_projective_transforms([1.0, 0.0])
    down = contrib_image.translations_to_projective_transforms([0.0, 2.0])
    composed = contrib_image.compose_transforms(right, down)
    np.testing.assert_array_equal(contrib_image.transform(IMAGE, composed).numpy(),
                                  contrib_image.translate(IMAGE, [1.0, 2.0]).numpy())


def test_in_a_datasets_map_function():
    dataset = tf.data.Dataset.from_tensor_slices(np.stack([IMAGE, IMAGE + 1])).map(
        lambda image: contrib_image.rotate(image, np.pi / 2))
    np.testing.assert_array_equal(list(dataset.as_numpy_iterator())[1], np.rot90(IMAGE + 1))
