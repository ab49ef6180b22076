#include "cuda/retire.hpp"

namespace nbl {

void retire_after(BuildQueue& queue, cudaStream_t stream, RetiredObjects objects) {
  if (objects.empty()) return;
  auto reached = std::make_shared<CudaEvent>(cudaEventDisableTiming);
  reached->record(stream);
  auto held = std::make_shared<RetiredObjects>(std::move(objects));
  queue.retire([reached, held] {
    reached->synchronize();  // nothing on the stream uses them any more
    const IdleRelease idle;  // memory freed without waiting for the GPU, modules kept loaded for reuse
    held->clear();
  });
}

}  // namespace nbl
