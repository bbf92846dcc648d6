// The classifier behind COrientationNet.h: the squares cut by OpenCV, the model run by onnxruntime
// (opened with dlopen) or by OpenCV's dnn module. Exceptions never cross into Swift: each entry
// point catches them and writes the message.
#include "COrientationNet.h"

#include <dlfcn.h>

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace ort {

// onnxruntime's C API, declared here by what this file calls of it: the library is opened at run
// time (`Runtime::open`), so neither the build nor the package depends on it, and its header
// (onnxruntime_c_api.h, MIT) is not needed. `OrtApi` is a table of function pointers to which
// every release only appends, so a slot's index never changes; the indices below are those of
// the header's `struct OrtApi`, and the runtime test (Models/classifier/test_classifier.py)
// checks the answers against onnxruntime's Python binding on the same input.
struct Status;
struct Env;
struct Session;
struct SessionOptions;
struct MemoryInfo;
struct Value;
struct RunOptions;
struct TensorTypeAndShapeInfo;

struct ApiBase {
    const void *(*GetApi)(uint32_t version);
    const char *(*GetVersionString)();
};

// The C API version asked for: onnxruntime 1.28's, the library the Debian package carries. A
// later library serves it too; an earlier one answers NULL, reported as too old.
constexpr uint32_t kApiVersion = 28;

// Indices into OrtApi.
enum Slot : size_t {
    kGetErrorMessage = 2,
    kCreateEnv = 3,
    kCreateSession = 7,
    kRun = 9,
    kCreateSessionOptions = 10,
    kDisableMemPattern = 17,
    kDisableCpuMemArena = 19,
    kSetIntraOpNumThreads = 24,
    kSetInterOpNumThreads = 25,
    kCreateTensorWithDataAsOrtValue = 49,
    kGetTensorMutableData = 51,
    kGetTensorShapeElementCount = 64,
    kGetTensorTypeAndShape = 65,
    kCreateCpuMemoryInfo = 69,
    kReleaseEnv = 92,
    kReleaseStatus = 93,
    kReleaseMemoryInfo = 94,
    kReleaseSession = 95,
    kReleaseValue = 96,
    kReleaseTensorTypeAndShapeInfo = 99,
    kReleaseSessionOptions = 100,
};

// ONNX's element type of a float tensor, OrtLoggingLevel's FATAL (failures come back as
// statuses, so its log would only repeat them), OrtAllocatorType's arena allocator and
// OrtMemType's default.
constexpr int kFloat = 1, kLogFatal = 4, kArenaAllocator = 1, kMemTypeDefault = 0;

// The classes per square of an output of `elements` floats for `count` squares: 4 (PP-LCNet's
// rotations) or more (docorient's own model adds nothing to orient), at most
// DOCORIENT_NET_MAX_CLASSES.
inline int classesPerSquare(size_t elements, int count) {
    if (count <= 0 || elements % static_cast<size_t>(count) != 0 || elements / count < 4 ||
        elements / count > DOCORIENT_NET_MAX_CLASSES)
        throw std::runtime_error("the model's output is not 4 to " + std::to_string(DOCORIENT_NET_MAX_CLASSES) +
                                 " classes a square");
    return static_cast<int>(elements / count);
}

// The model's input and output names (PaddleClas's export: Models/classifier/README.md).
const char *const kInput = "x";
const char *const kOutput = "fetch_name_0";

// One opened onnxruntime library: its function table and one environment, shared by every
// model loaded from it (onnxruntime keeps one environment per process), made on first use and
// released with the last model (`retain`, `release`). The library itself stays open for the
// process's life: onnxruntime does not support being unloaded.
class Runtime {
public:
    // The runtime at `path`, opened once per process and path.
    static Runtime &open(const char *path) {
        static std::mutex lock;
        static std::map<std::string, Runtime *> opened;
        std::lock_guard<std::mutex> guard(lock);
        Runtime *&runtime = opened[path];
        if (runtime == nullptr) {
            try {
                runtime = new Runtime(path);
            } catch (...) {
                opened.erase(path);
                throw;
            }
        }
        return *runtime;
    }

    template <typename F> F fn(Slot slot) const { return reinterpret_cast<F>(table_[slot]); }

    // Throws with onnxruntime's message when `status` is not NULL (success), releasing it.
    void check(Status *status, const char *what) const {
        if (status == nullptr) return;
        std::string message = std::string(what) + ": " + fn<const char *(*)(const Status *)>(kGetErrorMessage)(status);
        fn<void (*)(Status *)>(kReleaseStatus)(status);
        throw std::runtime_error(message);
    }

    Env *retain() {
        std::lock_guard<std::mutex> guard(envLock_);
        if (users_ == 0) {
            Env *env = nullptr;
            check(fn<Status *(*)(int, const char *, Env **)>(kCreateEnv)(kLogFatal, "docorient", &env),
                  "onnxruntime could not start");
            env_ = env;
        }
        users_++;
        return env_;
    }

    void release() {
        std::lock_guard<std::mutex> guard(envLock_);
        if (--users_ == 0) {
            fn<void (*)(Env *)>(kReleaseEnv)(env_);
            env_ = nullptr;
        }
    }

    const std::string &version() const { return version_; }

private:
    explicit Runtime(const char *path) {
        void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (library == nullptr) throw std::runtime_error(std::string("cannot open onnxruntime: ") + dlerror());
        auto base = reinterpret_cast<const ApiBase *(*)()>(dlsym(library, "OrtGetApiBase"));
        if (base == nullptr) throw std::runtime_error(std::string(path) + " is not onnxruntime (no OrtGetApiBase)");
        const char *version = base()->GetVersionString();
        table_ = static_cast<void *const *>(base()->GetApi(kApiVersion));
        if (table_ == nullptr)
            throw std::runtime_error(std::string("onnxruntime ") + version + " at " + path +
                                     " is too old: docorient needs its C API version 28 (onnxruntime 1.28) or later");
        version_ = std::string("onnxruntime ") + version;
    }

    void *const *table_ = nullptr;
    std::string version_;
    std::mutex envLock_;
    Env *env_ = nullptr;
    int users_ = 0;
};

// One model in one session of one thread: no thread pool, so it runs on the caller's thread.
class Model {
public:
    Model(Runtime &runtime, const char *path) : runtime_(runtime), env_(runtime.retain()) {
        try {
            SessionOptions *options = nullptr;
            runtime_.check(runtime_.fn<Status *(*)(SessionOptions **)>(kCreateSessionOptions)(&options),
                           "onnxruntime session options");
            try {
                auto threads = runtime_.fn<Status *(*)(SessionOptions *, int)>(kSetIntraOpNumThreads);
                runtime_.check(threads(options, 1), "onnxruntime threads");
                runtime_.check(runtime_.fn<Status *(*)(SessionOptions *, int)>(kSetInterOpNumThreads)(options, 1),
                               "onnxruntime threads");
                // No arena and no memory pattern: they keep the largest batch's buffers for the
                // session's life, which with an engine per worker costs more than allocating
                // per run (six squares of 224 pixels).
                runtime_.check(runtime_.fn<Status *(*)(SessionOptions *)>(kDisableCpuMemArena)(options),
                               "onnxruntime memory arena");
                runtime_.check(runtime_.fn<Status *(*)(SessionOptions *)>(kDisableMemPattern)(options),
                               "onnxruntime memory pattern");
                auto create = runtime_.fn<Status *(*)(const Env *, const char *, const SessionOptions *, Session **)>(
                    kCreateSession);
                runtime_.check(create(env_, path, options, &session_), "onnxruntime could not load the model");
            } catch (...) {
                runtime_.fn<void (*)(SessionOptions *)>(kReleaseSessionOptions)(options);
                throw;
            }
            runtime_.fn<void (*)(SessionOptions *)>(kReleaseSessionOptions)(options);
            auto info = runtime_.fn<Status *(*)(int, int, MemoryInfo **)>(kCreateCpuMemoryInfo);
            runtime_.check(info(kArenaAllocator, kMemTypeDefault, &memory_), "onnxruntime memory");
        } catch (...) {
            free();
            throw;
        }
    }

    ~Model() { free(); }

    // The probabilities of `count` squares, in one batch; returns the classes per square.
    int forward(float *tensor, int count, float *probabilities) {
        const int64_t shape[4] = {count, 3, DOCORIENT_NET_SIDE, DOCORIENT_NET_SIDE};
        const size_t bytes = sizeof(float) * static_cast<size_t>(count) * 3 * DOCORIENT_NET_SIDE * DOCORIENT_NET_SIDE;
        Value *input = nullptr, *output = nullptr;
        auto tensor_of = runtime_.fn<Status *(*)(const MemoryInfo *, void *, size_t, const int64_t *, size_t, int,
                                                 Value **)>(kCreateTensorWithDataAsOrtValue);
        runtime_.check(tensor_of(memory_, tensor, bytes, shape, 4, kFloat, &input), "onnxruntime input");
        auto release = runtime_.fn<void (*)(Value *)>(kReleaseValue);
        int classes = 0;
        try {
            auto run = runtime_.fn<Status *(*)(Session *, const RunOptions *, const char *const *,
                                               const Value *const *, size_t, const char *const *, size_t, Value **)>(
                kRun);
            runtime_.check(run(session_, nullptr, &kInput, &input, 1, &kOutput, 1, &output), "onnxruntime run");
            classes = classesPerSquare(elements(output), count);
            void *data = nullptr;
            runtime_.check(runtime_.fn<Status *(*)(Value *, void **)>(kGetTensorMutableData)(output, &data),
                           "onnxruntime output");
            std::memcpy(probabilities, data, sizeof(float) * count * classes);
        } catch (...) {
            release(output);
            release(input);
            throw;
        }
        release(output);
        release(input);
        return classes;
    }

    const std::string &version() const { return runtime_.version(); }

private:
    // The number of floats in the tensor `value`.
    size_t elements(Value *value) const {
        TensorTypeAndShapeInfo *info = nullptr;
        runtime_.check(
            runtime_.fn<Status *(*)(const Value *, TensorTypeAndShapeInfo **)>(kGetTensorTypeAndShape)(value, &info),
            "onnxruntime output shape");
        size_t count = 0;
        Status *status =
            runtime_.fn<Status *(*)(const TensorTypeAndShapeInfo *, size_t *)>(kGetTensorShapeElementCount)(info, &count);
        runtime_.fn<void (*)(TensorTypeAndShapeInfo *)>(kReleaseTensorTypeAndShapeInfo)(info);
        runtime_.check(status, "onnxruntime output shape");
        return count;
    }

    void free() {
        if (memory_ != nullptr) runtime_.fn<void (*)(MemoryInfo *)>(kReleaseMemoryInfo)(memory_);
        if (session_ != nullptr) runtime_.fn<void (*)(Session *)>(kReleaseSession)(session_);
        memory_ = nullptr;
        session_ = nullptr;
        if (env_ != nullptr) runtime_.release();
        env_ = nullptr;
    }

    Runtime &runtime_;
    Env *env_;
    Session *session_ = nullptr;
    MemoryInfo *memory_ = nullptr;
};

}  // namespace ort

