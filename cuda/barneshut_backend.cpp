#include "cuda/barneshut_backend.hpp"

#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <sstream>

#include "cuda/barneshut_variant.hpp"
#include "cuda/bh_primitives.hpp"
#include "cuda/buffer.hpp"
#include "cuda/device.hpp"
#include "cuda/kernel_engine.hpp"
#include "cuda/kernels/bh_tree.hpp"
#include "cuda/stage_timer.hpp"
#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

namespace {

constexpr int kBoundsThreads = 512;  // bh_bbox.cu's default block
constexpr int kStreamThreads = 256;  // the regular streaming kernels (integrate, Morton keys, ...)
// Largest n the 32-bit ids and the child array (8 ints per cell) can address with room to spare.
constexpr std::size_t kMaxBodies = std::size_t{1} << 27;

bool same_code(const BarnesHutVariant& a, const BarnesHutVariant& b) {
  return a.bounding_box.same_code(b.bounding_box) && a.build.same_code(b.build) &&
         a.summarize.same_code(b.summarize) && a.sort_bodies.same_code(b.sort_bodies) && a.force.same_code(b.force) &&
         a.integrate.same_code(b.integrate) && a.leaf_capacity == b.leaf_capacity && a.sort == b.sort;
}

int div_up(std::size_t a, std::size_t b) { return static_cast<int>((a + b - 1) / b); }

class BarnesHutBackend final : public Backend {
 public:
  explicit BarnesHutBackend(const Settings& settings) : engine_(kernel_config_for(settings.kernels_dir)) {
    std::string why;
    auto device = query_device(&why);
    if (!device) throw Error("the GPU Barnes-Hut backend needs a CUDA device: " + why);
    device_ = *device;
    NBL_CUDA_CHECK(cudaSetDevice(device_.index));
    control_.resize(1);
    control_host_.resize(1);
    configure(settings);
  }

  std::string name() const override { return "Barnes-Hut on " + device_.name; }
  Algorithm algorithm() const override { return Algorithm::barneshut; }
  bool on_gpu() const override { return true; }
  std::size_t body_count() const override { return n_; }

  void configure(const Settings& settings) override {
    const bool softened = settings.softening.value_or(0.0) > 0.0;
    BarnesHutVariant variant = barneshut_variant(settings.toggles, softened);
    const bool recompile = !compiled_ || !same_code(variant, variant_);
    settings_ = settings;
    if (recompile) {
      compile(variant);
      variant_ = std::move(variant);
      compiled_ = true;
      acc_valid_ = false;  // a new force kernel: recompute before the next kick
    }
  }

  void set_bodies(const Bodies& bodies) override {
    const std::size_t n = bodies.size();
    if (n == 0) throw InputError("Barnes-Hut needs at least one body");
    if (n > kMaxBodies)
      throw InputError("the GPU Barnes-Hut backend handles at most " + std::to_string(kMaxBodies) + " bodies");
    allocate(n);
    std::vector<float4> node(n), vel(n);
    for (std::size_t i = 0; i < n; ++i) {
      node[i] = make_float4(bodies.x[i], bodies.y[i], bodies.z[i], bodies.mass[i]);
      vel[i] = make_float4(bodies.vx[i], bodies.vy[i], bodies.vz[i], 0.0f);
    }
    node_.upload(node.data(), n, stream_.get());
    vel_.upload(vel.data(), n, stream_.get());
    stream_.synchronize();
    scales_ = color_scales(bodies);
    acc_valid_ = false;
  }

  void get_bodies(Bodies& bodies) override {
    std::vector<float4> node(n_), vel(n_);
    if (n_) {
      node_.download(node.data(), n_, stream_.get());
      vel_.download(vel.data(), n_, stream_.get());
    }
    bodies.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      bodies.x[i] = node[i].x, bodies.y[i] = node[i].y, bodies.z[i] = node[i].z, bodies.mass[i] = node[i].w;
      bodies.vx[i] = vel[i].x, bodies.vy[i] = vel[i].y, bodies.vz[i] = vel[i].z;
    }
  }

