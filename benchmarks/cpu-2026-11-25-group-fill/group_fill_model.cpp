// How full the group walk's slots are: a CPU model of the force groups of the Morton build
// (cuda/kernels/bh_groups.cu) on a scene's bodies, without a GPU. Each lane of a warp holds
// group size / 32 bodies (slots); a group of 70 with groups of 96 fills two slots and 6 lanes' third.
// Prints the share of slot evaluations that serve a real body: with every slot evaluated, with the
// slots a group fills (bh_fit_slots on main), and with a last slot of at most 16 bodies split across
// columns of lanes (branch split-last-slot). Not part of the build; see runs.log for the command.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/scenes.hpp"

using namespace nbl;

namespace {

std::uint64_t spread(std::uint64_t v) {  // 21 bits, two zero bits between each
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

std::vector<std::uint64_t> keys;  // sorted Morton keys
int group_size;
std::vector<int> groups;  // bodies per group

// A cell of keys [b, e) at `level` (3 bits a level from the top) with more bodies than a group: its
// children are packed into runs in octant order, as bh_make_groups packs them.
void cut(int b, int e, int level) {
  if (level == 21) {  // the deepest cell: runs of the group size
    for (int s = b; s < e; s += group_size) groups.push_back(std::min(group_size, e - s));
    return;
  }
  const int shift = 3 * (20 - level);
  int begin[8], end[8], s = b;
  for (int o = 0; o < 8; ++o) {
    begin[o] = s;
    while (s < e && static_cast<int>((keys[s] >> shift) & 7) == o) ++s;
    end[o] = s;
  }
  unsigned dense = 0;
  for (int o = 0; o < 8; ++o)
    if (end[o] - begin[o] > group_size) dense |= 1u << o;
  auto block_holds_dense = [&](int low, int high) {
    for (int k = 0; k < 8; ++k)
      if ((dense >> k & 1) && (k & low) == low && (k & ~high & 7) == 0) return true;
    return false;
  };
  int run = 0, low = 7, high = 0;
  for (int o = 0; o < 8; ++o) {
    const int size = end[o] - begin[o];
    if (!size) continue;
    const bool reaches_dense = run > 0 && block_holds_dense(low & o, high | o);
    if (size > group_size || run + size > group_size || reaches_dense) {
      if (run) groups.push_back(run);
      run = 0, low = 7, high = 0;
    }
    if (size <= group_size) {
      run += size, low &= o, high |= o;
    } else {
      cut(begin[o], end[o], level + 1);
    }
  }
  if (run) groups.push_back(run);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s N GROUP_SIZE [collision]\n", argv[0]);
    return 2;
  }
  const int n = std::atoi(argv[1]);
  group_size = std::atoi(argv[2]);
  const Bodies bodies = make_scene(argc > 3 ? Scene::collision : Scene::plummer, n, 1);
  const std::vector<float>* axis[3] = {&bodies.x, &bodies.y, &bodies.z};
  float lo[3], hi[3], extent = 0;
  for (int a = 0; a < 3; ++a) {
    lo[a] = *std::min_element(axis[a]->begin(), axis[a]->end());
    hi[a] = *std::max_element(axis[a]->begin(), axis[a]->end());
    extent = std::max(extent, hi[a] - lo[a]);
  }
  keys.resize(n);
  for (int i = 0; i < n; ++i) {
    std::uint64_t k = 0;
    for (int a = 0; a < 3; ++a) {
      const double f = ((*axis[a])[i] - lo[a]) / extent;
      k |= spread(std::min<std::uint64_t>(2097151, static_cast<std::uint64_t>(f * 2097152))) << a;  // x bit 0, as bh_morton.cu
    }
    keys[i] = k;
  }
  std::sort(keys.begin(), keys.end());
  cut(0, n, 0);
  double served = 0, every = 0, fitted = 0, split = 0;
  int by_slots[4] = {0, 0, 0, 0};
  for (const int g : groups) {
    served += g;
    every += group_size;
    const int slots = (g + 31) / 32, full = g / 32, rest = g % 32;
    fitted += 32 * slots;
    int width = 1;
    while (width < rest) width *= 2;
    split += 32 * full + (rest == 0 ? 0 : rest > 16 ? 32 : width);
    ++by_slots[slots - 1];
  }
  std::printf("n %d, groups of %d: %zu groups, %.1f bodies on average; filled with slots of 1/2/3/4: %d %d %d %d\n", n,
              group_size, groups.size(), served / groups.size(), by_slots[0], by_slots[1], by_slots[2], by_slots[3]);
  std::printf("useful share of slot evaluations: every slot %.3f, fit slots %.3f, last slot split %.3f\n",
              served / every, served / fitted, served / split);
}