struct docorient_net {
    // One of the two: the onnxruntime session, or OpenCV's network.
    ort::Model *model = nullptr;
    cv::dnn::Net net;
    std::string runtime;

    ~docorient_net() { delete model; }
};

namespace {

void report(char *error, size_t size, const char *what) {
    if (error != nullptr && size > 0) std::snprintf(error, size, "%s", what);
}

// ImageNet's mean and std, the normalisation PaddleClas trained the model with.
const float kMean[3] = {0.485f, 0.456f, 0.406f};
const float kStd[3] = {0.229f, 0.224f, 0.225f};

// The probabilities of `count` prepared squares, one square at a time: OpenCV 4.6 runs this model
// with a batch of one only (its squeeze-and-excitation blocks add a 1-row bias that its importer
// does not broadcast over a batch).
int forward(cv::dnn::Net &net, const float *tensor, int count, float *probabilities) {
    const size_t square = 3 * DOCORIENT_NET_SIDE * DOCORIENT_NET_SIDE;
    int shape[4] = {1, 3, DOCORIENT_NET_SIDE, DOCORIENT_NET_SIDE};
    int classes = 0;
    for (int i = 0; i < count; i++) {
        cv::Mat blob(4, shape, CV_32F, const_cast<float *>(tensor + i * square));
        net.setInput(blob);
        cv::Mat out = net.forward();
        classes = ort::classesPerSquare(out.total(), 1);
        std::memcpy(probabilities + i * classes, out.ptr<float>(), sizeof(float) * classes);
    }
    return classes;
}

// The image resized so that its short side is `short_side`, each side rounded half away from zero
// (PaddleClas ResizeImage with resize_short, which the model was trained behind).
cv::Mat resizedToShortSide(const cv::Mat &grey, int short_side, int interpolation) {
    double factor = static_cast<double>(short_side) / std::min(grey.cols, grey.rows);
    cv::Size size(static_cast<int>(std::lround(grey.cols * factor)), static_cast<int>(std::lround(grey.rows * factor)));
    cv::Mat resized;
    cv::resize(grey, resized, size, 0, 0, interpolation);
    return resized;
}

// One square's grey values as the model's three normalised planes.
void normalise(const cv::Mat &square, float *out) {
    const int side = DOCORIENT_NET_SIDE, plane = side * side;
    for (int row = 0; row < side; row++) {
        const uint8_t *line = square.ptr<uint8_t>(row);
        for (int col = 0; col < side; col++) {
            float v = line[col] * (1.0f / 255.0f);
            for (int c = 0; c < 3; c++) out[c * plane + row * side + col] = (v - kMean[c]) / kStd[c];
        }
    }
}

// The origins of up to `k` squares where dark strokes are densest: a 9x9 black-hat (what is darker
// than its surroundings by up to a stroke's width: print and handwriting, not shadows or the
// table), values of 20 or less dropped as paper grain; squares on a 56-pixel grid (a quarter of
// a square) plus the last row and column, most ink first (ties: lower, then further right), each
// kept when it overlaps those kept by at most half a square.
std::vector<cv::Point> densestSquares(const cv::Mat &image, int k) {
    const int side = DOCORIENT_NET_SIDE, step = side / 4;
    cv::Mat hat, sums;
    cv::morphologyEx(image, hat, cv::MORPH_BLACKHAT, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(9, 9)));
    hat.convertTo(hat, CV_32F);
    cv::threshold(hat, hat, 20, 0, cv::THRESH_TOZERO);
    cv::integral(hat, sums, CV_64F);
    auto steps = [&](int length) {
        std::vector<int> at;
        for (int v = 0; v + side <= length; v += step) at.push_back(v);
        if (at.empty() || at.back() != length - side) at.push_back(length - side);
        return at;
    };
    struct Square { double ink; int y, x; };
    std::vector<Square> all;
    for (int y : steps(image.rows))
        for (int x : steps(image.cols))
            all.push_back({sums.at<double>(y + side, x + side) - sums.at<double>(y, x + side) -
                               sums.at<double>(y + side, x) + sums.at<double>(y, x),
                           y, x});
    std::sort(all.begin(), all.end(), [](const Square &a, const Square &b) {
        if (a.ink != b.ink) return a.ink > b.ink;
        return a.y != b.y ? a.y > b.y : a.x > b.x;
    });
    std::vector<cv::Point> kept;
    for (const Square &s : all) {
        if (static_cast<int>(kept.size()) == k) break;
        bool apart = std::all_of(kept.begin(), kept.end(), [&](const cv::Point &p) {
            double overlap = std::max(0, side - std::abs(s.y - p.y)) * static_cast<double>(std::max(0, side - std::abs(s.x - p.x)));
            return overlap <= 0.5 * side * side;
        });
        if (apart) kept.emplace_back(s.x, s.y);
    }
    return kept;
}

}  // namespace

