// The orientation classifier (an ONNX model) run by OpenCV's dnn module, behind a C API so that no
// C++ or OpenCV type reaches Swift. Every function catches OpenCV's exceptions and reports them as
// a message in `error` (NUL-terminated, at most `size` bytes).
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Side of the square the model reads.
#define DOCORIENT_NET_SIDE 224
/// Classes the model answers: the text turned clockwise by 0, 90, 180, 270 degrees.
#define DOCORIENT_NET_CLASSES 4

/// One loaded model; use from one thread at a time.
typedef struct docorient_net docorient_net;

/// Loads the ONNX model at `path` (cv::dnn::readNetFromONNX) for OpenCV's own CPU backend, and
/// makes OpenCV run on the calling thread only (cv::setNumThreads(1): the same answer under any
/// load). NULL with a message on failure.
docorient_net *docorient_net_load(const char *path, char *error, size_t size);

/// Frees a model loaded by `docorient_net_load` (NULL is allowed).
void docorient_net_free(docorient_net *net);

/// Classifies `count` squares of one grey image. The image (`width` x `height` 8-bit pixels,
/// rows `stride` bytes apart) is resized so that its short side is `short_side` pixels (Lanczos,
/// sizes rounded as the model's own preprocessing rounds them), then square i is the
/// DOCORIENT_NET_SIDE square at (`origins[2i]`, `origins[2i+1]`) of the resized image, each grey
/// value v given to all three channels as (v / 255 - mean[c]) / std[c] with ImageNet's mean and
/// std. Writes DOCORIENT_NET_CLASSES probabilities per square to `probabilities`, and, when
/// `tensor` is not NULL, the model's input (count x 3 x SIDE x SIDE floats) to it.
/// Returns 1, or 0 with a message.
int docorient_net_classify(
    docorient_net *net, const uint8_t *pixels, int width, int height, size_t stride, int short_side,
    const int *origins, int count, float *probabilities, float *tensor, char *error, size_t size);

/// Runs the model on a prepared input (`count` x 3 x SIDE x SIDE floats), for the tests that
/// compare it with another runtime. Returns 1, or 0 with a message.
int docorient_net_run(
    docorient_net *net, const float *tensor, int count, float *probabilities, char *error, size_t size);

#ifdef __cplusplus
}
#endif
