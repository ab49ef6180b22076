#include "app/core/teaching/allpairs_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <thread>
#include <chrono>

#include "cuda/allpairs/backend.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/sass_analysis.hpp"
#include "physics/gravity.hpp"
#include "sim/diagnostics.hpp"
#include "sim/error.hpp"
#include "sim/ladder.hpp"
#include "sim/scenes.hpp"

namespace nbl {

namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[128];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

std::string grid_text(const AllPairsLaunch& l) {
  return std::to_string(l.grid_i) + "x" + std::to_string(l.j_splits) + "x" + std::to_string(l.block_size);
}

double loop_instructions_per_interaction(const KernelInfo& info) {
  double bodies = 0, instructions = 0;
  for (const auto& [name, count] : info.instruction_mix) {
    if (name == "loop bodies") bodies = count;
    if (name == "loop instructions") instructions = count;
  }
  return bodies > 0 ? instructions / bodies : std::nan("");
}

struct Measured {
  double ms = std::nan("");  // per force pass over all n bodies (scaled up when a sample was timed)
  int runs = 0;
  std::size_t i_count = 0;  // bodies whose forces were timed
  bool validated = false;
  ForceError error;
  AllPairsLaunch launch;
  KernelInfo force;
  std::string variant;
  std::vector<std::string> notices;
};

// One scene on one backend; measures variants of it one after another.
class Harness {
 public:
  Harness(const AllPairsBenchOptions& options, std::size_t n)
      : options_(options),
        bodies_(make_scene(options.scene, n, options.seed)),
        softening_(options.softening.value_or(scene_defaults(options.scene, n).softening)) {
    std::string why;
    auto device = query_device(&why);
    if (!device) throw Error("the all-pairs bench needs a GPU: " + why);
    device_ = *device;
  }

  const DeviceInfo& device() const { return device_; }
  double softening() const { return softening_; }
  std::size_t n() const { return bodies_.size(); }

  Measured measure(const ToggleValues& toggles, bool single_thread_sample = true) {
    Settings s;
    s.algorithm = Algorithm::allpairs;
    s.body_count = static_cast<std::int64_t>(n());
    s.softening = softening_;
    s.dt = 1e-3;
    s.toggles = toggles;
    if (!backend_) {
      backend_ = std::make_unique<AllPairsBackend>(s);
      backend_->set_bodies(bodies_);
    } else {
      backend_->configure(s);
    }
    Measured m;
    m.variant = backend_->variant().description;
    m.notices = backend_->variant().notices;
    const std::size_t n_bodies = n();
    m.i_count = n_bodies;
    int repeats = options_.repeats;
    int warmups = options_.warmups;
    if (backend_->variant().single_thread && single_thread_sample) {
      m.i_count =
          std::clamp<std::size_t>(static_cast<std::size_t>(options_.single_thread_budget / n_bodies), 1, n_bodies);
      repeats = std::min(repeats, 3);  // one thread on one SM: nothing to warm up, nothing varies
      warmups = 0;
    }
    // The first pass: warm-up (module load, clocks) and an estimate of the time per pass.
    const auto first = backend_->time_force(0, 1, m.i_count);
    const double first_s = first.median_ms * 1e-3;
    if (first_s * repeats > options_.seconds_per_configuration)
      repeats = std::max(1, static_cast<int>(options_.seconds_per_configuration / std::max(first_s, 1e-9)));
    AllPairsBackend::ForceTiming t;
    if (warmups == 0 && repeats == 1) {
      t = first;
    } else {
      t = backend_->time_force(std::max(0, warmups - 1), repeats, m.i_count);
    }
    m.runs = static_cast<int>(t.ms.size());
    m.launch = t.launch;
    m.ms = t.median_ms * static_cast<double>(n_bodies) / static_cast<double>(m.i_count);
    m.force = backend_->kernel_info().front();
    // The SASS count comes from a worker (cuobjdump never runs on the lab's UI thread): wait for it here,
    // at most a few seconds.
    for (int tries = 0; tries < 50 && m.force.instructions_per_interaction == 0 && m.force.instruction_source.empty();
         ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      m.force = backend_->kernel_info().front();
    }
    if (options_.validation_sample > 0) {
      Accelerations acc;
      backend_->read_accelerations(acc);
      const auto sample =
          sample_indices(m.i_count, std::min(m.i_count, options_.validation_sample), options_.seed + 17);
      m.error = force_error(select(acc, sample), reference(sample));
      m.validated = true;
    }
    return m;
  }

