// Leptonica first, so that struct Pix imports as one type in both modules.
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
