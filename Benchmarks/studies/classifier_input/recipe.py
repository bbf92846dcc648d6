#!/usr/bin/env python3
"""The recommended classifier input, standalone (what docorient should port).

    OMP_NUM_THREADS=1 python3 recipe.py FILE...      -> EXIF answer, top probability, the 4 probabilities

Steps (grey stored pixels, EXIF tag NOT applied):
 1. decode grey; JPEG DCT-scaled so the long side stays >= 1600 (others INTER_AREA to <= 2400)
 2. (only with SHEET = True, variant DA+DT448.5l) sheet: Otsu on a blurred 400-px copy -> bright components >= 4% of the frame -> prefer those
    touching < 2 frame sides -> the brightest -> its bounding box + 2% margin; none (or > 90% of
    the frame) -> the whole image.  Recommended (A+T448.5l): SHEET = False, the whole image.
 3. coarse view: the image's short side -> 256 (INTER_LANCZOS4), centre 224x224 crop (the reference)
 4. text views: the image's short side -> 448 (INTER_AREA); black-hat (9x9 rect) of the grey,
    values <= 20 zeroed; the 224x224 windows on a 56-px stride grid (plus the last row/column)
    ranked by summed black-hat; greedily keep the best with <= 50% overlap with those kept: K = 5
 5. each crop: grey/255, replicated to 3 channels, (x - mean) / std per channel (ImageNet)
 6. combine: mean of the crops' log-probabilities, exp and renormalised to sum 1
    (normalised geometric mean over the 6 crops); answer = argmax -> EXIF [1, 8, 3, 6]
"""

import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
import cv2
import extract as E
import numpy as np

K_TEXT = 5  # text windows
COARSE = True  # add the reference crop
SHEET = False  # True: work on detect_paper's box (variant DA+DT448.5l); False: whole image (A+T448.5l)


def views(g):
    sheet = E.detect_paper(g) if SHEET else None
    if sheet is None:
        sheet = g
    crops = []
    if COARSE:
        crops.append(E.grid_crops(E.resize_short(sheet, 256), 3)[4])
    crops += E.textness_crops(E.resize_short(sheet, 448, cv2.INTER_AREA), K_TEXT)
    return crops


def classify(sess, path):
    g, _ = E.load_grey(path)
    p = sess.run(None, {"x": E.to_tensor(views(g))})[0]
    l = np.log(np.clip(p, 1e-6, 1)).mean(0)
    v = np.exp(l - l.max())
    v /= v.sum()
    return E.LABEL_EXIF[int(v.argmax())], float(v.max()), v


if __name__ == "__main__":
    s = E.session()
    for f in sys.argv[1:]:
        ex, top, v = classify(s, f)
        print(f, ex, f"{top:.3f}", np.round(v, 3))