extern "C" docorient_net *docorient_net_load(const char *path, const char *runtime, char *error, size_t size) {
    try {
        cv::setNumThreads(1);
        // Failures come back as messages through `error`; OpenCV's own log would repeat them on stderr.
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        auto *holder = new docorient_net;
        try {
            if (runtime != nullptr) {
                holder->model = new ort::Model(ort::Runtime::open(runtime), path);
                holder->runtime = holder->model->version();
            } else {
                holder->net = cv::dnn::readNetFromONNX(path);
                holder->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
                holder->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
                holder->runtime = std::string("opencv-dnn ") + CV_VERSION;
            }
        } catch (...) {
            delete holder;
            throw;
        }
        return holder;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error loading the model");
    }
    return nullptr;
}

extern "C" void docorient_net_free(docorient_net *net) { delete net; }

extern "C" const char *docorient_net_runtime(const docorient_net *net) { return net->runtime.c_str(); }

extern "C" int docorient_net_read(
    docorient_net *net, const uint8_t *pixels, int width, int height, size_t stride, int centre_short_side,
    int text_short_side, int text_squares, float *probabilities, int *classes, int *origins, int *count,
    float *tensor, char *error, size_t size) {
    try {
        const int side = DOCORIENT_NET_SIDE;
        if (width <= 0 || height <= 0 || text_squares < 0 || centre_short_side < side || text_short_side < side)
            throw std::invalid_argument("an empty image, or a short side under the model's side");
        cv::Mat grey(height, width, CV_8UC1, const_cast<uint8_t *>(pixels), stride);
        std::vector<cv::Mat> squares;
        std::vector<int> where;

        cv::Mat centre = resizedToShortSide(grey, centre_short_side, cv::INTER_LANCZOS4);
        int cx = (centre.cols - side) / 2, cy = (centre.rows - side) / 2;
        squares.push_back(centre(cv::Rect(cx, cy, side, side)));
        where.insert(where.end(), {cx, cy});

        if (text_squares > 0) {
            cv::Mat text = resizedToShortSide(grey, text_short_side, cv::INTER_AREA);
            for (const cv::Point &p : densestSquares(text, text_squares)) {
                squares.push_back(text(cv::Rect(p.x, p.y, side, side)));
                where.insert(where.end(), {p.x, p.y});
            }
        }
        const int n = static_cast<int>(squares.size()), plane = side * side;
        std::vector<float> input(static_cast<size_t>(n) * 3 * plane);
        for (int i = 0; i < n; i++) normalise(squares[i], input.data() + static_cast<size_t>(i) * 3 * plane);
        if (tensor != nullptr) std::memcpy(tensor, input.data(), sizeof(float) * input.size());
        std::copy(where.begin(), where.end(), origins);
        *count = n;
        *classes = net->model != nullptr ? net->model->forward(input.data(), n, probabilities)
                                         : forward(net->net, input.data(), n, probabilities);
        return 1;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error in the classifier");
    }
    return 0;
}
