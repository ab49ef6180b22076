#include "cuda/allpairs/variant.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "sim/ladder.hpp"

namespace nbl {

namespace {

// The choices the switchboard acts on, looked up by name in sim/toggles.hpp at compile time.
constexpr Choice kSingleThread{"parallelism", "single_thread"};
constexpr Choice kSelfBranch{"self_interaction", "branch"}, kSelfTwoLoops{"self_interaction", "two_loops"},
    kSelfSoftening{"self_interaction", "softening"};
constexpr Choice kTilingNone{"tiling", "none"}, kTilingShared{"tiling", "shared"}, kTilingShuffle{"tiling", "shuffle"};
constexpr Choice kFastMathOff{"fast_math", "off"}, kFtz{"fast_math", "ftz"}, kFastMath{"fast_math", "fast_math"};
constexpr Choice kFp64{"precision", "fp64"}, kConstantParams{"params", "constant"};

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

void mark_inert(AllPairsVariant& v, ToggleId id, std::string reason) {
  v.inert.push_back({id.def().key, std::move(reason)});
  v.toggles[id] = id.def().default_value;  // canonical: an inert toggle must not change the cache key
}

std::string describe(const AllPairsVariant& v) {
  std::string out;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& t = kToggles[i];
    if (t.algorithm != Algorithm::allpairs) continue;
    if (find_inert(v.inert, t.key)) continue;
    const int value = v.toggles.values[i];
    std::string word;
    switch (t.kind) {
      case ToggleKind::flag: word = value ? std::string(t.key) : "no-" + std::string(t.key); break;
      case ToggleKind::integer: word = std::string(t.key) + "=" + std::to_string(value); break;
      case ToggleKind::choice: {
        const std::string_view name = t.choices[static_cast<std::size_t>(value)].name;
        word = (name == "none" || name == "off") ? std::string(t.key) + "=" + std::string(name) : std::string(name);
        break;
      }
    }
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

}  // namespace

AllPairsVariant select_allpairs_variant(const ToggleValues& requested, double softening) {
  AllPairsVariant v;
  v.toggles = requested;
  ToggleValues& t = v.toggles;

  // ---- normalise: combinations that cannot mean anything else ----
  v.single_thread = t.is(kSingleThread);
  if (v.single_thread) {
    // One thread walks every body: there are no blocks to tile for and no threads to share bodies.
    const std::string why =
        "the single-thread port runs one thread (<<<1, 1>>>): no block to share tiles or bodies with";
    mark_inert(v, "tiling", why);
    mark_inert(v, "bodies_per_thread", why);
    mark_inert(v, "block_size", why);
    t.set(kTilingNone);
    t["bodies_per_thread"] = 1;
  }
  if (t.is(kSelfSoftening) && !(softening > 0)) {
    t.set(kSelfBranch);
    v.notices.push_back(
        "self-interaction by softening needs softening > 0 (at zero a body meets itself at distance 0: 0/0); "
        "using if (i != j)");
  }
  if (t.is(kTilingShuffle) && t.is(kSelfTwoLoops)) {
    t.set(kSelfBranch);
    v.notices.push_back(
        "two loops around i give every lane its own loop bounds, but a warp-shuffle tile needs all 32 lanes in "
        "the same loop; using if (i != j)");
  }
  v.fp64 = t.is(kFp64);
  if (v.fp64) {
    // -ftz and --use_fast_math change single-precision instructions only.
    mark_inert(v, "fast_math",
               "-ftz and --use_fast_math change single-precision instructions only; fp64 has none in the loop");
    t.set(kFastMathOff);
  } else if (t.is(kFastMath)) {
    // --use_fast_math lets the compiler turn 1.0f / sqrtf(x) into rsqrt.approx by itself.
    mark_inert(v, "rsqrt", "--use_fast_math already compiles 1.0f / sqrtf() to rsqrt.approx");
    t["rsqrt"] = 1;
    if (requested["rsqrt"] == 0)
      v.notices.push_back(
          "--use_fast_math already compiles 1.0f / sqrtf() to rsqrt.approx: the rsqrt toggle "
          "changes nothing here");
  }

  // ---- shape ----
  v.layout = static_cast<BodyLayout>(t["layout"]);
  v.constant_params = t.is(kConstantParams);
  v.bodies_per_thread = t["bodies_per_thread"];
  v.block_size = v.single_thread ? 1 : t["block_size"];
  if (v.single_thread || t.is(kTilingNone)) v.tile_size = 1;
  else if (t.is(kTilingShared)) v.tile_size = v.block_size;
  else v.tile_size = 32;  // a warp's lanes pass bodies around

  // ---- code: the file, one macro per toggle (and per choice), the compiler options ----
  if (v.single_thread) v.source.file = "allpairs_single_thread.cu";
  else if (t.is(kTilingShared)) v.source.file = "allpairs_shared.cu";
  else if (t.is(kTilingShuffle)) v.source.file = "allpairs_shuffle.cu";
  else v.source.file = "allpairs_global.cu";

  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != Algorithm::allpairs || def.macro.empty()) continue;
    v.source.macros.emplace_back(std::string(def.macro), std::to_string(t.values[i]));
    if (def.kind == ToggleKind::choice) {
      for (std::size_t c = 0; c < def.choices.size(); ++c)
        v.source.macros.emplace_back(std::string(def.macro) + "_" + upper(def.choices[c].name), std::to_string(c));
    }
  }
  if (t.is(kFtz)) v.source.options.push_back("-ftz=true");
  else if (t.is(kFastMath)) v.source.options.push_back("--use_fast_math");