  StepStats step() override {
    StepStats stats;
    if (n_ == 0) return stats;
    poll_reload(stats);
    if (!acc_valid_) {
      StepStats initial;
      forces(nullptr, initial);  // a(x) at the starting positions, for the first kick
      if (initial.non_finite) return initial;
      stats.notices = std::move(initial.notices);  // e.g. the pool grew while computing them
    }
    bh::Tree t = tree();
    timer_.begin(stream_.get());
    launch(*modules_.integrate, "bh_kick_drift", blocks(n_), kStreamThreads, 0, {&t});
    timer_.mark("integrate");
    forces(&timer_, stats, /*then_kick=*/true);
    return stats;
  }

  void compute_accelerations(Accelerations& out) override {
    if (n_ == 0) throw Error("no bodies to compute accelerations for");
    StepStats stats;
    forces(nullptr, stats);
    if (stats.non_finite) throw Error("the state holds NaN or inf values; no accelerations to compute");
    std::vector<float4> acc(n_);
    if (n_) acc_.download(acc.data(), n_, stream_.get());
    out.resize(n_);
    for (std::size_t i = 0; i < n_; ++i) out.x[i] = acc[i].x, out.y[i] = acc[i].y, out.z[i] = acc[i].z;
  }

  void write_vertices(VertexTarget target, ColorMode mode) override {
    if (n_ == 0) return;
    const bool want_rank = mode == ColorMode::body_index || mode == ColorMode::warp_id;
    bh::Tree t = tree();
    const int* rank = nullptr;
    if (want_rank && variant_.sort) {
      launch(*modules_.integrate, "bh_rank", blocks(n_), kStreamThreads, 0, {&t, &rank_ptr_});
      rank = rank_.data();
    }
    // Must match bh_integrate.cu's VertexScales.
    struct {
      float speed, acceleration, max_mass;
      int max_depth;
    } scales{scales_.speed, scales_.acceleration, scales_.max_mass, std::max(1, last_max_depth_)};
    int mode_index = static_cast<int>(mode);
    void* out = target.data;
    if (!target.on_device) {
      staging_.resize(vertex_buffer_bytes(n_));
      out = staging_.data();
    }
    float4* positions = static_cast<float4*>(out);
    float* keys = reinterpret_cast<float*>(static_cast<unsigned char*>(out) + vertex_color_key_offset(n_));
    launch(*modules_.integrate, "bh_write_vertices", blocks(n_), kStreamThreads, 0,
           {&t, &positions, &keys, &mode_index, &scales, &rank});
    if (!target.on_device) {
      staging_.download(static_cast<unsigned char*>(target.data), vertex_buffer_bytes(n_), stream_.get());
    } else {
      stream_.synchronize();
    }
  }

