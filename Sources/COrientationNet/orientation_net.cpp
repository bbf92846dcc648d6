// The classifier's model behind COrientationNet.h, run by onnxruntime (opened with dlopen).
// Exceptions never cross into Swift: each entry point catches them and writes the message.
#include "COrientationNet.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>

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

// One model in one session of one thread: no thread pool, so it runs on the caller's thread;
// callers on several threads may run it at once (onnxruntime allows concurrent runs of a session,
// and `forward` keeps no state between calls).
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
                // No arena and no memory pattern: they keep the largest batch's buffers (of all
                // the workers' runs at once, as they share the session) for the session's life,
                // which costs more than allocating per run (six squares of 224 pixels).
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
    ort::Model *model = nullptr;
    std::string runtime;

    ~docorient_net() { delete model; }
};

namespace {

void report(char *error, size_t size, const char *what) {
    if (error != nullptr && size > 0) std::snprintf(error, size, "%s", what);
}

}  // namespace

extern "C" docorient_net *docorient_net_load(const char *path, const char *runtime, char *error, size_t size) {
    try {
        if (runtime == nullptr) throw std::invalid_argument("no onnxruntime library given");
        auto *holder = new docorient_net;
        try {
            holder->model = new ort::Model(ort::Runtime::open(runtime), path);
            holder->runtime = holder->model->version();
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

extern "C" int docorient_net_forward(
    docorient_net *net, float *tensor, int count, float *probabilities, int *classes, char *error, size_t size) {
    try {
        if (count <= 0) throw std::invalid_argument("no squares to classify");
        *classes = net->model->forward(tensor, count, probabilities);
        return 1;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error in the classifier");
    }
    return 0;
}
