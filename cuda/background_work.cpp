#include "cuda/background_work.hpp"

#include "cuda/engine/build_queue.hpp"
#include "cuda/engine/sass_analysis.hpp"

namespace nbl {

void stop_background_work() {
  // Independent of each other (an analysis holds its own share of the program it reads): the order only
  // decides which wait comes first.
  shutdown_shared_build_queue();
  stop_code_analyses();
}

}  // namespace nbl