  std::vector<CellBox> tree_cells(int max_depth) override {
    if (n_ == 0 || max_depth < 0) return {};
    if (!acc_valid_) {
      StepStats stats;
      forces(nullptr, stats);
    }
    const bh::Control ctl = read_control();
    const int first = variant_.morton_build ? 0 : ctl.bottom - static_cast<int>(n_);
    const int last = variant_.morton_build ? ctl.cells - 1 : ctl.root - static_cast<int>(n_);
    if (last < first) return {};
    const std::size_t count = static_cast<std::size_t>(last - first + 1);
    std::vector<int> depth(count);
    std::vector<float4> com(count);
    NBL_CUDA_CHECK(cudaMemcpyAsync(depth.data(), depth_.data() + first, count * sizeof(int), cudaMemcpyDeviceToHost,
                                   stream_.get()));
    NBL_CUDA_CHECK(cudaMemcpyAsync(com.data(), node_.data() + n_ + first, count * sizeof(float4),
                                   cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    // A cell's centre of mass lies inside the cell, so snapping it to the grid of the cell's level
    // recovers the cell's box (cell centres are not stored: kernel 2 recomputes them on the way down).
    const float lo[3] = {ctl.root_x - 0.5f * ctl.root_size, ctl.root_y - 0.5f * ctl.root_size,
                         ctl.root_z - 0.5f * ctl.root_size};
    std::vector<CellBox> boxes;
    for (std::size_t c = 0; c < count; ++c) {
      if (depth[c] > max_depth) continue;
      const float size = std::ldexp(ctl.root_size, -depth[c]);
      const float p[3] = {com[c].x, com[c].y, com[c].z};
      CellBox box{};
      for (int k = 0; k < 3; ++k) {
        const float cell = std::floor((p[k] - lo[k]) / size);
        box.center[k] = lo[k] + (cell + 0.5f) * size;
      }
      box.half_size = 0.5f * size;
      box.depth = depth[c];
      boxes.push_back(box);
    }
    return boxes;
  }

  TreeCheck check_tree() {
    TreeCheck check;
    if (n_ == 0) return check;
    StepStats stats;
    forces(nullptr, stats);
    const bh::Control ctl = read_control();
    const int n = static_cast<int>(n_);
    const std::vector<float4> node = node_.to_host(stream_.get());
    const std::vector<int> child = child_.to_host(stream_.get());
    const std::vector<int> depth = depth_.to_host(stream_.get());
    const std::vector<int> count = count_.to_host(stream_.get());
    const std::vector<int> start = start_.to_host(stream_.get());
    const std::vector<int> sorted = sorted_.to_host(stream_.get());
    const std::vector<int> next = next_.to_host(stream_.get());
    const int lo = variant_.morton_build ? n : ctl.bottom;
    const int hi = variant_.morton_build ? n + ctl.cells - 1 : ctl.root;
    check.cells = hi - lo + 1;
    auto problem = [&](const std::string& p) {
      if (check.problems.size() < 20) check.problems.push_back(p);
    };
    std::vector<int> seen(n_, 0);
    struct Sum {
      double m = 0, x = 0, y = 0, z = 0;
      long long count = 0;
    };
    // Post-order over an explicit stack: children's sums first.
    std::vector<Sum> sums(static_cast<std::size_t>(std::max(0, hi - lo + 1)));
    std::vector<std::pair<int, bool>> stack{{ctl.root, false}};
    while (!stack.empty()) {
      auto [c, expanded] = stack.back();
      stack.pop_back();
      if (c < lo || c > hi) {
        problem("cell id " + std::to_string(c) + " outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
        continue;
      }
      const int* slots = &child[static_cast<std::size_t>(c - n) * 8];
      const bool max_depth_leaf = depth[c - n] >= bh::kMaxDepth;
      if (!expanded) {
        stack.push_back({c, true});
        for (int j = 0; j < 8; ++j) {
          if (slots[j] >= n) {
            stack.push_back({slots[j], false});
            if (depth[slots[j] - n] != depth[c - n] + 1)
              problem("cell " + std::to_string(slots[j]) + " is not one level below its parent");
          }
        }
        continue;
      }
      Sum s;       // the subtree in double, from the bodies up: the counts and the root's figures
      Sum local;   // what this cell should hold given its children's stored (float) values
      long long direct_bodies = 0;  // bodies this cell sums itself (float rounding grows with them)
      auto add = [](Sum& to, double m, double x, double y, double z) {
        to.m += m, to.x += m * x, to.y += m * y, to.z += m * z;
      };
      auto add_body = [&](int b) {
        if (b < 0 || b >= n) return problem("bad body id " + std::to_string(b));
        ++direct_bodies;
        ++seen[b];
        const float4 p = node[b];
        add(s, p.w, p.x, p.y, p.z);
        add(local, p.w, p.x, p.y, p.z);
        ++s.count;
      };
      if (variant_.morton_build && max_depth_leaf && count[c - n] > 8) {
        for (int k = 0; k < count[c - n]; ++k) add_body(sorted[start[c - n] + k]);  // beyond the 8 slots
      } else {
        for (int j = 0; j < 8; ++j) {
          const int id = slots[j];
          if (id == bh::kNull) continue;
          if (id >= n) {
            const Sum& cs = sums[static_cast<std::size_t>(id - lo)];
            s.m += cs.m, s.x += cs.x, s.y += cs.y, s.z += cs.z, s.count += cs.count;
            add(local, node[id].w, node[id].x, node[id].y, node[id].z);
          } else {
            for (int b = id; b >= 0; b = variant_.morton_build ? -1 : next[b]) add_body(b);
          }
        }
      }
      sums[static_cast<std::size_t>(c - lo)] = s;
      const float4 cell = node[c];
      if (count[c - n] != s.count)
        problem("cell " + std::to_string(c) + " counts " + std::to_string(count[c - n]) + " bodies, its children " +
                std::to_string(s.count));
      // Float sums: a cell may differ from its children by a few roundings per term it adds up.
      const double mass_tolerance = (1e-6 + 1.2e-7 * static_cast<double>(direct_bodies)) * std::max(1e-30, local.m);
      if (std::fabs(cell.w - local.m) > mass_tolerance)
        problem("cell " + std::to_string(c) + " mass " + std::to_string(cell.w) + " != its children's " +
                std::to_string(local.m));
      if (local.m > 0) {
        const double tolerance = 1e-4 * ctl.root_size;
        if (std::fabs(cell.x - local.x / local.m) > tolerance || std::fabs(cell.y - local.y / local.m) > tolerance ||
            std::fabs(cell.z - local.z / local.m) > tolerance)
          problem("cell " + std::to_string(c) + " centre of mass differs from its children's");
      }
    }
    for (int b = 0; b < n; ++b)
      if (seen[b] != 1) problem("body " + std::to_string(b) + " appears " + std::to_string(seen[b]) + " times in the tree");
    if (variant_.sort) {
      std::vector<int> hits(n_, 0);
      for (int b : sorted)
        if (b >= 0 && b < n) ++hits[b];
      for (int b = 0; b < n; ++b)
        if (hits[b] != 1) {
          problem("the tree order lists body " + std::to_string(b) + " " + std::to_string(hits[b]) + " times");
          break;
        }
    }
    if (modules_.groups) {
      const std::vector<int2> groups = groups_.to_host(stream_.get());
      std::vector<int> in_group(n_, 0);
      for (int g = 0; g < ctl.groups; ++g) {
        if (groups[g].y < 1 || groups[g].y > bh::kGroupSize) problem("group " + std::to_string(g) + " has " + std::to_string(groups[g].y) + " bodies");
        for (int k = groups[g].x; k < groups[g].x + groups[g].y; ++k)
          if (k >= 0 && k < n) ++in_group[sorted[k]];
      }
      for (int b = 0; b < n; ++b)
        if (in_group[b] != 1) {
          problem("body " + std::to_string(b) + " is in " + std::to_string(in_group[b]) + " force groups");
          break;
        }
    }
    const Sum& root = sums[static_cast<std::size_t>(ctl.root - lo)];
    check.root_mass = root.m;
    check.root_count = root.count;
    if (root.m > 0) {
      check.root_center_of_mass[0] = node[ctl.root].x;
      check.root_center_of_mass[1] = node[ctl.root].y;
      check.root_center_of_mass[2] = node[ctl.root].z;
    }
    return check;
  }

  std::vector<KernelInfo> kernel_info() const override {
    std::vector<KernelInfo> info;
    auto add = [&](const Slot& slot, std::initializer_list<const char*> entries) {
      if (!slot) return;
      for (const char* e : entries) {
        KernelInfo k = slot->program().kernel_info(e);
        if (slot.watched->reload_failed()) {
          k.reload_failed = true;
          k.compile_log = slot.watched->failure_log();
        }
        info.push_back(std::move(k));
      }
    };
    add(modules_.force, {"bh_force"});
    add(modules_.bounding_box, {"bh_bounding_box"});
    if (variant_.morton_build) {
      add(modules_.build, {"bh_morton_keys", "bh_radix_tree", "bh_octree_count", "bh_octree_emit",
                           "bh_octree_attach", "bh_octree_summarize"});
    } else {
      add(modules_.build, {"bh_build_insert"});
      add(modules_.summarize, {"bh_summarize"});
      add(modules_.sort, {"bh_sort"});
    }
    add(modules_.groups, {"bh_make_groups"});
    add(modules_.integrate, {"bh_kick_drift", "bh_kick"});
    return info;
  }

 private:
  // One kernel source followed on disk (hot reload) and the module it compiled to.
  struct Slot {
    std::unique_ptr<WatchedProgram> watched;
    std::unique_ptr<KernelModule> module;
    explicit operator bool() const { return static_cast<bool>(module); }
    const KernelModule& operator*() const { return *module; }
    const KernelModule* operator->() const { return module.get(); }
  };
  struct Modules {
    Slot bounding_box, build, summarize, sort, groups, force, integrate;
    template <typename F>
    void for_each(F f) {
      for (Slot* slot : {&bounding_box, &build, &summarize, &sort, &groups, &force, &integrate})
        if (*slot) f(*slot);
    }
  };

  Slot load(const KernelSource& source) {
    Slot slot;
    slot.watched = std::make_unique<WatchedProgram>(engine_, source);
    slot.module = std::make_unique<KernelModule>(slot.watched->current());
    return slot;
  }

  // Hot reload (DESIGN.md, kernel variants): an edited kernel file is recompiled; the new module
  // must reproduce the direct sum as well as the old one did before it replaces it. A file that no
  // longer compiles, or a module that computes wrong forces, leaves the previous module running and
  // its log in kernel_info().
  void poll_reload(StepStats& stats) {
    modules_.for_each([&](Slot& slot) {
      const auto change = slot.watched->poll();
      const std::string file = slot.watched->source().file;
      if (change == WatchedProgram::Change::failed) {
        stats.notices.push_back(file + " does not compile; the previous version keeps running (see the compiler log)");
        return;
      }
      if (change != WatchedProgram::Change::compiled) return;
      const ForceError before = sampled_force_error();
      std::unique_ptr<KernelModule> previous = std::move(slot.module);
      try {
        slot.module = std::make_unique<KernelModule>(slot.watched->candidate());
        configure_launch_limits();
        const ForceError after = sampled_force_error();
        const bool good = !after.non_finite && after.p99 <= std::max(2.0 * before.p99, 0.005);
        if (good) {
          slot.watched->accept();
          stats.notices.push_back(file + " reloaded: force error p99 " + std::to_string(after.p99) + " (was " +
                                  std::to_string(before.p99) + ")");
          return;
        }
        slot.watched->reject("rejected after reloading " + file + ": force error p99 " + std::to_string(after.p99) +
                             (after.non_finite ? " with NaN/inf" : "") + " against " + std::to_string(before.p99) +
                             " before");
      } catch (const std::exception& e) {
        slot.watched->reject(std::string("rejected after reloading ") + file + ": " + e.what());
      }
      slot.module = std::move(previous);
      configure_launch_limits();
      acc_valid_ = false;
      stats.notices.push_back(file + " was edited but its forces are wrong; the previous version keeps running");
    });
  }

  // Forces of the current modules on a sample of bodies against the double-precision direct sum.
  ForceError sampled_force_error() {
    Bodies bodies;
    get_bodies(bodies);
    Accelerations all;
    compute_accelerations(all);
    const auto indices = sample_indices(n_, 256, 17);
    return force_error(select(all, indices), reference_accelerations(bodies, std::sqrt(tree().eps2), indices));
  }

  void compile(const BarnesHutVariant& v) {
    Modules m;
    m.bounding_box = load(v.bounding_box);
    m.build = load(v.build);
    if (!v.morton_build) {
      m.summarize = load(v.summarize);
      m.sort = load(v.sort_bodies);
    }
    if (!v.groups.file.empty()) m.groups = load(v.groups);
    m.force = load(v.force);
    m.integrate = load(v.integrate);
    modules_ = std::move(m);
    variant_for_limits_ = v;
    configure_launch_limits();
  }

  // Shared-memory limits and persistent grid sizes of the modules loaded now.
  void configure_launch_limits() {
    const BarnesHutVariant& v = variant_for_limits_;
    Modules& m = modules_;
    if (v.force_shared_bytes > 48 * 1024) {
      if (v.force_shared_bytes > device_.shared_per_block_optin)
        throw InputError("force kernel needs " + std::to_string(v.force_shared_bytes) +
                         " bytes of shared memory per block; this GPU allows " +
                         std::to_string(device_.shared_per_block_optin) + "; use a smaller bh_block_size");
      NBL_CUDA_CHECK(cudaFuncSetAttribute(m.force->kernel("bh_force"), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(v.force_shared_bytes)));
    }
    // Kernels 3 and 4 wait on each other's results across the grid: every block must be resident.
    if (m.summarize) summarize_blocks_ = resident_blocks(*m.summarize, "bh_summarize", 256);
    if (m.sort) sort_blocks_ = resident_blocks(*m.sort, "bh_sort", 256);
    build_blocks_ = resident_blocks(*m.build, v.morton_build ? "bh_radix_tree" : "bh_build_insert",
                                    v.morton_build ? kStreamThreads : 512);
  }

  int resident_blocks(const KernelModule& m, const char* entry, int threads) const {
    int per_sm = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, m.kernel(entry), threads, 0) != cudaSuccess ||
        per_sm < 1) {
      cudaGetLastError();
      per_sm = 1;
    }
    return per_sm * device_.sm_count;
  }

  int blocks(std::size_t n, int threads = kStreamThreads) const {
    return std::max(1, std::min(div_up(n, threads), device_.sm_count * 32));
  }

  void allocate(std::size_t n) {
    n_ = n;
    vel_.resize(n);
    acc_.resize(n);
    sorted_.resize(n);
    next_.resize(n);
    body_depth_.resize(n);
    groups_.resize(n);
    rank_.resize(n);
    rank_ptr_ = rank_.data();
    bounds_blocks_ = std::max(1, std::min(div_up(n, kBoundsThreads), device_.sm_count * 2));
    block_bounds_.resize(static_cast<std::size_t>(bounds_blocks_) * 6);
    const std::size_t m = std::max<std::size_t>(n, 2) - 1;
    keys_unsorted_.resize(n);
    keys_.resize(n);
    ids_unsorted_.resize(n);
    first_.resize(m);
    last_.resize(m);
    prefix_bits_.resize(m);
    cells_.resize(m);
    offset_.resize(m);
    parent_.resize(2 * n - 1);
    moments_.resize(n);
    sums_.resize(n);
    max_cells_ = 0;
    node_ = DeviceBuffer<float4>();
    std::size_t pool = n + n / 2 + 64;
    // A deliberately small first pool lets tests exercise the grow-and-rebuild path.
    if (const char* env = std::getenv("NBODYLAB_BH_INITIAL_CELLS"); env && *env) pool = std::strtoul(env, nullptr, 10);
    set_cell_pool(static_cast<int>(std::clamp<std::size_t>(pool, 1, kMaxBodies)));
  }

  // Grows (or first sizes) the cell pool, keeping the bodies at the front of `node`.
  void set_cell_pool(int cells) {
    if (cells <= max_cells_) return;
    DeviceBuffer<float4> node(n_ + static_cast<std::size_t>(cells));
    if (node_.size() >= n_ && n_)
      NBL_CUDA_CHECK(cudaMemcpyAsync(node.data(), node_.data(), n_ * sizeof(float4), cudaMemcpyDeviceToDevice,
                                     stream_.get()));
    node_ = std::move(node);
    child_.resize(static_cast<std::size_t>(cells) * 8);
    depth_.resize(cells);
    count_.resize(cells);
    start_.resize(cells);
    max_cells_ = cells;
  }

  bh::Tree tree() {
    bh::Tree t{};
    t.n = static_cast<int>(n_);
    t.max_cells = max_cells_;
    t.node = node_.data();
    t.vel = vel_.data();
    t.acc = acc_.data();
    t.child = child_.data();
    t.depth = depth_.data();
    t.count = count_.data();
    t.start = start_.data();
    t.sorted = sorted_.data();
    t.next = next_.data();
    t.body_depth = body_depth_.data();
    t.groups = groups_.data();
    t.block_bounds = block_bounds_.data();
    t.ctl = control_.data();
    t.dt = static_cast<float>(settings_.dt.value_or(0.0));
    const double eps = settings_.softening.value_or(0.0);
    t.eps2 = static_cast<float>(eps * eps);
    t.theta = static_cast<float>(settings_.opening_angle);
    return t;
  }

  bh::Morton morton() {
    bh::Morton m{};
    m.keys = keys_.data();
    m.first = first_.data();
    m.last = last_.data();
    m.prefix_bits = prefix_bits_.data();
    m.parent = parent_.data();
    m.cells = cells_.data();
    m.offset = offset_.data();
    m.sums = sums_.data();
    return m;
  }

  void launch(const KernelModule& m, const char* entry, int grid, int threads, std::size_t shared,
              std::initializer_list<void*> args) {
    std::vector<void*> a(args);
    NBL_CUDA_CHECK(cudaLaunchKernel(m.kernel(entry), dim3(grid), dim3(threads), a.data(), shared, stream_.get()));
    NBL_CUDA_CHECK_LAUNCH();
  }

  void mark(StageTimer* timer, const char* stage) {
    if (timer) timer->mark(stage);
  }

  // Kernels 1-4: the tree for the current positions.
  void build_tree(StageTimer* timer) {
    NBL_CUDA_CHECK(cudaMemsetAsync(control_.data(), 0, sizeof(bh::Control), stream_.get()));
    bh::Tree t = tree();
    launch(*modules_.bounding_box, "bh_bounding_box", bounds_blocks_, kBoundsThreads, 0, {&t});
    mark(timer, "bounding box");
    if (variant_.morton_build) {
      bh::Morton m = morton();
      int n = static_cast<int>(n_);
      unsigned long long* keys_in = keys_unsorted_.data();
      int* ids_in = ids_unsorted_.data();
      launch(*modules_.build, "bh_morton_keys", blocks(n_), kStreamThreads, 0, {&t, &keys_in, &ids_in});
      primitives_.sort_pairs(keys_in, keys_.data(), ids_in, sorted_.data(), n, 63, stream_.get());
      child_.fill_bytes(0xff, stream_.get());  // every slot starts kNull
      if (n == 1) {
        launch(*modules_.build, "bh_octree_single", 1, 1, 0, {&t});
      } else {
        launch(*modules_.build, "bh_radix_tree", blocks(n_ - 1), kStreamThreads, 0, {&n, &m});
        launch(*modules_.build, "bh_octree_count", blocks(n_ - 1), kStreamThreads, 0, {&n, &m});
        primitives_.exclusive_sum(cells_.data(), offset_.data(), n - 1, stream_.get());
        launch(*modules_.build, "bh_octree_emit", blocks(n_ - 1), kStreamThreads, 0, {&t, &m});
        launch(*modules_.build, "bh_octree_attach", blocks(n_), kStreamThreads, 0, {&t, &m});
      }
      mark(timer, "tree build");
      if (n > 1) {
        bh::Morton gather = m;
        gather.sums = moments_.data();
        launch(*modules_.build, "bh_gather_moments", blocks(n_), kStreamThreads, 0, {&t, &gather});
        primitives_.inclusive_sum(moments_.data(), sums_.data(), n, stream_.get());
        launch(*modules_.build, "bh_octree_summarize", blocks(n_), kStreamThreads, 0, {&t, &m});
      }
      mark(timer, "summarize");
    } else {
      next_.fill_bytes(0xff, stream_.get());  // no chains yet
      launch(*modules_.build, "bh_build_insert", build_blocks_, 512, 0, {&t});
      mark(timer, "tree build");
      launch(*modules_.summarize, "bh_summarize", summarize_blocks_, 256, 0, {&t});
      mark(timer, "summarize");
      launch(*modules_.sort, "bh_sort", sort_blocks_, 256, 0, {&t});
      mark(timer, "sort");
    }
    if (modules_.groups) {
      int chained = variant_.morton_build ? 0 : 1;
      launch(*modules_.groups, "bh_make_groups", blocks(n_), kStreamThreads, 0, {&t, &chained});
      mark(timer, "groups");
    }
  }

  // Kernel 5 (and 6's second half-kick when stepping), with recovery: a cell pool that ran out is
  // grown and the tree rebuilt; a wait that hit its bound is retried once, then reported.
  void forces(StageTimer* timer, StepStats& stats, bool then_kick = false) {
    bool retried_spin = false;
    for (int attempt = 0;; ++attempt) {
      if (timer && attempt > 0) timer->begin(stream_.get());
      build_tree(timer);
      bh::Tree t = tree();
      const int force_blocks = div_up(n_, variant_.force_block);
      launch(*modules_.force, "bh_force", force_blocks, variant_.force_block, variant_.force_shared_bytes, {&t});
      mark(timer, "force");
      if (then_kick) {
        launch(*modules_.integrate, "bh_kick", blocks(n_), kStreamThreads, 0, {&t});
        mark(timer, "integrate");
      }
      if (timer) timer->finish(stats);
      const bh::Control ctl = read_control();
      if (ctl.error & bh::kErrorNonFinite) {
        stats.non_finite = true;
        stats.notices.push_back("the state holds NaN or inf values: the simulation blew up (try a smaller dt)");
        return;
      }
      if (ctl.error & bh::kErrorPoolExhausted) {
        // The Morton build knows how many cells it needs; the insertion build only that it ran out.
        const int needed = variant_.morton_build ? ctl.cells + ctl.cells / 4 + 64
                                                 : std::max(2 * max_cells_, static_cast<int>(n_ + n_ / 2 + 64));
        if (attempt >= 8 || static_cast<std::size_t>(needed) > 8 * kMaxBodies)
          throw Error("the octree needs more cells than the pool can hold (" + std::to_string(needed) + ")");
        set_cell_pool(needed);
        stats.notices.push_back("cell pool grown to " + std::to_string(max_cells_) + " cells; tree rebuilt");
        continue;
      }
      if (ctl.error & bh::kErrorSpinLimit) {
        if (retried_spin)
          throw Error("the tree build did not finish: a wait exceeded its bound twice (" + variant_.label + ")");
        retried_spin = true;
        stats.notices.push_back("a tree-build wait exceeded its bound; tree rebuilt");
        continue;
      }
      record(ctl, stats);
      acc_valid_ = true;
      return;
    }
  }

  bh::Control read_control() {
    NBL_CUDA_CHECK(cudaMemcpyAsync(control_host_.data(), control_.data(), sizeof(bh::Control),
                                   cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    return *control_host_.data();
  }

  void record(const bh::Control& ctl, StepStats& stats) {
    stats.interactions = static_cast<double>(ctl.interactions);
    stats.has_tree = true;
    TreeStats& tree = stats.tree;
    tree.max_depth = ctl.max_depth;
    last_max_depth_ = ctl.max_depth;
    tree.cells = variant_.morton_build ? ctl.cells : ctl.root - ctl.bottom + 1;
    tree.children_per_cell = tree.cells ? static_cast<double>(ctl.child_slots_used) / tree.cells : 0;
    tree.nodes_touched.min = ctl.touched_min == std::numeric_limits<int>::max() ? 0 : ctl.touched_min;
    tree.nodes_touched.max = ctl.touched_max;
    tree.nodes_touched.avg = n_ ? static_cast<double>(ctl.touched_sum) / static_cast<double>(n_) : 0;
    if (ctl.overflow_bodies > 0)
      stats.notices.push_back(std::to_string(ctl.overflow_bodies) +
                              " bodies share cells at the maximum depth (" + std::to_string(bh::kMaxDepth) +
                              "); such cells act as one point mass");
  }

  DeviceInfo device_;
  KernelEngine engine_;
  CudaStream stream_;
  StageTimer timer_;
  Settings settings_;
  BarnesHutVariant variant_, variant_for_limits_;
  bool compiled_ = false;
  Modules modules_;
  bh::Primitives primitives_;
  std::size_t n_ = 0;
  int max_cells_ = 0;
  int bounds_blocks_ = 1, build_blocks_ = 1, summarize_blocks_ = 1, sort_blocks_ = 1;
  DeviceBuffer<float4> node_, vel_, acc_;
  DeviceBuffer<int> child_, depth_, count_, start_, sorted_, next_, body_depth_, rank_;
  DeviceBuffer<int2> groups_;
  int* rank_ptr_ = nullptr;
  DeviceBuffer<float> block_bounds_;
  DeviceBuffer<bh::Control> control_;
  PinnedBuffer<bh::Control> control_host_;
  DeviceBuffer<unsigned long long> keys_unsorted_, keys_;
  DeviceBuffer<int> ids_unsorted_, first_, last_, prefix_bits_, parent_, cells_, offset_;
  DeviceBuffer<double4_32a> moments_, sums_;
  DeviceBuffer<unsigned char> staging_;
  ColorScales scales_;
  int last_max_depth_ = 1;
  bool acc_valid_ = false;
};

}  // namespace

std::unique_ptr<Backend> make_barneshut_backend(const Settings& settings) {
  return std::make_unique<BarnesHutBackend>(settings);
}

TreeCheck check_barneshut_tree(Backend& backend) {
  auto* bh = dynamic_cast<BarnesHutBackend*>(&backend);
  if (!bh) throw Error("check_barneshut_tree needs the GPU Barnes-Hut backend");
  return bh->check_tree();
}

std::size_t barneshut_bytes_per_body() {
  // Bodies: node + vel + acc (48) + sorted, next, depth, rank (16). Cells (pool of 1.5 per body):
  // node 16 + children 32 + depth, count, start 12 = 60 x 1.5 = 90. Morton scratch: keys 16, ids 4,
  // radix nodes 5 x 4 + parents 8, moments 64.
  return 48 + 16 + 90 + 16 + 4 + 28 + 64;
}

}  // namespace nbl
