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

/// Makes OpenMP parallel regions entered from the calling thread run with a team of one
/// (libgomp's `omp_set_max_active_levels(0)`, found in libtesseract's dependencies when it was
/// loaded); does nothing when Tesseract was built without OpenMP or is not loaded yet.
void docorient_openmp_serial(void);

/// 1 when the loaded libtesseract brought libgomp (so `docorient_openmp_serial` has an effect).
int docorient_openmp_found(void);