  v.description = describe(v);
  v.source.label = v.description;
  return v;
}

AllPairsLaunch plan_allpairs_launch(const AllPairsVariant& v, std::size_t n, std::size_t i_count, int sm_count,
                                    int blocks_per_sm) {
  AllPairsLaunch launch;
  const std::size_t bodies = std::max<std::size_t>(n, 1);
  if (v.single_thread) {
    launch.j_slice = static_cast<int>(bodies);
    return launch;
  }
  launch.block_size = v.block_size;
  const std::size_t per_block = static_cast<std::size_t>(v.bodies_per_block());
  launch.grid_i = static_cast<int>((std::max<std::size_t>(i_count, 1) + per_block - 1) / per_block);

  // Slices are whole tiles and at least 512 sources long (the per-block cost of loading the bodies
  // and storing partial sums stays small), at most 64 of them, and their partial sums fit in 256 MB.
  const std::size_t granule = static_cast<std::size_t>(std::max(v.tile_size, 32));
  const std::size_t min_slice = std::max<std::size_t>(granule, 512);
  const std::size_t partial_budget = std::size_t(256) << 20;
  const std::size_t by_memory = std::max<std::size_t>(1, partial_budget / (bodies * 3 * v.real_bytes()));
  const std::size_t max_splits = std::min<std::size_t>({64, std::max<std::size_t>(1, bodies / min_slice), by_memory});
  const int sms = std::max(sm_count, 1);
  const int warps_per_block = (launch.block_size + 31) / 32;
  constexpr double kWarpsForFullSpeed = 16;
  // A block also pays a fixed cost (loading its bodies, the first tile's latency, storing): about one
  // tile of 256 sources. The partial sums cost memory traffic: on an H100 one byte moved takes about
  // as long as 0.7 interactions computed.
  constexpr double kBlockOverheadSources = 256;
  constexpr double kInteractionsPerByte = 0.7;
  const double bodies_per_block = static_cast<double>(per_block);

  double best_cost = std::numeric_limits<double>::infinity();
  for (std::size_t s = 1; s <= max_splits; ++s) {
    std::size_t slice = (bodies + s - 1) / s;
    slice = (slice + granule - 1) / granule * granule;
    const std::size_t splits = (bodies + slice - 1) / slice;
    if (splits != s && s != 1) continue;  // rounding collapsed it onto another split count
    const double blocks = static_cast<double>(launch.grid_i) * static_cast<double>(splits);
    const double per_sm = std::ceil(blocks / sms);
    const double resident_warps = std::min(per_sm, static_cast<double>(blocks_per_sm)) * warps_per_block;
    const double slowdown = std::max(1.0, kWarpsForFullSpeed / resident_warps);
    // In sources per block-thread on the busiest SM; the partial sums (written and read once)
    // converted to the same unit.
    const double partial_bytes = splits > 1 ? 2.0 * splits * bodies * 3 * v.real_bytes() : 0.0;
    const double cost = per_sm * (static_cast<double>(slice) + kBlockOverheadSources) * slowdown +
                        partial_bytes * kInteractionsPerByte / (sms * bodies_per_block);
    if (cost < best_cost) {
      best_cost = cost;
      launch.j_splits = static_cast<int>(splits);
      launch.j_slice = static_cast<int>(splits == 1 ? bodies : slice);
    }
  }
  return launch;
}

