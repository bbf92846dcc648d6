// The orientation classifier (an ONNX model) behind a C API so that no C++, OpenCV or onnxruntime
// type reaches Swift. The model runs in onnxruntime when its library is given (opened with dlopen:
// no build or package dependency), else in OpenCV's dnn module; the squares it is shown are cut by
// OpenCV either way. Every function catches exceptions and reports them as a message in `error`
// (NUL-terminated, at most `size` bytes).
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

/// Loads the ONNX model at `path`. With `runtime` (the path of onnxruntime's shared library,
/// `libonnxruntime.so.1`, C API version 28 or later), into an onnxruntime session of one thread
/// that runs on the caller's thread (`OrtApi::CreateSession`); with NULL, into OpenCV's dnn module
/// on its own CPU backend (cv::dnn::readNetFromONNX). OpenCV runs on the calling thread only
/// either way (cv::setNumThreads(1): the same answer under any load). NULL with a message on
/// failure.
docorient_net *docorient_net_load(const char *path, const char *runtime, char *error, size_t size);

/// The runtime that runs `net`'s model: "onnxruntime 1.28.0" (its own version string) or
/// "opencv-dnn 4.6.0"; the string lives as long as `net`.
const char *docorient_net_runtime(const docorient_net *net);

/// Frees a model loaded by `docorient_net_load` (NULL is allowed).
void docorient_net_free(docorient_net *net);

/// Classifies squares of one grey image (`width` x `height` 8-bit pixels, rows `stride` bytes
/// apart) and writes each square's probabilities, as many as the model has classes (`classes`
/// receives the number: 4 or more, at most DOCORIENT_NET_MAX_CLASSES), to `probabilities`:
///
/// - square 0, the model's own view: the image resized so that its short side is
///   `centre_short_side` (Lanczos; sizes rounded as the model's preprocessing rounds them), its
///   centre DOCORIENT_NET_SIDE square;
/// - then up to `text_squares` squares where the text is densest: the image resized (area) to a
///   short side of `text_short_side`, its dark strokes measured by a 9x9 black-hat (values of 20
///   or less dropped), and the squares on a 56-pixel grid (and the last row and column) with the
///   most of it taken greedily, each overlapping those taken by at most half.
///
/// Each square's grey value v goes to all three channels as (v / 255 - mean[c]) / std[c] with
/// ImageNet's mean and std. `probabilities` holds (1 + text_squares) x MAX_CLASSES floats, `origins`
/// (1 + text_squares) x 2 ints (each square's x and y in its resized image); `count` receives the
/// squares classified. When `tensor` is not NULL the model's input (count x 3 x SIDE x SIDE
/// floats, room for 1 + text_squares) is written to it. Returns 1, or 0 with a message.
int docorient_net_read(
    docorient_net *net, const uint8_t *pixels, int width, int height, size_t stride, int centre_short_side,
    int text_short_side, int text_squares, float *probabilities, int *classes, int *origins, int *count,
    float *tensor, char *error, size_t size);

#ifdef __cplusplus
}
#endif
