// OpenCV's dnn module behind COrientationNet.h. Exceptions never cross into Swift: each entry
// point catches them and writes the message.
#include "COrientationNet.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

struct docorient_net {
    cv::dnn::Net net;
};

namespace {

void report(char *error, size_t size, const char *what) {
    if (error != nullptr && size > 0) std::snprintf(error, size, "%s", what);
}

// ImageNet's mean and std, the normalisation PaddleClas trained the model with.
const float kMean[3] = {0.485f, 0.456f, 0.406f};
const float kStd[3] = {0.229f, 0.224f, 0.225f};

// The probabilities of `count` prepared squares.
void forward(cv::dnn::Net &net, const float *tensor, int count, float *probabilities) {
    int shape[4] = {count, 3, DOCORIENT_NET_SIDE, DOCORIENT_NET_SIDE};
    cv::Mat blob(4, shape, CV_32F, const_cast<float *>(tensor));
    net.setInput(blob);
    cv::Mat out = net.forward();
    if (out.total() != static_cast<size_t>(count) * DOCORIENT_NET_CLASSES)
        throw std::runtime_error("the model's output is not 4 classes per square");
    std::memcpy(probabilities, out.ptr<float>(), sizeof(float) * count * DOCORIENT_NET_CLASSES);
}

}  // namespace

extern "C" docorient_net *docorient_net_load(const char *path, char *error, size_t size) {
    try {
        cv::setNumThreads(1);
        auto *holder = new docorient_net{cv::dnn::readNetFromONNX(path)};
        holder->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        holder->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        return holder;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error loading the model");
    }
    return nullptr;
}

extern "C" void docorient_net_free(docorient_net *net) { delete net; }

extern "C" int docorient_net_classify(
    docorient_net *net, const uint8_t *pixels, int width, int height, size_t stride, int short_side,
    const int *origins, int count, float *probabilities, float *tensor, char *error, size_t size) {
    try {
        if (width <= 0 || height <= 0 || count <= 0 || short_side < DOCORIENT_NET_SIDE)
            throw std::invalid_argument("empty image, no square or a short side under the model's side");
        cv::Mat grey(height, width, CV_8UC1, const_cast<uint8_t *>(pixels), stride);
        // As the model's preprocessing (PaddleClas ResizeImage with resize_short): the factor from
        // the short side, each side rounded half away from zero.
        double factor = static_cast<double>(short_side) / std::min(width, height);
        int w = static_cast<int>(std::lround(width * factor));
        int h = static_cast<int>(std::lround(height * factor));
        cv::Mat resized;
        cv::resize(grey, resized, cv::Size(w, h), 0, 0, cv::INTER_LANCZOS4);
        const int side = DOCORIENT_NET_SIDE, plane = side * side;
        std::vector<float> input(static_cast<size_t>(count) * 3 * plane);
        for (int i = 0; i < count; i++) {
            int x = origins[2 * i], y = origins[2 * i + 1];
            if (x < 0 || y < 0 || x + side > w || y + side > h)
                throw std::invalid_argument("a square lies outside the resized image");
            float *square = input.data() + static_cast<size_t>(i) * 3 * plane;
            for (int row = 0; row < side; row++) {
                const uint8_t *line = resized.ptr<uint8_t>(y + row) + x;
                for (int col = 0; col < side; col++) {
                    float v = line[col] * (1.0f / 255.0f);
                    for (int c = 0; c < 3; c++) square[c * plane + row * side + col] = (v - kMean[c]) / kStd[c];
                }
            }
        }
        if (tensor != nullptr) std::memcpy(tensor, input.data(), sizeof(float) * input.size());
        forward(net->net, input.data(), count, probabilities);
        return 1;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error in the classifier");
    }
    return 0;
}

extern "C" int docorient_net_run(
    docorient_net *net, const float *tensor, int count, float *probabilities, char *error, size_t size) {
    try {
        forward(net->net, tensor, count, probabilities);
        return 1;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error in the classifier");
    }
    return 0;
}