std::vector<std::string> allpairs_code_violations(const AllPairsVariant& v, const CompiledProgram& program) {
  std::vector<std::string> failed;
  const PtxEntryStats* e = program.entry(kAllPairsForceKernel);
  if (!e) return {"the PTX has no allpairs_force entry point"};
  const InstructionMix& all = e->mix;
  const InstructionMix& loop = e->loop_mix;
  const ToggleValues& t = v.toggles;
  auto expect = [&](bool holds, const std::string& claim) {
    if (!holds) failed.push_back(claim);
  };
  auto count = [](const InstructionMix& m, const char* cls) { return std::to_string(m[cls]); };

  const PtxasStats* r = program.resource(kAllPairsForceKernel);
  expect(r && r->registers > 0,
         "ptxas reports the force kernel's registers (" +
             (program.from_disk_cache ? std::string("from the disk cache") : std::string("compiled")) +
             "; log starts: " + program.log.substr(0, 300) + ")");
  expect(e->has_loop && e->loop_bodies > 0, "the force kernel has a hot loop of interactions");
  if (!e->has_loop) return failed;

  if (t["rsqrt"]) expect(loop["rsqrt"] > 0, "rsqrt: the hot loop uses rsqrt.approx (has " + count(loop, "rsqrt") + ")");
  else
    expect(all["rsqrt"] == 0 && loop["sqrt"] > 0,
           "no rsqrt: sqrt and no rsqrt.approx (rsqrt " + count(all, "rsqrt") + ", sqrt " + count(loop, "sqrt") + ")");

  const bool shared_tiles = !v.single_thread && t.is(kTilingShared);
  const bool shuffle_tiles = !v.single_thread && t.is(kTilingShuffle);
  if (shared_tiles)
    expect(loop["ld.shared"] > 0 && all["bar.sync"] > 0 && all["shfl.sync"] == 0,
           "shared tiles: ld.shared in the hot loop and bar.sync (ld.shared " + count(loop, "ld.shared") +
               ", bar.sync " + count(all, "bar.sync") + ")");
  else expect(all["ld.shared"] == 0 && all["bar.sync"] == 0, "no shared tiles: no ld.shared, no bar.sync");
  if (shuffle_tiles)
    expect(loop["shfl.sync"] > 0, "shuffle tiles: shfl.sync in the hot loop (has " + count(loop, "shfl.sync") + ")");
  else expect(all["shfl.sync"] == 0, "no shuffle tiles: no shfl.sync (has " + count(all, "shfl.sync") + ")");
  if (!shared_tiles && !shuffle_tiles) expect(loop["ld.global"] > 0, "no tiles: the hot loop reads global memory");

  if (v.fp64) {
    expect(loop["f64"] > 0, "fp64: the hot loop computes in double");
  } else {
    expect(all["f64"] == 0, "fp32: no double arithmetic (has " + count(all, "f64") + ")");
    if (t.is(kFastMathOff)) expect(all["ftz"] == 0, "IEEE flags: no .ftz (has " + count(all, "ftz") + ")");
    else expect(loop["ftz"] > 0, "-ftz / fast math: .ftz in the hot loop");
  }

  if (v.constant_params)
    // The launch's range of targets stays an argument (two ints, read outside the hot loop).
    expect(all["ld.const"] > all["ld.param"] && loop["ld.param"] == 0,
           "constant parameters: ld.const, and ld.param for the launch's range alone, outside the hot loop (ld.const " +
               count(all, "ld.const") + ", ld.param " + count(all, "ld.param") + ")");
  else expect(all["ld.param"] > 0 && all["ld.const"] == 0, "kernel arguments: ld.param and no ld.const");

  if (v.layout == BodyLayout::float4) {
    expect(all["ld.global.v4"] > 0, "float4: 16-byte global loads");
    if (shared_tiles) expect(loop["ld.shared.v4"] > 0, "float4: 16-byte shared loads in the hot loop");
  } else {
    expect(all["ld.global.v4"] == 0 && all["ld.shared.v4"] == 0, "AoS / SoA: no 16-byte loads");
  }

  // The unroll factor times the bodies per thread is the number of interactions in the hot loop. A
  // loop over a full tile has a constant trip count: an unroll factor at least that long unrolls it
  // completely (then the tile loop, or the partial tile's loop, is the hot one).
  const int unroll = t["unroll"], bodies = v.bodies_per_thread;
  const bool constant_trip = (shared_tiles || shuffle_tiles) && !t.is(kSelfTwoLoops);
  const int trip = v.tile_size;
  const bool ok =
      e->loop_bodies == unroll * bodies || (constant_trip && unroll >= trip && e->loop_bodies == trip * bodies);
  expect(ok, "unroll " + std::to_string(unroll) + " x " + std::to_string(bodies) +
                 " bodies per thread: interactions in the hot loop (has " + std::to_string(e->loop_bodies) + ")");

  if (t.is(kSelfBranch))
    expect(loop["setp"] >= e->loop_bodies,
           "if (i != j): a comparison per interaction (setp " + count(loop, "setp") + ")");
  else expect(loop["setp"] <= 1, "no self test in the hot loop (setp " + count(loop, "setp") + ")");

  const int fmas = v.fp64 ? loop["fma.f64"] : loop["fma.f32"];
  if (t["fma_order"])
    expect(fmas == 6 * e->loop_bodies, "FMA order: 6 FMAs per interaction (" + std::to_string(fmas) + ")");
  else
    expect(fmas < 6 * e->loop_bodies, "no FMA order: fewer than 6 FMAs per interaction (" + std::to_string(fmas) + ")");

  expect(e->max_threads == v.block_size, "launch bounds = block size (" + std::to_string(e->max_threads) + ")");
  if (r) {
    const int tile_bytes = shared_tiles ? 16 * v.block_size : 0;
    expect(r->shared_bytes == tile_bytes, "shared memory = one tile (" + std::to_string(r->shared_bytes) + " bytes)");
  }
  return failed;
}

