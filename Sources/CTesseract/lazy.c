// Definitions of the Tesseract C API functions docorient uses, each forwarding to the function of
// the same name in libtesseract, which is dlopen()ed by docorient_tesseract_load on first use.
#include "CTesseract.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The library's soname on Debian bookworm (Tesseract 5), then the development symlink.
static const char *const library_names[] = {"libtesseract.so.5", "libtesseract.so"};

#define TESS_FUNCTIONS(X)                                                                                   \
    X(TessBaseAPI *, TessBaseAPICreate, (void), ())                                                         \
    X(void, TessBaseAPIDelete, (TessBaseAPI * handle), (handle))                                            \
    X(void, TessBaseAPIEnd, (TessBaseAPI * handle), (handle))                                               \
    X(void, TessBaseAPIClear, (TessBaseAPI * handle), (handle))                                             \
    X(int, TessBaseAPIInit2, (TessBaseAPI * handle, const char *datapath, const char *language,            \
                              TessOcrEngineMode oem), (handle, datapath, language, oem))                   \
    X(BOOL, TessBaseAPISetVariable, (TessBaseAPI * handle, const char *name, const char *value),            \
      (handle, name, value))                                                                                \
    X(void, TessBaseAPISetPageSegMode, (TessBaseAPI * handle, TessPageSegMode mode), (handle, mode))        \
    X(void, TessBaseAPISetImage2, (TessBaseAPI * handle, struct Pix * pix), (handle, pix))                  \
    X(void, TessBaseAPISetSourceResolution, (TessBaseAPI * handle, int ppi), (handle, ppi))                 \
    X(int, TessBaseAPIRecognize, (TessBaseAPI * handle, ETEXT_DESC * monitor), (handle, monitor))           \
    X(TessResultIterator *, TessBaseAPIGetIterator, (TessBaseAPI * handle), (handle))                       \
    X(void, TessResultIteratorDelete, (TessResultIterator * handle), (handle))                              \
    X(BOOL, TessResultIteratorNext, (TessResultIterator * handle, TessPageIteratorLevel level),             \
      (handle, level))                                                                                      \
    X(char *, TessResultIteratorGetUTF8Text, (const TessResultIterator *handle, TessPageIteratorLevel level), \
      (handle, level))                                                                                      \
    X(float, TessResultIteratorConfidence, (const TessResultIterator *handle, TessPageIteratorLevel level),  \
      (handle, level))                                                                                      \
    X(BOOL, TessResultIteratorWordIsFromDictionary, (const TessResultIterator *handle), (handle))           \
    X(BOOL, TessResultIteratorWordIsNumeric, (const TessResultIterator *handle), (handle))                  \
    X(void, TessDeleteText, (const char *text), (text))                                                     \
    X(ETEXT_DESC *, TessMonitorCreate, (void), ())                                                          \
    X(void, TessMonitorDelete, (ETEXT_DESC * monitor), (monitor))                                           \
    X(void, TessMonitorSetCancelFunc, (ETEXT_DESC * monitor, TessCancelFunc cancelFunc), (monitor, cancelFunc)) \
    X(void, TessMonitorSetCancelThis, (ETEXT_DESC * monitor, void *cancelThis), (monitor, cancelThis))

// One pointer per function, set once by load().
#define POINTER(ret, name, params, args) static ret(*real_##name) params;
TESS_FUNCTIONS(POINTER)

static void (*omp_set_max_active_levels_fn)(int);
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[512];
static int loaded;

static void load(void) {
    void *library = NULL;
    for (size_t i = 0; i < sizeof library_names / sizeof *library_names && !library; i++) {
        library = dlopen(library_names[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (!library) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libtesseract (%s); install libtesseract5",
                 why ? why : "not found");
        return;
    }
    // dlsym on the library's handle finds its own definitions, never these forwarders.
#define RESOLVE(ret, name, params, args)                                                                  \
    *(void **)(&real_##name) = dlsym(library, #name);                                                       \
    if (!real_##name) {                                                                                     \
        snprintf(load_error, sizeof load_error, "libtesseract has no function %s (too old?)", #name);      \
        return;                                                                                             \
    }
    TESS_FUNCTIONS(RESOLVE)
    // Optional: libgomp, a dependency of Debian's libtesseract (dlsym on the handle searches the
    // library's dependencies too; loaded RTLD_LOCAL, it is invisible to a global lookup).
    *(void **)(&omp_set_max_active_levels_fn) = dlsym(library, "omp_set_max_active_levels");
    loaded = 1;
}

int docorient_openmp_found(void) { return omp_set_max_active_levels_fn != NULL; }

void docorient_openmp_serial(void) {
    if (omp_set_max_active_levels_fn) omp_set_max_active_levels_fn(0);
}

int docorient_tesseract_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (!loaded && error && size > 0) {
        strncpy(error, load_error, size - 1);
        error[size - 1] = '\0';
    }
    return loaded;
}

// Called before a successful load is a programming error: stop rather than jump to NULL.
static void require_loaded(const char *name) {
    if (!loaded) {
        fprintf(stderr, "docorient: %s called before Tesseract was loaded\n", name);
        abort();
    }
}

#define FORWARD(ret, name, params, args)                                                                  \
    ret name params {                                                                                       \
        require_loaded(#name);                                                                              \
        return real_##name args;                                                                            \
    }
TESS_FUNCTIONS(FORWARD)
