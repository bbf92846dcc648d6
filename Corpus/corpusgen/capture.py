"""Capture profiles (the --captures axis) and the camera: table, placement, perspective, light,
blur, noise."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from .kinds import UNDECIDABLE
from .pages import Doc

SIZES = [1024, 1280, 1600, 2016, 2592, 3264, 4032]
ANALYSIS_SIDE = 1800  # long side at which legibility is judged (../shared/DOMAIN.md: ~1800 px analysis images)


def smooth_noise(rng, shape, cells):
    h, w = shape
    g = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return np.asarray(Image.fromarray(g).resize((w, h), Image.BICUBIC))


def table_texture(rng, W, H) -> tuple:
    """Table surface at 1/4 resolution, upscaled; returns (image, name)."""
    w, h = max(8, W // 4), max(8, H // 4)
    kind = ["wood", "laminate", "fabric", "stone", "dark"][int(rng.integers(5))]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = rng.uniform([110, 60, 25], [190, 130, 80]).astype(np.float32)
        warp = smooth_noise(rng, (h, w), (6, 4)) * 20
        ang = rng.uniform(0, math.pi)
        coord = xx * math.cos(ang) + yy * math.sin(ang) + warp
        grain = np.sin(coord / rng.uniform(3, 9)) * 0.5 + 0.5 * np.sin(coord / rng.uniform(17, 31))
        a = base * (0.82 + 0.18 * grain)[..., None]
    elif kind == "laminate":
        base = rng.uniform(150, 235, 3).astype(np.float32)
        a = base * (0.96 + 0.04 * smooth_noise(rng, (h, w), (12, 9)))[..., None]
    elif kind == "fabric":
        base = rng.uniform(40, 200, 3).astype(np.float32)
        p = rng.uniform(2.0, 4.0)
        weave = 0.5 + 0.25 * np.sin(xx * p) + 0.25 * np.sin(yy * p)
        a = base * (0.85 + 0.15 * weave)[..., None]
    elif kind == "stone":
        base = rng.uniform(90, 200, 3).astype(np.float32)
        speck = rng.standard_normal((h, w)).astype(np.float32)
        a = base * (0.9 + 0.05 * speck + 0.06 * smooth_noise(rng, (h, w), (20, 15)))[..., None]
    else:
        base = rng.uniform(20, 70, 3).astype(np.float32)
        a = base * (0.9 + 0.1 * smooth_noise(rng, (h, w), (8, 6)))[..., None]
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).resize((W, H), Image.BILINEAR)
    return img, kind


def perspective_coeffs(dst_pts, src_pts):
    """PIL PERSPECTIVE coefficients mapping output (dst) points to input (src) points."""
    A, b = [], []
    for (x, y), (u, v) in zip(dst_pts, src_pts):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    return np.linalg.solve(np.array(A, np.float64), np.array(b, np.float64)).tolist()


@dataclass
class Shot:
    landscape: bool
    long_side: int
    occupancy: float
    skew_deg: float
    persp: float
    blur: float
    noise: float
    light: float
    shadow: bool
    vignette: float
    quality: int
    mild: bool = False
    # capture profiles other than "flat" (defaults: no effect, no random draw)
    keystone: float = 0.0  # far edge narrower by this fraction of the page width
    keystone_edge: int = 0  # 0 top, 1 bottom, 2 left, 3 right (of the upright page)
    curl: float = 0.0  # page curl strength
    shadow_depth: tuple = ()  # (lo, hi) of the hand shadow's darkening
    glare: float = 0.0  # specular glare: added light at the blob's centre, 0-1
    motion: float = 0.0  # motion blur length as a fraction of the body text size
    fixed_frame: bool = False  # keep the frame size; grow only the page's share of it
    legible_full: bool = False  # judge legibility at full resolution (page small in a big frame)
    pen_marks: bool = False  # circles and underlines drawn by hand over lines of print (pen_marks)


def photograph(doc: Doc, shot: Shot, rng, undecidable: bool) -> tuple:
    """Place the document on a table and apply the camera; returns (RGB image, tags, the sheet's
    four corners in the frame: top left, top right, bottom right, bottom left of the page)."""
    tags = []
    dw, dh = doc.image.size
    long_side = shot.long_side
    W, H = (long_side, long_side * 3 // 4) if shot.landscape else (long_side * 3 // 4, long_side)
    occ = shot.occupancy
    # scale so the (rotated) page fits the frame at the wanted occupancy
    fit = min(W / dw, H / dh)
    s = occ * fit
    if not undecidable:
        # Legibility floor, measured at ANALYSIS_SIDE (a reader that shrinks big photos
        # to about that long side must still see body text of min_final_px): grow the
        # frame up to ANALYSIS_SIDE, then the page's share of it.
        def legible(ls, scale):
            shrink = 1.0 if shot.legible_full else min(1.0, ANALYSIS_SIDE / ls)
            return doc.body_px * scale * shrink >= doc.min_final_px

        if shot.fixed_frame and not legible(long_side, 0.97 * fit):
            shot.fixed_frame = False
        while not legible(long_side, s) and long_side < ANALYSIS_SIDE and not shot.fixed_frame:
            long_side = next(x for x in SIZES if x > long_side)
            W, H = (long_side, long_side * 3 // 4) if shot.landscape else (long_side * 3 // 4, long_side)
            fit = min(W / dw, H / dh)
            s = occ * fit
        if not legible(long_side, s):
            need = doc.min_final_px / (
                doc.body_px * (1.0 if shot.legible_full else min(1.0, ANALYSIS_SIDE / long_side))
            )
            occ = min(0.97, need / fit)
            s = occ * fit
    tags.append(f"frame:{W}x{H}")
    table, tname = table_texture(rng, W, H)
    tags.append(f"table:{tname}")

    # paper: tint + faint fibre texture, ink from the document
    sw, sh = max(1, int(round(dw * s))), max(1, int(round(dh * s)))
    small = doc.image.resize((sw, sh), Image.LANCZOS) if (sw, sh) != (dw, dh) else doc.image
    paper_rgb = rng.uniform([235, 232, 222], [252, 250, 246]).astype(np.float32)
    ink = np.asarray(small, np.float32) / 255.0
    fibre = 1 - 0.02 * np.abs(smooth_noise(rng, (sh, sw), (max(2, sw // 40), max(2, sh // 40))))
    page = (ink * fibre)[..., None] * paper_rgb
    page_img = Image.fromarray(np.clip(page, 0, 255).astype(np.uint8)).convert("RGBA")
    if shot.curl > 0:
        page_img, ctag = curl_page(page_img, shot.curl, rng)
        tags.append(ctag)

    # corners in the frame: rotate by skew about the centre, jitter for perspective
    cx = W / 2 + rng.uniform(-0.5, 0.5) * max(0, W - sw) * 0.8
    cy = H / 2 + rng.uniform(-0.5, 0.5) * max(0, H - sh) * 0.8
    th = math.radians(shot.skew_deg)
    corners = []
    base = [(-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2)]
    if shot.keystone > 0:
        base = keystone_corners(base, sw, sh, shot.keystone, shot.keystone_edge)
    for px, py in base:
        jx = rng.uniform(-shot.persp, shot.persp) * sw
        jy = rng.uniform(-shot.persp, shot.persp) * sh
        x = cx + (px + jx) * math.cos(th) - (py + jy) * math.sin(th)
        y = cy + (px + jx) * math.sin(th) + (py + jy) * math.cos(th)
        corners.append((x, y))
    tags.append(f"skew:{shot.skew_deg:+.1f}")
    tags.append(f"perspective:{shot.persp:.3f}")
    if shot.keystone > 0:
        tags.append(f"keystone:{shot.keystone:.2f}@{'tblr'[shot.keystone_edge]}")
    if shot.keystone > 0:  # hand-held: slide the turned page back into the frame where it fits
        xs = [p[0] for p in corners]
        ys = [p[1] for p in corners]
        dx = (-min(xs) if min(xs) < 0 else min(0.0, W - 1 - max(xs))) if max(xs) - min(xs) < W else 0.0
        dy = (-min(ys) if min(ys) < 0 else min(0.0, H - 1 - max(ys))) if max(ys) - min(ys) < H else 0.0
        corners = [(x + dx, y + dy) for x, y in corners]
    xs = [p[0] for p in corners]
    ys = [p[1] for p in corners]
    x0, y0 = max(0, int(math.floor(min(xs)))), max(0, int(math.floor(min(ys))))
    x1, y1 = min(W, int(math.ceil(max(xs))) + 1), min(H, int(math.ceil(max(ys))) + 1)
    local = [(x - x0, y - y0) for x, y in corners]
    coeffs = perspective_coeffs(local, [(0, 0), (sw, 0), (sw, sh), (0, sh)])
    warped = page_img.transform((x1 - x0, y1 - y0), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    alpha = warped.getchannel("A")

    # drop shadow of the sheet on the table
    sh_off = int(max(2, 0.006 * long_side))
    shadow = Image.new("L", (W, H), 0)
    shadow.paste(alpha, (x0 + sh_off, y0 + sh_off))
    shadow = shadow.filter(ImageFilter.BoxBlur(max(1, sh_off * 2)))
    frame = Image.composite(Image.new("RGB", (W, H), (0, 0, 0)), table, shadow.point(lambda v: int(v * 0.45)))
    frame.paste(warped.convert("RGB"), (x0, y0), alpha)

    # light: gradient + vignette + optional hand/phone shadow, at low resolution
    lw, lh = 96, 72 if shot.landscape else 96
    lw, lh = (96, 72) if shot.landscape else (72, 96)
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    xx /= lw
    yy /= lh
    ang = rng.uniform(0, 2 * math.pi)
    grad = (xx - 0.5) * math.cos(ang) + (yy - 0.5) * math.sin(ang)
    field_ = 1.0 + shot.light * grad * 2
    tags.append(f"light:{shot.light:.2f}")
    r2 = (xx - 0.5) ** 2 + (yy - 0.5) ** 2
    field_ *= 1.0 - shot.vignette * r2 * 2
    if shot.vignette > 0:
        tags.append(f"vignette:{shot.vignette:.2f}")
    if shot.shadow:
        sm = Image.new("L", (lw, lh), 0)
        sd = ImageDraw.Draw(sm)
        edge = int(rng.integers(4))
        depth = rng.uniform(0.25, 0.5) if not shot.mild else rng.uniform(0.15, 0.3)
        if shot.shadow_depth:
            depth = rng.uniform(*shot.shadow_depth)
        reach = rng.uniform(0.25, 0.55)
        pts = {
            0: [(0, 0), (lw * reach, 0), (lw * reach * rng.uniform(0.5, 1.3), lh), (0, lh)],
            1: [(lw, 0), (lw * (1 - reach), 0), (lw * (1 - reach * rng.uniform(0.5, 1.3)), lh), (lw, lh)],
            2: [(0, 0), (lw, 0), (lw, lh * reach * rng.uniform(0.5, 1.3)), (0, lh * reach)],
            3: [(0, lh), (lw, lh), (lw, lh * (1 - reach * rng.uniform(0.5, 1.3))), (0, lh * (1 - reach))],
        }[edge]
        sd.polygon(pts, fill=255)
        sm = sm.filter(ImageFilter.GaussianBlur(rng.uniform(1.5, 5)))
        field_ *= 1.0 - depth * np.asarray(sm, np.float32) / 255.0
        tags.append(f"shadow:{depth:.2f}")
    warm = rng.uniform([0.96, 0.96, 0.88], [1.04, 1.02, 1.04]).astype(np.float32)
    exposure = rng.uniform(0.85, 1.08)
    field_img = Image.fromarray(field_.astype(np.float32)).resize((W, H), Image.BILINEAR)
    a = np.asarray(frame, np.float32)
    a *= (np.asarray(field_img, np.float32) * exposure)[..., None]
    a *= warm
    if shot.glare > 0:
        gx, gy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        gs = rng.uniform(0.08, 0.18)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gs * gs)).astype(np.float32)
        blob_img = Image.fromarray(blob).resize((W, H), Image.BILINEAR)
        a += 255.0 * shot.glare * np.asarray(blob_img, np.float32)[..., None]
        tags.append(f"glare:{shot.glare:.2f}")

    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if shot.motion > 0 and not undecidable:
        length = shot.motion * doc.body_px * s
        img = motion_blur(img, length, rng.uniform(0, math.pi))
        tags.append(f"motion:{length:.1f}")
    if shot.blur > 0:
        # defocus in proportion to the text, not the frame: legible, never a smear
        if undecidable:
            radius = shot.blur * long_side / 2000.0
        else:
            radius = shot.blur * 0.045 * doc.body_px * s
        img = img.filter(ImageFilter.GaussianBlur(radius))
        tags.append(f"blur:{radius:.2f}")
    if shot.noise > 0:
        a = np.asarray(img, np.float32)
        luma = rng.standard_normal((H, W, 1), dtype=np.float32) * shot.noise
        chroma = rng.standard_normal((H, W, 3), dtype=np.float32) * (shot.noise * 0.35)
        a = a + luma + chroma
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        tags.append(f"noise:{shot.noise:.1f}")
    return img, tags, corners


def keystone_corners(base, sw, sh, k, edge):
    """Shrink the far edge by k of its length and shorten the page a little (seen at a slant)."""
    out = [list(p) for p in base]
    if edge in (0, 1):
        far = (0, 1) if edge == 0 else (2, 3)
        for i in far:
            out[i][0] *= 1 - k
            out[i][1] += (0.35 * k * sh) * (1 if edge == 0 else -1)
    else:
        far = (0, 3) if edge == 2 else (1, 2)
        for i in far:
            out[i][1] *= 1 - k
            out[i][0] += (0.35 * k * sw) * (1 if edge == 2 else -1)
    return [tuple(p) for p in out]


def curl_page(page: Image.Image, amount: float, rng) -> tuple:
    """Page curl: lines bow, and one edge lifts and rolls away (foreshortened, shaded)."""
    edge = int(rng.integers(4))  # 0 right, 1 left, 2 bottom, 3 top
    pre = {0: None, 1: Image.Transpose.FLIP_LEFT_RIGHT, 2: Image.Transpose.TRANSPOSE, 3: Image.Transpose.TRANSVERSE}[
        edge
    ]
    im = page.transpose(pre) if pre is not None else page
    w, h = im.size
    bow = amount * 0.25 * rng.uniform(0.5, 1.0) * (1 if rng.random() < 0.5 else -1)
    u0 = 1 - rng.uniform(1.0, 2.0) * amount
    k = rng.uniform(0.6, 1.0)
    nx, ny = 24, 32

    def src(u, v):
        su = u if u <= u0 else u0 + (u - u0) * (1 + k * (u - u0) / (1 - u0))
        lift = 0.0 if u <= u0 else ((u - u0) / (1 - u0)) ** 2 * amount * 0.6
        sv = v - bow * 4 * u * (1 - u) * 0.2 - lift * (v - 0.5)
        return su * w, sv * h

    mesh = []
    for j in range(ny):
        for i in range(nx):
            ua, ub = i / nx, (i + 1) / nx
            va, vb = j / ny, (j + 1) / ny
            box = (int(round(ua * w)), int(round(va * h)), int(round(ub * w)), int(round(vb * h)))
            quad = src(ua, va) + src(ua, vb) + src(ub, vb) + src(ub, va)
            mesh.append((box, quad))
    out = im.transform((w, h), Image.MESH, mesh, Image.BICUBIC)
    u = np.arange(w, dtype=np.float32) / w
    shade = 1 - 0.3 * np.clip((u - u0) / (1 - u0), 0, 1) ** 1.5
    rgb = np.asarray(out, np.float32)
    rgb[..., :3] *= shade[None, :, None]
    out = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGBA")
    if pre is not None:
        out = out.transpose(pre)
    return out, f"curl:{amount:.2f}@{'rlbt'[edge]}"


def motion_blur(img: Image.Image, length: float, angle: float) -> Image.Image:
    n = max(3, int(math.ceil(length)) + 1)
    a = np.asarray(img, np.float32)
    acc = np.zeros_like(a)
    for t in np.linspace(-length / 2, length / 2, n):
        dx, dy = int(round(t * math.cos(angle))), int(round(t * math.sin(angle)))
        acc += np.roll(a, (dy, dx), axis=(0, 1))
    return Image.fromarray(np.clip(acc / n, 0, 255).astype(np.uint8))


# Capture profiles (the --captures axis).  "flat" is the original camera; the
# others change it after random_shot, drawing only from the file's Generator.
CAPTURES = ["flat", "handheld", "curled", "shadowed", "blurred", "lowq", "distant", "penmarks"]
CAPTURE_WEIGHTS = [
    ("flat", 0.28),
    ("handheld", 0.16),
    ("curled", 0.11),
    ("shadowed", 0.11),
    ("blurred", 0.11),
    ("lowq", 0.11),
    ("distant", 0.12),
]
# Profiles made only when --captures names them: the default plan (and every set made without
# them) stays as it was.
OPT_IN_CAPTURES = [("penmarks", 0.1)]
DEFAULT_CAPTURES = [c for c, _ in CAPTURE_WEIGHTS]
FRAME_12MP, FRAME_2MP = 4032, 1632  # 4032x3024 and 1632x1224


def apply_capture(shot: Shot, capture: str, rng, kind: str) -> Shot:
    if capture == "flat":
        return shot
    if capture == "handheld":  # on a table, shot by hand: 5-15 degrees off, keystoned
        shot.skew_deg = float(rng.uniform(5.0, 15.0) * (1 if rng.random() < 0.5 else -1))
        shot.keystone = float(rng.uniform(0.15, 0.25))
        shot.keystone_edge = int(rng.choice(4, p=[0.6, 0.2, 0.1, 0.1]))
        shot.persp = float(rng.uniform(0.0, 0.02))
        shot.long_side = int(rng.choice([FRAME_12MP, 3264, FRAME_2MP]))
        shot.occupancy = float(rng.uniform(0.5, 0.72))  # room for the turned, keystoned page
    elif capture == "curled":
        shot.curl = float(rng.uniform(0.08, 0.2))
        shot.skew_deg = float(rng.uniform(-6, 6))
    elif capture == "shadowed":
        shot.shadow = True
        shot.shadow_depth = (0.4, 0.65)
        shot.glare = float(rng.uniform(0.25, 0.55))
    elif capture == "blurred":
        if rng.random() < 0.5:
            shot.motion = float(rng.uniform(0.15, 0.3))
        else:
            shot.blur = float(rng.uniform(2.4, 3.3))
    elif capture == "lowq":
        shot.quality = int(rng.integers(60, 71))
        shot.long_side = FRAME_2MP
        shot.fixed_frame = True
        shot.noise = float(rng.uniform(4.0, 9.0))
    elif capture == "penmarks":  # a flat shot of a page someone went over with a pen
        shot.pen_marks = True
    elif capture == "distant":  # the page small in a 12 MP frame, legible at full resolution
        shot.long_side = FRAME_12MP
        shot.occupancy = float(rng.uniform(0.28, 0.45))
        shot.legible_full = True
    else:
        raise ValueError(f"unknown capture profile {capture!r}")
    return shot


# What random_shot draws for the camera, in this order: for an ordinary shot and for a mild one
# (the samples, every page clearly readable), a range each (the shadow: its chance).
CAMERA = {  # name: (ordinary, mild)
    "skew_deg": ((-4.5, 4.5), (-2, 2)),
    "persp": ((0.0, 0.045), (0.0, 0.02)),
    "blur": ((0.4, 2.0), (0.3, 0.8)),
    "noise": ((2.0, 7.0), (1.0, 2.2)),
    "light": ((0.05, 0.35), (0.05, 0.2)),
    "shadow": (0.5, 0.4),
    "vignette": ((0.0, 0.35), (0.0, 0.2)),
    "quality": ((70, 96), (76, 87)),
}


def random_shot(rng, kind: str, mild: bool) -> Shot:
    sizes_w = [0.12, 0.15, 0.18, 0.18, 0.12, 0.10, 0.15]
    long_side = int(rng.choice(SIZES, p=sizes_w))
    if kind == "fineprint" or kind == "pdfpage":
        long_side = max(long_side, 2016)
    landscape = rng.random() < (0.3 if kind != "receipt" else 0.2)
    if kind == "receipt":
        occ = rng.uniform(0.45, 0.9)
    elif kind in UNDECIDABLE:
        occ = rng.uniform(0.5, 0.9)
    else:
        occ = rng.uniform(0.6, 0.93)
    camera = {name: both[1 if mild else 0] for name, both in CAMERA.items()}
    return Shot(
        landscape,
        long_side,
        max(occ, 0.75) if mild else occ,
        rng.uniform(*camera["skew_deg"]),
        rng.uniform(*camera["persp"]),
        rng.uniform(*camera["blur"]),
        rng.uniform(*camera["noise"]),
        rng.uniform(*camera["light"]),
        bool(rng.random() < camera["shadow"]),
        rng.uniform(*camera["vignette"]),
        int(rng.integers(*camera["quality"])),
        mild=mild,
    )


def pen_marks(doc: Doc, rng) -> Doc:
    """`doc` with lines of its print gone over by hand with a pen: two to four lines circled by a
    loose ellipse (its ends overlapping, its radius wobbling) or underlined, as someone checking a
    receipt does. The marks are ink as dark as print but in no orientation: a reader that takes
    their strokes for letters reads junk, in any candidate. Tags `pen:N`."""
    a = np.asarray(doc.image)
    inked = (a < 128).sum(axis=1) > max(2, a.shape[1] // 200)
    bands, start = [], None
    for y, on in enumerate(list(inked) + [False]):
        if on and start is None:
            start = y
        elif not on and start is not None:
            if y - start >= max(4, doc.body_px * 0.4):
                bands.append((start, y))
            start = None
    if not bands:
        return doc
    image = doc.image.copy()
    draw = ImageDraw.Draw(image)
    width = max(2, int(round(doc.body_px * rng.uniform(0.08, 0.16))))
    ink = int(rng.integers(30, 110))
    chosen = rng.permutation(len(bands))[: int(rng.integers(2, 5))]
    for b in sorted(int(i) for i in chosen):
        y0, y1 = bands[b]
        cols = np.flatnonzero((a[y0:y1] < 128).any(axis=0))
        x0, x1 = int(cols[0]), int(cols[-1])
        if rng.random() < 0.35:  # a line across under the print, a little wavy
            y = y1 + width + rng.uniform(0, doc.body_px * 0.2)
            xs = np.linspace(x0 - rng.uniform(0, 20), x1 + rng.uniform(0, 20), 24)
            ys = y + np.cumsum(rng.normal(0, 0.6, len(xs))) + rng.uniform(-1, 1) * np.linspace(0, 6, len(xs))
            draw.line(list(zip(xs.tolist(), ys.tolist())), fill=ink, width=width, joint="curve")
            continue
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        rx = (x1 - x0) / 2 + doc.body_px * rng.uniform(0.4, 1.2)
        ry = (y1 - y0) / 2 + doc.body_px * rng.uniform(0.4, 0.9)
        turns = rng.uniform(1.05, 1.3)  # the pen overshoots where it started
        t = np.linspace(0, 2 * math.pi * turns, 90) + rng.uniform(0, 2 * math.pi)
        wobble = 1 + np.cumsum(rng.normal(0, 0.012, len(t)))
        tilt = math.radians(rng.uniform(-4, 4))
        ex, ey = rx * wobble * np.cos(t), ry * wobble * np.sin(t)
        xs = cx + ex * math.cos(tilt) - ey * math.sin(tilt)
        ys = cy + ex * math.sin(tilt) + ey * math.cos(tilt)
        draw.line(list(zip(xs.tolist(), ys.tolist())), fill=ink, width=width, joint="curve")
    return replace(doc, image=image, tags=doc.tags + [f"pen:{len(chosen)}"])
