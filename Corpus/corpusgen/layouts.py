"""The layout kinds (flyer, menu, label, vlabels, rotheads, marginnote, spread, oneline,
sign, phototext, handnote, and the printers' receipts): each takes the file's Generator and its
Family."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageChops, ImageDraw

from .fonts import Family, family_font, family_override
from .pages import Doc, doc_receipt, draw_barcode, new_page, scene_photo
from .text import CITIES, FIRSTNAMES, STORES, STREETS, SURNAMES, WORDS, address_lines, paragraph, person, sentence, wrap

# The layouts: each takes the file's Generator and its Family.  The
# layouts with some vertical text (flyer tabs, vertical labels, rotated column
# headers, margin notes and stamps, a label's side code) keep most of the
# page's text upright; `vertical:F` records the vertical share of the letters.

FLYER_HEADS = [
    "BAKE SALE",
    "GARAGE SALE",
    "LOST CAT",
    "PIANO LESSONS",
    "ROOM FOR RENT",
    "YOGA CLASSES",
    "GUITAR LESSONS",
    "DOG WALKER",
    "BIKE FOR SALE",
    "BABYSITTER",
    "MATHS TUTOR",
    "BOOK SWAP",
    "FOUND KEYS",
    "CHOIR NIGHT",
    "FLAT TO LET",
    "FREE SOFA",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
SIGNS = [
    "NO PARKING",
    "PLEASE KNOCK",
    "OUT OF ORDER",
    "STAFF ONLY",
    "WET PAINT",
    "KEEP DOOR CLOSED",
    "FRESH COFFEE",
    "OPEN SUNDAYS",
    "BACK IN TEN MINUTES",
    "PLEASE WAIT HERE",
    "NO ENTRY",
    "DELIVERIES AT REAR",
    "MIND THE STEP",
    "CASH ONLY",
    "PRIVATE PROPERTY",
    "CLOSED FOR LUNCH",
    "EXIT ONLY",
    "PLEASE RING BELL",
    "SALE TODAY",
    "QUIET PLEASE",
]
DISHES = [
    "Tomato soup",
    "Garlic bread",
    "Caesar salad",
    "Grilled salmon",
    "Roast chicken",
    "Beef burger",
    "Mushroom risotto",
    "Fish and chips",
    "Vegetable curry",
    "Lamb stew",
    "Apple pie",
    "Cheesecake",
    "Chocolate mousse",
    "Ice cream",
    "Pancakes",
    "Lemon tart",
    "Spaghetti carbonara",
    "Falafel wrap",
    "Club sandwich",
    "Onion rings",
    "Prawn cocktail",
    "Fruit salad",
]
TABLE_HEADS = [
    "Attendance",
    "Homework",
    "Midterm exam",
    "Final exam",
    "Project",
    "Participation",
    "Quiz average",
    "Total score",
    "Lab reports",
    "Presentation",
    "Reading log",
    "Grade",
]
NOTES = [
    "Approved, pay by Friday",
    "See attached copy",
    "Checked and filed",
    "Call back on Monday",
    "Please sign and return",
    "Copy sent to accounts",
    "Query raised with supplier",
    "Urgent, reply today",
]
STAMPS = ["RECEIVED", "PAID", "APPROVED", "COPY", "FILED", "ENTERED"]


def stamp_patch(img: Image.Image, patch: Image.Image, x: int, y: int) -> None:
    """Darken img with patch (white = nothing) at (x, y), clipped to the page."""
    W, H = img.size
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + patch.width), min(H, y + patch.height)
    if x1 <= x0 or y1 <= y0:
        return
    p = patch.crop((x0 - x, y0 - y, x1 - x, y1 - y))
    img.paste(ImageChops.darker(img.crop((x0, y0, x1, y1)), p), (x0, y0))


def text_patch(text: str, fnt, fill: int, pad: int = 4) -> Image.Image:
    _l, _t, r, b = fnt.getbbox(text)
    patch = Image.new("L", (r + 2 * pad, b + 2 * pad), 255)
    ImageDraw.Draw(patch).text((pad, pad), text, font=fnt, fill=fill)
    return patch


def vertical_text(img, x, y, text, fnt, fill, up=True) -> tuple:
    """Text turned a quarter: up=True reads bottom-to-top (the usual spine/tab direction)."""
    p = text_patch(text, fnt, fill).transpose(Image.Transpose.ROTATE_90 if up else Image.Transpose.ROTATE_270)
    stamp_patch(img, p, x, y)
    return p.size


def letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def fit_size(d, text, fam, weight, width, start, lo=20):
    size = start
    while size > lo and d.textlength(text, font=family_font(fam, weight, size)) > width:
        size -= 4
    return size


def phone(rng) -> str:
    return f"07{int(rng.integers(100, 999))} {int(rng.integers(100000, 999999))}"


def fam_tag(fam: Family) -> str:
    return "font:" + fam.name.replace(" ", "")


def doc_flyer(rng, fam: Family) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = int(rng.integers(110, 170))
    ink = int(rng.integers(0, 40))
    head = FLYER_HEADS[int(rng.integers(len(FLYER_HEADS)))]
    hs = fit_size(d, head, fam, "bold", W - 2 * m, int(rng.integers(220, 330)))
    fh = family_font(fam, "bold", hs)
    y = m
    d.text(((W - d.textlength(head, font=fh)) / 2, y), head, font=fh, fill=ink)
    y += int(hs * 1.35)
    up = letters(head)
    big = [
        f"{DAYS[int(rng.integers(7))]} {int(rng.integers(1, 29))} {MONTHS[int(rng.integers(12))]}",
        f"{STREETS[int(rng.integers(len(STREETS)))]}, {CITIES[int(rng.integers(len(CITIES)))]}",
    ]
    ls = int(rng.integers(84, 120))
    for line in big:
        s_ = fit_size(d, line, fam, "regular", W - 2 * m, ls)
        fl = family_font(fam, "regular", s_)
        d.text(((W - d.textlength(line, font=fl)) / 2, y), line, font=fl, fill=ink)
        y += int(s_ * 1.4)
        up += letters(line)
    y += 50
    size = int(rng.integers(44, 58))
    fb = family_font(fam, "regular", size)
    tab_h = int(rng.integers(360, 460))
    for line in wrap(d, paragraph(rng, 4, 7), fb, W - 2 * m):
        if y > H - tab_h - size * 3:
            break
        d.text((m, y), line, font=fb, fill=ink)
        y += int(size * 1.35)
        up += letters(line)
    contact = f"Call {person(rng).split()[0]} on {phone(rng)}"
    if y < H - tab_h - size * 2:
        d.text((m, y + size // 2), contact, font=fb, fill=ink)
        up += letters(contact)
    # tear-off tabs: dashed cuts, a phone number running up each tab
    ntab = int(rng.integers(6, 10))
    tw = W // ntab
    ty = H - tab_h
    for x in range(0, W, 28):
        d.line([(x, ty), (x + 14, ty)], fill=90, width=2)
    num = phone(rng)
    label = head.split()[0].title() if rng.random() < 0.5 else person(rng).split()[0]
    ts = int(rng.integers(28, 36))
    while ts > 18 and family_font(fam, "regular", ts).getlength(f"{label} {num}") > tab_h - 50:
        ts -= 2
    ft = family_font(fam, "regular", ts)
    # keep the tabs a clear minority of the letters (at most 30%): phone number only, fewer tabs
    text = f"{label} {num}"
    if ntab * letters(text) > 0.43 * up:
        text = num
    ntab = max(4, min(ntab, int(0.43 * up / letters(text))))
    tw = W // ntab
    vert = 0
    for i in range(ntab):
        x = i * tw
        if i:
            for yy in range(ty, H, 26):
                d.line([(x, yy), (x, yy + 13)], fill=90, width=2)
        pw, ph = ft.getbbox(text)[3] + 8, int(ft.getlength(text)) + 8
        vertical_text(img, x + (tw - pw) // 2, ty + (tab_h - ph) // 2, text, ft, ink, up=True)
        vert += letters(text)
    return Doc(img, size, 17, [fam_tag(fam), f"tabs:{ntab}", f"vertical:{vert / (vert + up):.2f}"])


def doc_menu(rng, fam: Family) -> Doc:
    W, H = 1240, 1754
    img, d = new_page(W, H)
    m = 110
    ink = int(rng.integers(0, 50))
    title = f"{['The', 'Cafe', 'Chez', 'Old'][int(rng.integers(4))]} {SURNAMES[int(rng.integers(len(SURNAMES)))]}"
    ts = fit_size(d, title, fam, "bold", W - 2 * m, int(rng.integers(90, 130)))
    ft = family_font(fam, "bold", ts)
    y = m
    d.text(((W - d.textlength(title, font=ft)) / 2, y), title, font=ft, fill=ink)
    y += int(ts * 1.6)
    size = int(rng.integers(30, 38))
    f = family_font(fam, "regular", size)
    fs = family_font(fam, "bold", int(size * 1.3))
    fi = family_font(fam, "italic", int(size * 0.8))
    order = rng.permutation(len(DISHES))
    k = 0
    for sec in ["Starters", "Mains", "Desserts"]:
        if y > H - m - size * 4:
            break
        d.text(((W - d.textlength(sec, font=fs)) / 2, y), sec, font=fs, fill=ink)
        y += int(size * 2.0)
        for _ in range(int(rng.integers(3, 6))):
            if y > H - m - size * 2:
                break
            dish = DISHES[int(order[k % len(order)])]
            k += 1
            price = f"{int(rng.integers(4, 24))}.{['00', '50', '95'][int(rng.integers(3))]}"
            d.text((m, y), dish, font=f, fill=ink)
            pw = d.textlength(price, font=f)
            d.text((W - m - pw, y), price, font=f, fill=ink)
            x0 = m + d.textlength(dish, font=f) + 16
            for x in range(int(x0), int(W - m - pw - 16), 14):
                d.ellipse([x, y + size * 0.75, x + 3, y + size * 0.75 + 3], fill=ink + 60)
            y += int(size * 1.3)
            if rng.random() < 0.4:
                desc = sentence(rng, 4, 8).lower()
                d.text((m + 20, y), desc, font=fi, fill=ink + 40)
                y += int(size * 1.2)
            y += size // 3
        y += size
    return Doc(img, size, 17, [fam_tag(fam)])


def doc_label(rng, fam: Family) -> Doc:
    W, H = 800, 1200  # 4 x 6 in at 200 dpi
    img, d = new_page(W, H)
    ink = 0
    d.rectangle([10, 10, W - 11, H - 11], outline=ink, width=4)
    size = int(rng.integers(24, 30))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.5))
    y = 40
    up = 0
    d.text((40, y), "FROM:", font=f, fill=ink)
    y += int(size * 1.3)
    for line in [STORES[int(rng.integers(len(STORES)))].title()] + address_lines(rng):
        d.text((40, y), line, font=f, fill=ink)
        y += int(size * 1.25)
        up += letters(line)
    y += 20
    d.line([(10, y), (W - 10, y)], fill=ink, width=4)
    svc = ["PRIORITY", "EXPRESS", "STANDARD", "NEXT DAY"][int(rng.integers(4))]
    y += 20
    d.rectangle([40, y, 40 + int(d.textlength(svc, font=fb)) + 40, y + int(fb.size * 1.4)], fill=ink)
    d.text((60, y + fb.size * 0.15), svc, font=fb, fill=255)
    y += int(fb.size * 1.4) + 30
    d.text((40, y), "SHIP TO:", font=f, fill=ink)
    y += int(size * 1.4)
    fto = family_font(fam, "bold", int(size * 1.6))
    for line in [person(rng).upper()] + [a.upper() for a in address_lines(rng)]:
        d.text((60, y), line, font=fto, fill=ink)
        y += int(fto.size * 1.3)
        up += letters(line)
    y += 20
    d.line([(10, y), (W - 10, y)], fill=ink, width=4)
    y += 30
    draw_barcode(d, rng, 60, y, W - 200, 200, ink)
    track = f"{int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))} {int(rng.integers(10, 99))}"
    y += 215
    d.text((60, y), track, font=f, fill=ink)
    up += letters(track)
    y += int(size * 1.6)
    for line in [f"Weight: {float(rng.integers(2, 250)) / 10:.1f} kg", f"Ref: {int(rng.integers(100000, 999999))}"]:
        d.text((60, y), line, font=f, fill=ink)
        y += int(size * 1.3)
        up += letters(line)
    side = f"LBL {int(rng.integers(100000, 999999))}"
    fs = family_font(fam, "regular", int(size * 0.8))
    vertical_text(img, W - 30 - fs.getbbox(side)[3] - 8, 380, side, fs, ink, up=bool(rng.random() < 0.5))
    v = letters(side)
    return Doc(img, size, 17, [fam_tag(fam), f"vertical:{v / (v + up):.2f}"])


def doc_vlabels(rng, fam: Family) -> Doc:
    """A form whose sections are named by vertical labels in a left bar."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = 130
    size = int(rng.integers(26, 32))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.6))
    title = ["APPLICATION FORM", "MEMBERSHIP FORM", "ENROLMENT FORM", "GRANT APPLICATION"][int(rng.integers(4))]
    y = m
    d.text((m, y), title, font=fb, fill=0)
    up = letters(title)
    y += int(size * 3)
    intro = sentence(rng, 10, 16)
    for line in wrap(d, intro, f, W - 2 * m):
        d.text((m, y), line, font=f, fill=30)
        y += int(size * 1.3)
        up += letters(line)
    y += size
    sections = [
        ["APPLICANT", ["Surname", "First name", "Date of birth", "Telephone"]],
        ["ADDRESS", ["Street", "Town", "Postcode", "Country"]],
        ["EMPLOYER", ["Company", "Position", "Start date"]],
        ["DECLARATION", ["Signature", "Date"]],
    ]
    bar = int(size * 2.2)
    vert = 0
    fv = family_font(fam, "bold", int(size * 1.05))
    filled = rng.random() < 0.5
    for name, fields in sections:
        h = int(len(fields) * size * 2.3 + size)
        if y + h > H - m:
            break
        d.rectangle([m, y, W - m, y + h], outline=0, width=3)
        d.rectangle([m, y, m + bar, y + h], fill=225, outline=0, width=3)
        fvs = fv
        while fvs.size > 14 and fvs.getlength(name) > h - 24:  # the label stays inside its section
            fvs = family_font(fam, "bold", fvs.size - 2)
        pw, ph = fvs.getbbox(name)[3] + 8, int(fvs.getlength(name)) + 8
        vertical_text(img, m + (bar - pw) // 2, y + max(4, (h - ph) // 2), name, fvs, 0, up=True)
        vert += letters(name)
        yy = y + size // 2 + 4
        for lab in fields:
            d.text((m + bar + 20, yy), lab, font=f, fill=0)
            up += letters(lab)
            bx = m + bar + 20 + 360
            d.line([(bx, yy + size + 6), (W - m - 30, yy + size + 6)], fill=60, width=2)
            if filled and lab != "Signature":
                val = person(rng) if "name" in lab.lower() else f"{int(rng.integers(10, 9999))}"
                d.text((bx + 10, yy - 2), val, font=family_font(fam, "italic", size), fill=60)
                up += letters(val)
            yy += int(size * 2.3)
        y += h + size
    for line in wrap(d, paragraph(rng, 2, 4), family_font(fam, "regular", int(size * 0.8)), W - 2 * m):
        if y > H - m:
            break
        d.text((m, y), line, font=family_font(fam, "regular", int(size * 0.8)), fill=40)
        y += int(size * 1.1)
        up += letters(line)
    return Doc(img, size, 17, [fam_tag(fam), f"vertical:{vert / (vert + up):.2f}"])


def doc_rotheads(rng, fam: Family) -> Doc:
    """A table whose column headers are turned 90 degrees (read bottom-to-top)."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = 120
    size = int(rng.integers(26, 32))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.5))
    y = m
    title = ["Class results", "Quarterly figures", "Team scores", "Survey summary"][
        int(rng.integers(4))
    ] + f" {2019 + int(rng.integers(7))}"
    d.text((m, y), title, font=fb, fill=0)
    up = letters(title)
    y += int(size * 2.6)
    for line in wrap(d, paragraph(rng, 2, 4), f, W - 2 * m):
        d.text((m, y), line, font=f, fill=20)
        y += int(size * 1.3)
        up += letters(line)
    y += size
    ncol = int(rng.integers(5, 9))
    heads = [TABLE_HEADS[int(i)] for i in rng.permutation(len(TABLE_HEADS))[:ncol]]
    namew = 430
    cw = (W - 2 * m - namew) // ncol
    fh = family_font(fam, "bold", size)
    head_h = int(max(fh.getlength(h) for h in heads)) + 30
    vert = 0
    for c, h in enumerate(heads):
        x = m + namew + c * cw
        pw = fh.getbbox(h)[3] + 8
        vertical_text(img, x + (cw - pw) // 2, y + head_h - int(fh.getlength(h)) - 16, h, fh, 0, up=True)
        vert += letters(h)
    d.text((m, y + head_h - size - 10), "Name", font=fh, fill=0)
    up += 4
    y += head_h
    d.line([(m, y), (W - m, y)], fill=0, width=3)
    rows = int(rng.integers(12, 26))
    for r in range(rows):
        if y > H - m - size * 5:
            break
        name = person(rng)
        d.text((m, y + 8), name, font=f, fill=0)
        up += letters(name)
        for c in range(ncol):
            v = f"{int(rng.integers(0, 100))}"
            x = m + namew + c * cw
            d.text((x + (cw - d.textlength(v, font=f)) / 2, y + 8), v, font=f, fill=0)
            up += len(v)
        y += int(size * 1.6)
        d.line([(m, y), (W - m, y)], fill=150, width=1)
    y += size
    for line in wrap(d, "Notes: " + paragraph(rng, 1, 3), f, W - 2 * m):
        if y > H - m:
            break
        d.text((m, y), line, font=f, fill=30)
        y += int(size * 1.3)
        up += letters(line)
    return Doc(img, size, 17, [fam_tag(fam), f"vertical:{vert / (vert + up):.2f}"])


def doc_marginnote(rng, fam: Family) -> Doc:
    """A typed page with a note in the margin or a rubber stamp, turned 90 degrees."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    ml, mr = 300, 150
    size = int(rng.integers(27, 33))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.5))
    y = 160
    head = STORES[int(rng.integers(len(STORES)))].title() + " Ltd"
    d.text((ml, y), head, font=fb, fill=15)
    up = letters(head)
    y += int(size * 3)
    for _ in range(int(rng.integers(3, 6))):
        for line in wrap(d, paragraph(rng), f, W - ml - mr):
            if y > H - 200:
                break
            d.text((ml, y), line, font=f, fill=15)
            y += int(size * 1.4)
            up += letters(line)
        y += size
    what = ["note", "stamp", "both"][int(rng.integers(3))]
    vert = 0
    tags = [fam_tag(fam)]
    if what in ("note", "both"):
        note = NOTES[int(rng.integers(len(NOTES)))]
        nf = family_font(fam, "italic", int(size * 1.2))
        upw = bool(rng.random() < 0.5)
        vertical_text(img, int(rng.integers(40, 120)), int(rng.integers(300, 900)), note, nf, 70, up=upw)
        vert += letters(note)
        tags.append(f"note:{90 if upw else 270}")
    if what in ("stamp", "both"):
        word = STAMPS[int(rng.integers(len(STAMPS)))]
        sf = family_font(fam, "bold", int(size * 2.2))
        sd = f"{int(rng.integers(1, 29))} {MONTHS[int(rng.integers(12))][:3].upper()} 20{int(rng.integers(19, 26))}"
        sf2 = family_font(fam, "regular", int(size * 1.1))
        pw = int(max(sf.getlength(word), sf2.getlength(sd))) + 60
        ph = int(sf.size * 1.3 + sf2.size * 1.5) + 40
        patch = Image.new("L", (pw, ph), 255)
        pd = ImageDraw.Draw(patch)
        pd.rectangle([4, 4, pw - 5, ph - 5], outline=90, width=6)
        pd.text(((pw - pd.textlength(word, font=sf)) / 2, 20), word, font=sf, fill=90)
        pd.text(((pw - pd.textlength(sd, font=sf2)) / 2, 30 + sf.size * 1.2), sd, font=sf2, fill=90)
        upw = bool(rng.random() < 0.5)
        patch = patch.transpose(Image.Transpose.ROTATE_90 if upw else Image.Transpose.ROTATE_270)
        stamp_patch(
            img,
            patch,
            W - mr - patch.width + int(rng.integers(40, 120)),
            int(rng.integers(H // 3, H - patch.height - 150)),
        )
        vert += letters(word + sd)
        tags.append(f"stamp:{90 if upw else 270}")
    tags.append(f"vertical:{vert / (vert + up):.2f}")
    return Doc(img, size, 17, tags)


def doc_spread(rng, fam: Family) -> Doc:
    """An open book: two pages side by side with a dark gutter."""
    PW, H = 1100, 1600
    W = 2 * PW
    img, d = new_page(W, H)
    size = int(rng.integers(28, 34))
    f = family_font(fam, "regular", size)
    fr = family_font(fam, "italic", int(size * 0.8))
    book = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), 3)).title()
    first = int(rng.integers(10, 300)) * 2
    for p in range(2):
        x0 = p * PW + (140 if p == 0 else 110)
        x1 = (p + 1) * PW - (110 if p == 0 else 140)
        y = 110
        run = book if p == 0 else f"Chapter {int(rng.integers(1, 20))}"
        d.text(((x0 + x1 - d.textlength(run, font=fr)) / 2, y), run, font=fr, fill=40)
        y += int(size * 2.2)
        if p == 1 and rng.random() < 0.4:
            ch = family_font(fam, "bold", int(size * 1.8))
            d.text((x0, y + size), f"{int(rng.integers(2, 20))}", font=ch, fill=10)
            y += int(size * 4)
        while y < H - 200:
            for line in wrap(d, paragraph(rng, 3, 6), f, x1 - x0):
                if y > H - 200:
                    break
                d.text((x0, y), line, font=f, fill=15)
                y += int(size * 1.4)
            y += size // 2
        pn = f"{first + p}"
        d.text(((x0 + x1 - d.textlength(pn, font=f)) / 2, H - 120), pn, font=f, fill=30)
    a = np.asarray(img, np.float32)
    xx = np.abs(np.arange(W, dtype=np.float32) - PW) / 90.0
    a *= (1 - 0.45 * np.exp(-(xx**2)))[None, :]
    return Doc(Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)), size, 17, [fam_tag(fam)])


