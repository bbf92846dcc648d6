"""schemathesis hooks: a real file for each media type the service's document declares for its
request bodies that schemathesis cannot make itself (it brings its own JPEG and PNG).

The document declares the bodies by their real media types (image/jpeg, image/png, image/tiff,
image/heic, image/heif, application/pdf); schemathesis sends a schema-valid body of a media type as
a file of that format, and needs a strategy for the formats it has no sample of. Each here is a
small copy of a corpus sample (a letter, 160 px): TIFF by Pillow, HEIC by libheif's heif-enc, PDF
by img2pdf.

Use: SCHEMATHESIS_HOOKS=Tests/Service/schemathesis_media.py schemathesis run URL/openapi.json -c all
"""

import io
import os
import subprocess
import tempfile

import img2pdf
import schemathesis
from hypothesis import strategies as st
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "Corpus", "samples", "0003_letter.jpg")


def _small():
    image = Image.open(SAMPLE).convert("RGB")
    image.thumbnail((160, 160))
    return image


def _encoded(image, format):
    out = io.BytesIO()
    image.save(out, format=format)
    return out.getvalue()


def _heic(image):
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "in.png")
        target = os.path.join(folder, "out.heic")
        image.save(source)
        subprocess.run(["heif-enc", "-q", "60", "-o", target, source], check=True, capture_output=True)
        with open(target, "rb") as f:
            return f.read()


_image = _small()
FILES = {
    "image/tiff": _encoded(_image, "TIFF"),
    "image/heic": _heic(_image),
    "application/pdf": img2pdf.convert(_encoded(_image, "JPEG")),
}
FILES["image/heif"] = FILES["image/heic"]

for media_type, data in FILES.items():
    schemathesis.openapi.media_type(media_type, st.just(data))