  double interactions() const { return static_cast<double>(n()) * static_cast<double>(n()); }

 private:
  const Accelerations& reference(const std::vector<std::size_t>& sample) {
    auto it = references_.find(sample);
    if (it != references_.end()) return it->second;
    return references_[sample] = reference_accelerations(bodies_, softening_, sample);
  }

  const AllPairsBenchOptions& options_;
  Bodies bodies_;
  double softening_;
  DeviceInfo device_;
  std::unique_ptr<AllPairsBackend> backend_;
  std::map<std::vector<std::size_t>, Accelerations> references_;
};

void progress(const AllPairsBenchOptions& o, const std::string& line) {
  if (o.progress) std::fprintf(stderr, "%s\n", line.c_str());
}

void add_rate_cells(Table& t, const Measured& m, double interactions, const DeviceInfo& device) {
  const double per_s = interactions / (m.ms * 1e-3);
  const double flops = per_s * kFlopsPerInteraction;
  t.add_sci(per_s, 3).add(flops / 1e9, 1).add(100.0 * flops / device.fp32_peak_flops(), 1);
}

void add_error_cells(Table& t, const Measured& m) {
  if (!m.validated) {
    t.add_empty().add_empty();
  } else if (m.error.non_finite) {
    t.add(std::string("NaN/inf")).add(std::string("NaN/inf"));
  } else {
    t.add_sci(m.error.rms, 1).add_sci(m.error.max, 1);
  }
}

std::string tutorial_text(const LadderRung& r) {
  if (r.speedup_cc13 == 0 && r.speedup_cc20 == 0 && r.speedup_cc30 == 0) return "-";
  return format("%g / %g / %g", r.speedup_cc13, r.speedup_cc20, r.speedup_cc30);
}

std::string describe_bench(const AllPairsBenchOptions& o, const Harness& h) {
  return std::string(to_string(o.scene)) + " scene, n = " + std::to_string(h.n()) + ", softening " +
         format("%g", h.softening()) + ", seed " + std::to_string(o.seed) + ", " + h.device().name + " (" +
         std::to_string(h.device().sm_count) + " SMs, " + std::to_string(h.device().clock_mhz) + " MHz peak)";
}

}  // namespace

SampledRung time_single_thread_rung(const AllPairsBenchOptions& options) {
  AllPairsBenchOptions o = options;
  o.validation_sample = 0;
  Harness h(o, o.n);
  const Measured m = h.measure(ladder_toggles(0));
  return {m.ms, m.i_count, h.n()};
}