def doc_oneline(rng, fam: Family) -> Doc:
    size = int(rng.integers(44, 64))
    f = family_font(fam, "regular", size)
    text = sentence(rng, 5, 9)
    W = int(f.getlength(text)) + int(rng.integers(120, 300))
    H = int(size * rng.uniform(3.0, 5.0))
    img, d = new_page(W, H)
    d.text(
        (int(rng.integers(50, W - int(f.getlength(text)) - 50)), (H - size) // 2 - size // 5),
        text,
        font=f,
        fill=int(rng.integers(0, 50)),
    )
    return Doc(img, size, 17, [fam_tag(fam), f"words:{len(text.split())}"])


def doc_sign(rng, fam: Family) -> Doc:
    """A few large real words (a notice on a door)."""
    text = SIGNS[int(rng.integers(len(SIGNS)))]
    if rng.random() < 0.35:
        text = text.title()
    W, H = (1654, 1169) if rng.random() < 0.6 else (1169, 1654)
    img, d = new_page(W, H)
    m = 100
    words = text.split()
    size = int(rng.integers(240, 400))
    while True:
        fb = family_font(fam, "bold", size)
        lines = wrap(d, text, fb, W - 2 * m)
        if (
            len(lines) * size * 1.25 <= H - 2 * m and all(d.textlength(w, font=fb) <= W - 2 * m for w in words)
        ) or size <= 60:
            break
        size -= 10
    y = (H - len(lines) * size * 1.25) / 2
    ink = int(rng.integers(0, 60))
    for line in lines:
        d.text(((W - d.textlength(line, font=fb)) / 2, y), line, font=fb, fill=ink)
        y += size * 1.25
    if rng.random() < 0.5:
        d.rectangle([40, 40, W - 41, H - 41], outline=ink, width=int(rng.integers(6, 16)))
    return Doc(img, size * 0.7, 17, [fam_tag(fam), "words:" + text.replace(" ", "_")])


def logo_image(rng, size: int) -> Image.Image:
    img = Image.new("L", (size, size), 255)
    d = ImageDraw.Draw(img)
    c = size / 2
    shape = int(rng.integers(3))
    g = int(rng.integers(20, 120))
    if shape == 0:
        for k in range(int(rng.integers(1, 4))):
            r = c * (0.95 - 0.25 * k)
            d.ellipse([c - r, c - r, c + r, c + r], outline=g, width=int(size * 0.05))
        d.ellipse([c - c * 0.2, c - c * 0.2, c + c * 0.2, c + c * 0.2], fill=g)
    elif shape == 1:
        d.ellipse([0, 0, size - 1, size - 1], fill=g)
        d.polygon([(c, size * 0.15), (size * 0.85, size * 0.75), (size * 0.15, size * 0.75)], fill=235)
    else:
        for k in range(6):
            a0 = k * math.pi / 3 + rng.uniform(0, 0.3)
            d.pieslice([0, 0, size - 1, size - 1], math.degrees(a0), math.degrees(a0) + 40, fill=g)
    return img


def doc_phototext(rng, fam: Family) -> Doc:
    """A dominant photo or logo with a little text beside or under it."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = 120
    size = int(rng.integers(32, 44))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.7))
    layout = ["photo-top", "logo-top", "photo-left"][int(rng.integers(3))]
    if layout == "photo-top":
        ph = int(H * rng.uniform(0.5, 0.62))
        photo = scene_photo(rng, (W - 2 * m, ph)).convert("L")
        img.paste(photo, (m, m))
        y, x0, x1 = m + ph + 50, m, W - m
    elif layout == "logo-top":
        ls = int(W * rng.uniform(0.5, 0.7))
        img.paste(logo_image(rng, ls), ((W - ls) // 2, m + 60))
        y, x0, x1 = m + 60 + ls + 80, m, W - m
    else:
        pw = int(W * 0.55)
        photo = scene_photo(rng, (pw, H - 2 * m)).convert("L")
        img.paste(photo, (m, m))
        y, x0, x1 = m + 40, m + pw + 50, W - m
    head = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), 2)).title()
    hs = fit_size(d, head, fam, "bold", x1 - x0, fb.size)
    d.text((x0, y), head, font=family_font(fam, "bold", hs), fill=0)
    y += int(hs * 1.5)
    n = int(rng.integers(1, 4)) if layout != "logo-top" else 1
    for line in wrap(d, " ".join(sentence(rng, 6, 12) for _ in range(n)), f, x1 - x0):
        if y > H - m - size:
            break
        d.text((x0, y), line, font=f, fill=20)
        y += int(size * 1.35)
    return Doc(img, size, 17, [fam_tag(fam), layout])


def doc_handnote(rng, fam: Family) -> Doc:
    """A handwritten note: uneven baseline, lines drifting, maybe ruled paper."""
    W, H = (1240, 1754) if rng.random() < 0.6 else (1100, 1100)
    img, d = new_page(W, H)
    size = int(rng.integers(50, 70))
    f = family_font(fam, "regular", size)
    ruled = rng.random() < 0.5
    step = int(size * rng.uniform(1.5, 1.8))
    if ruled:
        for yy in range(160 + step, H - 60, step):
            d.line([(40, yy), (W - 40, yy)], fill=200, width=2)
    ink = int(rng.integers(10, 70))
    m = int(rng.integers(80, 140))
    y = 160
    text = [f"Dear {FIRSTNAMES[int(rng.integers(len(FIRSTNAMES)))]},"] if rng.random() < 0.5 else []
    text += wrap(d, " ".join(sentence(rng, 4, 9) for _ in range(int(rng.integers(3, 7)))), f, W - 2 * m - size)
    text.append(f"- {FIRSTNAMES[int(rng.integers(len(FIRSTNAMES)))]}")
    for line in text:
        if y + step > H - 80:
            break
        x = m + int(rng.integers(-15, 25))
        # each word on its own baseline; the whole line turned a little
        lw = int(f.getlength(line)) + 80
        patch = Image.new("L", (lw, int(size * 2.2)), 255)
        pd = ImageDraw.Draw(patch)
        px = 20
        for w in line.split():
            pd.text((px, int(size * 0.5 + rng.normal(0, 0.06) * size)), w, font=f, fill=ink)
            px += int(f.getlength(w + " ") * rng.uniform(0.95, 1.1))
        patch = patch.rotate(rng.uniform(-2.0, 2.0), resample=Image.BICUBIC, expand=True, fillcolor=255)
        stamp_patch(img, patch, x, y - int(size * 0.9))
        y += step
    return Doc(img, size * 0.8, 17, [fam_tag(fam), "ruled" if ruled else "plain"])


def doc_printer_receipt(rng, fam: Family) -> Doc:
    """A receipt from a dot-matrix or thermal printer: the old layout in the printer's face."""
    with family_override(fam):
        return doc_receipt(rng)


def apply_printer(doc: Doc, fam: Family, kind: str, rng) -> Doc:
    """Render the page through the family's printer effect, then ribbon/printhead banding."""
    a = 1.0 - np.asarray(doc.image, np.float32) / 255.0  # ink coverage
    H, W = a.shape
    tags = []
    if fam.effect:
        p = max(3, int(round(doc.body_px * (0.12 if fam.effect == "dots" else 0.09))))
        gh, gw = H // p, W // p
        cov = np.asarray(Image.fromarray(a[: gh * p, : gw * p]).resize((gw, gh), Image.BOX))
        on = (cov > 0.2).astype(np.float32) * np.clip(cov * 2.2, 0, 1)
        yy, xx = np.mgrid[0:p, 0:p].astype(np.float32) + 0.5 - p / 2
        cell = np.clip(0.46 * p + 0.5 - np.hypot(yy, xx), 0, 1) if fam.effect == "dots" else np.ones((p, p), np.float32)
        out = np.zeros_like(a)
        out[: gh * p, : gw * p] = np.kron(on, cell)
        a = out
        tags.append(f"{fam.effect}:{p}")
    if kind in ("dotmatrix", "thermal") or fam.effect:
        if fam.cls == "dotmatrix":  # a worn ribbon: print lines of uneven strength
            band = 0.7 + 0.3 * np.abs(np.sin(np.arange(H, dtype=np.float32) / rng.uniform(40, 90) + rng.uniform(0, 6)))
            a *= band[:, None]
        else:  # a thermal head with weak elements: faint vertical streaks
            col = np.ones(W, np.float32)
            for _ in range(int(rng.integers(2, 7))):
                x = int(rng.integers(0, W - 4))
                col[x : x + int(rng.integers(2, 6))] = rng.uniform(0.55, 0.8)
            a *= col[None, :]
        tags.append("banded")
    if kind == "thermal" and not any(t.startswith("faint:") for t in doc.tags):
        fade = rng.uniform(0.3, 0.55)
        a *= 1 - fade * np.linspace(0.6, 1.0, H, dtype=np.float32)[:: 1 if rng.random() < 0.5 else -1][:, None]
        tags.append(f"faint:{fade:.2f}")
    return Doc(
        Image.fromarray(np.clip(255 * (1 - a), 0, 255).astype(np.uint8)),
        doc.body_px,
        doc.min_final_px,
        doc.tags + tags,
        doc.source,
        doc.family,
    )
