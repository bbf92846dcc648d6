// The orientation classifier's model (an ONNX file) behind a C API, so that no C++ or onnxruntime
// type reaches Swift. The model runs in onnxruntime, whose library is opened with dlopen (no build
// or package dependency); the squares it is shown are cut in Swift (ClassifierSquares). Every
// function catches exceptions and reports them as a message in `error` (NUL-terminated, at most
// `size` bytes).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Side of the square the model reads.
#define DOCORIENT_NET_SIDE 224
/// Most classes a model may answer per square. PP-LCNet answers 4 (the text turned clockwise by 0,
/// 90, 180, 270 degrees); docorient's own model (Models/orientation) a fifth, nothing to orient.
#define DOCORIENT_NET_MAX_CLASSES 8

/// One loaded model; use from one thread at a time.
typedef struct docorient_net docorient_net;

/// Loads the ONNX model at `path` into onnxruntime's shared library at `runtime`
/// (`libonnxruntime.so.1`, C API version 28 or later): a session of one thread that runs on the
/// caller's thread (`OrtApi::CreateSession`). NULL with a message on failure.
docorient_net *docorient_net_load(const char *path, const char *runtime, char *error, size_t size);

/// The runtime that runs `net`'s model, "onnxruntime 1.28.0" (its own version string); the string
/// lives as long as `net`.
const char *docorient_net_runtime(const docorient_net *net);

/// Frees a model loaded by `docorient_net_load` (NULL is allowed).
void docorient_net_free(docorient_net *net);

/// Runs the model on `count` squares in one batch: `tensor` holds count x 3 x DOCORIENT_NET_SIDE x
/// DOCORIENT_NET_SIDE floats (the model's normalised input; read, not changed), and each square's
/// probabilities, as many as the model has classes (`classes` receives the number: 4 or more, at
/// most DOCORIENT_NET_MAX_CLASSES), go to `probabilities` (room for count x MAX_CLASSES floats).
/// Returns 1, or 0 with a message.
int docorient_net_forward(
    docorient_net *net, float *tensor, int count, float *probabilities, int *classes, char *error, size_t size);

#ifdef __cplusplus
}
#endif