Table run_ladder(const AllPairsBenchOptions& options) {
  Harness h(options, options.n);
  std::optional<ClockMeasurement> clock;
  if (options.measure_clock) {
    progress(options, "ladder: measuring the SM clock under load...");
    clock = measure_sm_clock(0.5);
  }

  Table t(
      "All-pairs optimization ladder (Burtscher's CUDA optimization tutorial, Part I, and beyond): force pass per "
      "step");
  t.column("rung", "#")
      .column("name", "rung")
      .column("ms", "force ms")
      .column("runs", "runs")
      .column("speedup", "x prev")
      .column("cumulative", "x total")
      .column("interactions_per_s", "interactions/s")
      .column("gflops", "GFLOP/s")
      .column("peak_pct", "% peak");
  if (clock) t.column("peak_pct_clock", "% peak@clk");
  t.column("error_rms", "err rms")
      .column("error_max", "err max")
      .column("tutorial", "tutorial x (CC 1.3/2.0/3.0)")
      .column("registers", "regs")
      .column("spill_bytes", "spill B")
      .column("ptx_per_interaction", "PTX/int")
      .column("instructions_per_interaction", "instr/int")
      .column("issue_pct", "% issue")
      .column("grid", "grid")
      .column("variant", "variant");

  std::vector<Measured> measured;
  std::vector<double> ms;
  std::size_t last_kept = 0, best = 0;
  std::vector<std::size_t> base_of;
  for (std::size_t r = 0; r < kLadder.size(); ++r) {
    const LadderRung& rung = kLadder[r];
    const ToggleValues toggles = ladder_toggles(r);
    measured.push_back(h.measure(toggles));
    ms.push_back(measured.back().ms);
    base_of.push_back(r == 0 ? 0 : last_kept);
    if (toggles.is({"precision", "fp32"}) && ms[r] < ms[best]) best = r;
    progress(options, "ladder: " + std::to_string(r + 1) + "/" + std::to_string(kLadder.size()) + "  " +
                          std::string(rung.name) + "  " + format("%.3f ms", ms[r]));
    if (rung.kept) last_kept = r;
  }
  std::string sources;  // where the instruction counts come from
  auto emit = [&](const std::string& label, std::size_t r) {
    const LadderRung& rung = kLadder[r];
    const Measured& m = measured[r];
    const std::string name = label == "best" ? "best fp32: " + std::string(rung.name)
                                             : std::string(rung.name) + (rung.kept ? "" : " (side trip)");
    t.row().add(label).add(name).add(m.ms, 3).add(static_cast<double>(m.runs), 0);
    if (r == 0) t.add_empty();
    else t.add(ms[base_of[r]] / m.ms, 2);
    t.add(ms[0] / m.ms, 1);
    add_rate_cells(t, m, h.interactions(), h.device());
    if (clock) {
      const double ceiling = 2.0 * h.device().sm_count * h.device().fp32_lanes_per_sm * clock->sm_clock_mhz * 1e6;
      t.add(100.0 * h.interactions() / (m.ms * 1e-3) * kFlopsPerInteraction / ceiling, 1);
    }
    add_error_cells(t, m);
    t.add(tutorial_text(rung))
        .add(static_cast<double>(m.force.registers), 0)
        .add(static_cast<double>(std::max(m.force.spill_bytes, 0)), 0)
        .add(loop_instructions_per_interaction(m.force), 2);
    // The issue-slot ceiling this rung's own hot loop implies (sass_analysis.hpp), at the measured clock
    // when there is one, else the driver's peak; the single-thread rung issues from one warp, so none.
    if (m.force.instructions_per_interaction > 0 && r != 0) {
      const double mhz = clock ? clock->sm_clock_mhz : h.device().clock_mhz;
      const double ceiling = issue_ceiling(h.device().sm_count, mhz, m.force.instructions_per_interaction);
      t.add(m.force.instructions_per_interaction, 2).add(100.0 * h.interactions() / (m.ms * 1e-3) / ceiling, 1);
    } else {
      if (m.force.instructions_per_interaction > 0) t.add(m.force.instructions_per_interaction, 2);
      else t.add_empty();
      t.add_empty();
    }
    t.add(grid_text(m.launch)).add(m.variant);
    if (sources.empty() && !m.force.instruction_source.empty()) sources = m.force.instruction_source;
  };
  for (std::size_t r = 0; r < kLadder.size(); ++r) {
    emit(std::to_string(r), r);
    for (const auto& notice : measured[r].notices) t.note("rung " + std::to_string(r) + ": " + notice);
  }
  emit("best", best);
  const std::size_t single_thread_bodies = measured[0].i_count;
  t.note(describe_bench(options, h));
  t.note(
      "force ms: CUDA events around the force pass (kernel, plus the slice sum when the j range is split), "
      "median of 'runs' passes after a warm-up pass; interactions/s counts n^2; GFLOP/s at " +
      std::to_string(kFlopsPerInteraction) + " flops per interaction; % peak of " +
      format("%.1f", h.device().fp32_peak_flops() / 1e12) + " TFLOP/s (2 x FP32 lanes x SMs x peak clock)");
  if (clock)
    t.note("% peak@clk: against the clock measured under an FP32 load, " + format("%.0f", clock->sm_clock_mhz) +
           " MHz (driver peak " + format("%.0f", clock->reported_max_mhz) + " MHz)");
  if (single_thread_bodies < h.n())
    t.note("rung 0 (1 thread): timed on the first " + std::to_string(single_thread_bodies) + " of " +
           std::to_string(h.n()) + " bodies against all of them, scaled by " +
           format("%.4g", static_cast<double>(h.n()) / static_cast<double>(single_thread_bodies)) +
           "; its error is measured on those bodies");
  t.note("best: the fastest fp32 rung, repeated (the figure the targets are about)");
  t.note(
      "x prev: against the rung it builds on (a side trip is compared with the rung before it, and the next "
      "rung continues from there); x total: against rung 0");
  t.note("err: relative force error |a - a_ref| / |a_ref| against the double-precision direct sum on " +
         std::to_string(options.validation_sample) + " bodies (RMS and max)");
  t.note("PTX/int: PTX instructions per interaction in the hot loop (nbodylab kernels --list shows the mix)");
  if (!sources.empty())
    t.note("instr/int: issued instructions per interaction in the hot loop, from " + sources +
           "; % issue: the measured rate against SMs x 128 instructions per clock x " +
           (clock ? format("%.0f MHz (measured)", clock->sm_clock_mhz)
                  : std::to_string(h.device().clock_mhz) + " MHz (peak)") +
           " / instr/int, the most this loop could run at");
  return t;
}

