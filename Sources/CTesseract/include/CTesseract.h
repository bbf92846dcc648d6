// Tesseract's C API, loaded when first needed (lazy.c), so that the commands that never read
// text (tag, inspect, bake) do not load libtesseract and the ~55 libraries it brings (curl,
// archive, TLS, Kerberos, LDAP...). Leptonica first, so that struct Pix imports as one type in
// both modules.
#include <leptonica/allheaders.h>
#include <tesseract/capi.h>
#include <stddef.h>

/// Loads libtesseract (once, thread-safe) and resolves every function docorient calls.
/// Returns 1 when Tesseract is ready; 0 with a message in `error` (NUL-terminated, at most `size`
/// bytes) when the library or one of its functions is missing. Every Tess* function below may be
/// called only after a successful call.
int docorient_tesseract_load(char *error, size_t size);
