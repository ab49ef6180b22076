// A private X server for the window tests: starts Xvfb on a free display number (Xvfb picks it and
// reports it through -displayfd, so parallel test runs never collide), points DISPLAY at it, and
// stops exactly that server when the test is done. No xvfb-run, no xauth.
#pragma once
#include <string>
#include <sys/types.h>

namespace nbl::testing {

class XvfbServer {
 public:
  XvfbServer(int width = 1280, int height = 800);
  ~XvfbServer();
  XvfbServer(const XvfbServer&) = delete;
  XvfbServer& operator=(const XvfbServer&) = delete;

  // Whether the Xvfb program is on PATH (scripts/setup.sh installs it; a bare GPU box may lack it).
  static bool installed();

  bool running() const { return pid_ > 0 && !display_.empty(); }
  const std::string& display() const { return display_; }  // ":N"
  const std::string& problem() const { return problem_; }  // why it did not start

 private:
  pid_t pid_ = -1;
  std::string display_, problem_, previous_display_;
  bool had_display_ = false;
};

}  // namespace nbl::testing