Table run_sweep(const AllPairsBenchOptions& options, const SweepSpace& space, const ToggleValues& base) {
  Harness h(options, options.n);
  Table t("All-pairs sweep: unroll x block size x bodies per thread");
  t.column("unroll", "unroll")
      .column("block_size", "block")
      .column("bodies_per_thread", "bodies/thread")
      .column("registers", "regs")
      .column("spill_bytes", "spill B")
      .column("grid", "grid")
      .column("ms", "force ms")
      .column("interactions_per_s", "interactions/s")
      .column("gflops", "GFLOP/s")
      .column("peak_pct", "% peak")
      .column("ptx_per_interaction", "PTX/int")
      .column("error_rms", "err rms")
      .column("error_max", "err max");
  double best_ms = std::numeric_limits<double>::infinity();
  std::string best;
  const std::size_t total = space.unroll.size() * space.block_size.size() * space.bodies_per_thread.size();
  std::size_t done = 0;
  for (int bpt : space.bodies_per_thread)
    for (int block : space.block_size)
      for (int unroll : space.unroll) {
        ToggleValues toggles = base;
        toggles["unroll"] = unroll;
        toggles["block_size"] = block;
        toggles["bodies_per_thread"] = bpt;
        const Measured m = h.measure(toggles);
        t.row()
            .add(unroll, 0)
            .add(block, 0)
            .add(bpt, 0)
            .add(static_cast<double>(m.force.registers), 0)
            .add(static_cast<double>(std::max(m.force.spill_bytes, 0)), 0)
            .add(grid_text(m.launch))
            .add(m.ms, 3);
        add_rate_cells(t, m, h.interactions(), h.device());
        t.add(loop_instructions_per_interaction(m.force), 2);
        add_error_cells(t, m);
        if (m.ms < best_ms) {
          best_ms = m.ms;
          best = "unroll " + std::to_string(unroll) + ", block " + std::to_string(block) + ", " + std::to_string(bpt) +
                 " bodies/thread: " + format("%.3f ms, %.3g interactions/s", m.ms, h.interactions() / (m.ms * 1e-3));
        }
        progress(options, "sweep: " + std::to_string(++done) + "/" + std::to_string(total) + "  " + m.variant + "  " +
                              format("%.3f ms", m.ms));
      }
  t.note(describe_bench(options, h));
  t.note("the other toggles: " + select_allpairs_variant(base, h.softening()).description);
  t.note("fastest: " + best);
  return t;
}

std::vector<std::pair<std::string, ToggleValues>> default_scaling_variants() {
  std::size_t tutorial_final = 0;
  for (std::size_t r = 0; r < kLadder.size(); ++r)
    if (kLadder[r].name == "-ftz") tutorial_final = r;
  ToggleValues fp64;
  fp64.set({"precision", "fp64"});
  return {{"best (default toggles)", ToggleValues{}},
          {"tutorial's last rung (-ftz)", ladder_toggles(tutorial_final)},
          {"best in fp64", fp64}};
}

std::vector<std::size_t> default_scaling_sizes() { return {1024, 4096, 16384, 65536, 262144, 1048576}; }