std::vector<ToggleValues> allpairs_check_combinations(bool exhaustive) {
  std::vector<ToggleValues> out;
  for (std::size_t r = 0; r < kLadder.size(); ++r) out.push_back(ladder_toggles(r));

  // Every value of every all-pairs toggle, the rest at their defaults.
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != Algorithm::allpairs) continue;
    std::vector<int> values;
    if (exhaustive || def.kind != ToggleKind::integer) {
      for (int value = def.min_value; value <= def.max_value; value += def.step) values.push_back(value);
    } else {  // a spread: both ends, the default, and values that do not divide anything evenly
      values = {def.min_value, def.max_value, def.default_value, def.min_value + def.step * 2,
                def.min_value + def.step * 6};
    }
    for (int value : values) {
      ToggleValues t;
      t.values[i] = value;
      out.push_back(t);
    }
  }

  // The structural toggles crossed: tiling x self x layout x precision, parameters alternating.
  int k = 0;
  for (int tiling = 0; tiling < 3; ++tiling)
    for (int self = 0; self < 3; ++self)
      for (int layout = 0; layout < 3; ++layout)
        for (int precision = 0; precision < 2; ++precision, ++k) {
          ToggleValues t;
          t["tiling"] = tiling;
          t["self_interaction"] = self;
          t["layout"] = layout;
          t["precision"] = precision;
          t["params"] = k % 2;
          t["bodies_per_thread"] = 1 + k % 3;
          t["unroll"] = k % 4 == 0 ? 3 : 8;
          out.push_back(t);
        }
  // One thread: layout x self x precision.
  for (int layout = 0; layout < 3; ++layout)
    for (int self = 0; self < 3; ++self)
      for (int precision = 0; precision < 2; ++precision) {
        ToggleValues t;
        t.set(kSingleThread);
        t["layout"] = layout;
        t["self_interaction"] = self;
        t["precision"] = precision;
        out.push_back(t);
      }
  // Float flags x rsqrt x FMA order.
  for (int flags = 0; flags < 3; ++flags)
    for (int rsqrt = 0; rsqrt < 2; ++rsqrt)
      for (int fma = 0; fma < 2; ++fma) {
        ToggleValues t;
        t["fast_math"] = flags;
        t["rsqrt"] = rsqrt;
        t["fma_order"] = fma;
        out.push_back(t);
      }
  if (exhaustive) {  // bodies per thread x tiling x block size, with an odd unroll factor
    for (int bodies = 1; bodies <= 8; ++bodies)
      for (int tiling = 0; tiling < 3; ++tiling)
        for (int block : {32, 128, 1024}) {
          ToggleValues t;
          t["bodies_per_thread"] = bodies;
          t["tiling"] = tiling;
          t["block_size"] = block;
          t["unroll"] = 7;
          out.push_back(t);
        }
  }
  return out;
}

}  // namespace nbl
