// OpenCV's dnn module behind COrientationNet.h. Exceptions never cross into Swift: each entry
// point catches them and writes the message.
#include "COrientationNet.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <stdexcept>
#include <vector>

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

// The probabilities of `count` prepared squares, one square at a time: OpenCV 4.6 runs this model
// with a batch of one only (its squeeze-and-excitation blocks add a 1-row bias that its importer
// does not broadcast over a batch).
void forward(cv::dnn::Net &net, const float *tensor, int count, float *probabilities) {
    const size_t square = 3 * DOCORIENT_NET_SIDE * DOCORIENT_NET_SIDE;
    int shape[4] = {1, 3, DOCORIENT_NET_SIDE, DOCORIENT_NET_SIDE};
    for (int i = 0; i < count; i++) {
        cv::Mat blob(4, shape, CV_32F, const_cast<float *>(tensor + i * square));
        net.setInput(blob);
        cv::Mat out = net.forward();
        if (out.total() != DOCORIENT_NET_CLASSES) throw std::runtime_error("the model's output is not 4 classes");
        std::memcpy(probabilities + i * DOCORIENT_NET_CLASSES, out.ptr<float>(), sizeof(float) * DOCORIENT_NET_CLASSES);
    }
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

extern "C" docorient_net *docorient_net_load(const char *path, char *error, size_t size) {
    try {
        cv::setNumThreads(1);
        // Failures come back as messages through `error`; OpenCV's own log would repeat them on stderr.
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
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

extern "C" int docorient_net_read(
    docorient_net *net, const uint8_t *pixels, int width, int height, size_t stride, int centre_short_side,
    int text_short_side, int text_squares, float *probabilities, int *origins, int *count, float *tensor,
    char *error, size_t size) {
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
        forward(net->net, input.data(), n, probabilities);
        return 1;
    } catch (const std::exception &e) {
        report(error, size, e.what());
    } catch (...) {
        report(error, size, "unknown error in the classifier");
    }
    return 0;
}
