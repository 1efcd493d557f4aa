"""tf.contrib.image's geometric transforms (image augmentation in input_fns), on TensorFlow 2's
`ImageProjectiveTransformV2` kernel: the kernel tf.contrib.image's op became, with its CONSTANT fill of zeros.

`transform(images, transforms)` maps each *output* pixel (x, y) to the input point ((a0 x + a1 y + a2) / k,
(b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1, for a transform [a0, a1, a2, b0, b1, b2, c0, c1] (one, or one per
image); points outside the input are zeros. `rotate` turns images by angles (radians, counterclockwise) about their
centre, `translate` moves them by [dx, dy]; images are HW, HWC or NHWC, as TensorFlow 1.x took them.
"""

from __future__ import annotations

import tensorflow as tf

_IMAGE_DTYPES = (tf.uint8, tf.int32, tf.int64, tf.float16, tf.float32, tf.float64)


def _as_batch(images):
    """(NHWC images, a function giving a result the input's rank back)."""
    images = tf.convert_to_tensor(images, name="images")
    if images.dtype.base_dtype not in _IMAGE_DTYPES:
        raise TypeError(f"Invalid dtype {images.dtype}.")
    rank = images.shape.rank
    if rank == 2:
        return images[None, :, :, None], lambda output: output[0, :, :, 0]
    if rank == 3:
        return images[None], lambda output: output[0]
    if rank == 4:
        return images, lambda output: output
    raise TypeError("Images should have rank between 2 and 4.")


def _batched(values, single_rank: int, what: str):
    """`values` of one image (rank `single_rank`) as a batch of one; a batch as it is."""
    if values.shape.rank == single_rank:
        return values[None]
    if values.shape.rank != single_rank + 1:
        raise TypeError(f"{what} should have rank {single_rank} or {single_rank + 1}.")
    return values


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """The images with projective `transforms` (a vector of 8 or [N, 8]) applied; outside points are zeros."""
    with tf.name_scope(name or "transform"):
        batch, restore = _as_batch(images)
        transforms = _batched(tf.convert_to_tensor(transforms, name="transforms", dtype=tf.float32), 1, "Transforms")
        if output_shape is None:
            output_shape = tf.shape(batch)[1:3]
        output = tf.raw_ops.ImageProjectiveTransformV2(
            images=batch, transforms=transforms, output_shape=tf.convert_to_tensor(output_shape, tf.int32),
            interpolation=interpolation.upper(), fill_mode="CONSTANT")
        return restore(output)


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """[N, 8] transforms rotating images of that size by `angles` (a scalar or one per image) about their centre."""
    with tf.name_scope(name or "angles_to_projective_transforms"):
        angles = _batched(tf.convert_to_tensor(angles, name="angles", dtype=tf.float32), 0, "Angles")
        cos, sin = tf.math.cos(angles), tf.math.sin(angles)
        height, width = tf.cast(image_height, tf.float32), tf.cast(image_width, tf.float32)
        x_offset = ((width - 1) - (cos * (width - 1) - sin * (height - 1))) / 2.0
        y_offset = ((height - 1) - (sin * (width - 1) + cos * (height - 1))) / 2.0
        zeros = tf.zeros_like(angles)
        return tf.stack([cos, -sin, x_offset, sin, cos, y_offset, zeros, zeros], axis=1)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """The images turned counterclockwise by `angles` (radians: a scalar, or one per image) about their centre."""
    with tf.name_scope(name or "rotate"):
        batch, restore = _as_batch(images)
        shape = tf.shape(batch)
        transforms = angles_to_projective_transforms(angles, shape[1], shape[2])
        return restore(transform(batch, transforms, interpolation=interpolation))


def translations_to_projective_transforms(translations, name=None):
    """[N, 8] transforms moving images by `translations` ([dx, dy], or one per image)."""
    with tf.name_scope(name or "translations_to_projective_transforms"):
        translations = _batched(tf.convert_to_tensor(translations, name="translations", dtype=tf.float32), 1,
                                "Translations")
        ones, zeros = tf.ones_like(translations[:, 0]), tf.zeros_like(translations[:, 0])
        return tf.stack([ones, zeros, -translations[:, 0], zeros, ones, -translations[:, 1], zeros, zeros], axis=1)


def translate(images, translations, interpolation="NEAREST", name=None):
    """The images moved by `translations` ([dx, dy], or one per image); uncovered pixels are zeros."""
    with tf.name_scope(name or "translate"):
        return transform(images, translations_to_projective_transforms(translations), interpolation=interpolation)


def flat_transforms_to_matrices(transforms):
    """[N, 8] (or 8) transforms as [N, 3, 3] matrices (the ninth entry 1)."""
    transforms = tf.reshape(tf.convert_to_tensor(transforms, tf.float32), [-1, 8])
    return tf.reshape(tf.concat([transforms, tf.ones_like(transforms[:, :1])], axis=1), [-1, 3, 3])


def matrices_to_flat_transforms(transform_matrices):
    """[N, 3, 3] matrices as [N, 8] transforms (each divided by its ninth entry)."""
    flat = tf.reshape(tf.convert_to_tensor(transform_matrices, tf.float32), [-1, 9])
    return (flat / flat[:, 8:9])[:, :8]


def compose_transforms(*transforms):
    """One transform applying each of `transforms` in order (their matrices multiplied)."""
    if not transforms:
        raise ValueError("transforms cannot be empty")
    composed = flat_transforms_to_matrices(transforms[0])
    for more in transforms[1:]:
        composed = tf.matmul(composed, flat_transforms_to_matrices(more))
    return matrices_to_flat_transforms(composed)
