"""The orientation model: EXIF values as PIL transposes, and points and images from the upright
page to stored pixels and back (../shared/DOMAIN.md, section 1)."""

from __future__ import annotations

from PIL import Image

# EXIF value -> PIL transpose op that a viewer applies to the stored pixels to
# display them (PIL's ROTATE_* turn counter-clockwise, so "rotate 90 clockwise"
# for tag 6 is ROTATE_270).  Matches PIL.ImageOps.exif_transpose and ../shared/DOMAIN.md.
DISPLAY_OP = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# Inverse of each display op: every element of D4 here is its own inverse
# except the quarter turns 6 and 8, which invert each other.
INVERSE_OF = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}


def store_for_upright(upright: Image.Image, u: int) -> Image.Image:
    """Pixels to store so that EXIF u's display transform shows `upright`."""
    inv = INVERSE_OF[u]
    return upright if inv == 1 else upright.transpose(DISPLAY_OP[inv])


def display(stored: Image.Image, u: int) -> Image.Image:
    return stored if u == 1 else stored.transpose(DISPLAY_OP[u])


def transposed_point(op: Image.Transpose, x: float, y: float, w: int, h: int) -> tuple:
    """Where the point (x, y) of a w x h image lands after `image.transpose(op)` (continuous
    coordinates: a pixel's centre is at +0.5)."""
    T = Image.Transpose
    return {
        T.FLIP_LEFT_RIGHT: (w - x, y),
        T.FLIP_TOP_BOTTOM: (x, h - y),
        T.ROTATE_180: (w - x, h - y),
        T.ROTATE_90: (y, w - x),
        T.ROTATE_270: (h - y, x),
        T.TRANSPOSE: (y, x),
        T.TRANSVERSE: (h - y, w - x),
    }[op]


def stored_points(points, size: tuple, u: int) -> list:
    """The points of the upright frame (of `size`) in the pixels stored for EXIF u
    (`store_for_upright`)."""
    inv = INVERSE_OF[u]
    if inv == 1:
        return list(points)
    return [transposed_point(DISPLAY_OP[inv], x, y, size[0], size[1]) for x, y in points]