Table run_scaling(const AllPairsBenchOptions& options, const std::vector<std::size_t>& sizes,
                  const std::vector<std::pair<std::string, ToggleValues>>& variants) {
  Table t("All-pairs scaling with n: force pass per step");
  t.column("n", "n")
      .column("variant", "variant")
      .column("ms", "force ms")
      .column("runs", "runs")
      .column("interactions_per_s", "interactions/s")
      .column("gflops", "GFLOP/s")
      .column("peak_pct", "% peak")
      .column("grid", "grid")
      .column("error_rms", "err rms")
      .column("error_max", "err max");
  std::string device;
  for (std::size_t n : sizes) {
    AllPairsBenchOptions o = options;
    o.n = n;
    // Small n: a pass takes microseconds, so take more of them.
    if (static_cast<double>(n) * static_cast<double>(n) < 1e10) o.repeats = std::max(o.repeats, 20);
    Harness h(o, n);
    device = h.device().name;
    for (const auto& [name, toggles] : variants) {
      const Measured m = h.measure(toggles);
      t.row().add(static_cast<double>(n), 0).add(name).add(m.ms, 4).add(static_cast<double>(m.runs), 0);
      add_rate_cells(t, m, h.interactions(), h.device());
      t.add(grid_text(m.launch));
      add_error_cells(t, m);
      progress(options, "scaling: n = " + std::to_string(n) + "  " + name + "  " + format("%.4f ms", m.ms));
    }
  }
  t.note(std::string(to_string(options.scene)) + " scene, seed " + std::to_string(options.seed) + ", " + device);
  t.note(
      "grid: blocks along i x j-slices x threads per block; the j range is split when there are too few blocks "
      "along i to fill the GPU, and the slices' partial sums are added in order by a second small kernel");
  for (const auto& [name, toggles] : variants) t.note(name + ": " + select_allpairs_variant(toggles, 0.01).description);
  return t;
}

Table clock_table(const ClockMeasurement& clock) {
  std::string why;
  const auto device = query_device(&why);
  if (!device) throw Error("no GPU: " + why);
  Table t("SM clock under an FP32 FMA load, and the ceilings it implies");
  t.column("quantity", "quantity").column("value", "value").column("unit", "unit");
  const double lanes = static_cast<double>(device->sm_count) * device->fp32_lanes_per_sm;
  auto row = [&](const std::string& q, double v, const std::string& unit, bool sci = false) {
    t.row().add(q);
    if (sci) t.add_sci(v, 3);
    else t.add(v, 1);
    t.add(unit);
  };
  row("driver peak clock", clock.reported_max_mhz, "MHz");
  row("measured SM clock", clock.sm_clock_mhz, "MHz");
  row("FP32 ceiling at peak clock", 2 * lanes * clock.reported_max_mhz * 1e6, "flop/s", true);
  row("FP32 ceiling at measured clock", 2 * lanes * clock.sm_clock_mhz * 1e6, "flop/s", true);
  // Every instruction, FP32 or not, takes an issue slot: one warp instruction per clock per SM
  // sub-partition, i.e. 128 thread-instructions per clock per SM. An interaction needs 13 at best
  // (3 FADD, 3 FFMA, MUFU.RSQ, 3 FMUL, 3 FFMA); the count here is the default variant's own hot loop.
  const AllPairsVariant best = select_allpairs_variant(ToggleValues{}, 0.01);
  KernelEngine engine;
  std::string why_not_sass;
  const auto loop = hot_loop(*engine.compile(best.source), kAllPairsForceKernel, &why_not_sass);
  if (loop) {
    const double per = loop->per_interaction();
    char label[160];
    std::snprintf(label, sizeof label, "interactions/s ceiling at %.2f instructions (%s), measured clock", per,
                  loop->source.c_str());
    row(label, issue_ceiling(device->sm_count, clock.sm_clock_mhz, per), "1/s", true);
  }
  row("measured over", clock.seconds, "s");
  if (loop) {
    t.note("instructions per interaction: the hot loop of the default variant (" + best.description + "), from " +
           loop->source + (why_not_sass.empty() ? "" : " (" + why_not_sass + ")"));
  } else {
    t.note("no issue-slot ceiling: the default variant's force kernel has no loop of interactions to count");
  }
  t.note(device->name + ", " + std::to_string(device->sm_count) + " SMs x " +
         std::to_string(device->fp32_lanes_per_sm) +
         " FP32 lanes; clock64() cycles per microsecond of %globaltimer in each block, median over " +
         std::to_string(clock.blocks) + " blocks filling every SM");
  return t;
}

}  // namespace nbl
