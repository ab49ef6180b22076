#include "sim/tipsy.hpp"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/snapshot.hpp"

namespace nbl {

namespace {

// The Tipsy header: double time; int nbodies, ndim, nsph, ndark, nstar. 28 bytes of data; the C
// struct (and so most writers) pads it to 32, some XDR writers do not. Then gas, dark and star records.
constexpr std::size_t kHeaderDataBytes = 28;
constexpr std::size_t kHeaderPaddedBytes = 32;

struct ParticleKind {
  const char* name;
  int fields;
  const char* const* field_names;
};
constexpr const char* kGasFields[] = {"mass", "x",   "y",    "z",       "vx",     "vy",
                                      "vz",   "rho", "temp", "hsmooth", "metals", "phi"};
constexpr const char* kDarkFields[] = {"mass", "x", "y", "z", "vx", "vy", "vz", "eps", "phi"};
constexpr const char* kStarFields[] = {"mass", "x", "y", "z", "vx", "vy", "vz", "metals", "tform", "eps", "phi"};
constexpr ParticleKind kGas{"gas", 12, kGasFields};
constexpr ParticleKind kDark{"dark", 9, kDarkFields};
constexpr ParticleKind kStar{"star", 11, kStarFields};

std::uint32_t load_u32(const char* p, bool big_endian) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return big_endian == (std::endian::native == std::endian::big) ? v : __builtin_bswap32(v);
}
std::uint64_t load_u64(const char* p, bool big_endian) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return big_endian == (std::endian::native == std::endian::big) ? v : __builtin_bswap64(v);
}
void store_u32_big(std::string& out, std::uint32_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  out.append(reinterpret_cast<const char*>(&v), 4);
}
void store_u64_big(std::string& out, std::uint64_t v) {
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
  out.append(reinterpret_cast<const char*>(&v), 8);
}
void store_float_big(std::string& out, float f) { store_u32_big(out, std::bit_cast<std::uint32_t>(f)); }

struct Header {
  bool big_endian = true;
  double time = 0;
  // Widened from the file's int32 so sums and sizes cannot overflow while they are checked.
  std::int64_t nbodies = 0, ndim = 0, nsph = 0, ndark = 0, nstar = 0;

  std::int64_t record_bytes() const { return 4 * (nsph * kGas.fields + ndark * kDark.fields + nstar * kStar.fields); }
  bool counts_plausible() const {
    return ndim == 3 && nbodies >= 0 && nsph >= 0 && ndark >= 0 && nstar >= 0 && nbodies == nsph + ndark + nstar;
  }
  // Bytes before the first record when the file size fits this header exactly; 0 when it does not.
  std::size_t header_bytes_for(std::size_t file_bytes) const {
    if (!counts_plausible()) return 0;
    const auto records = static_cast<std::size_t>(record_bytes());
    if (file_bytes == kHeaderPaddedBytes + records) return kHeaderPaddedBytes;
    if (file_bytes == kHeaderDataBytes + records) return kHeaderDataBytes;
    return 0;
  }
};

Header parse_header(const std::string& bytes, bool big_endian) {
  auto int_at = [&](std::size_t offset) {
    return static_cast<std::int64_t>(static_cast<std::int32_t>(load_u32(bytes.data() + offset, big_endian)));
  };
  Header h;
  h.big_endian = big_endian;
  h.time = std::bit_cast<double>(load_u64(bytes.data(), big_endian));
  h.nbodies = int_at(8);
  h.ndim = int_at(12);
  h.nsph = int_at(16);
  h.ndark = int_at(20);
  h.nstar = int_at(24);
  return h;
}

// Why neither byte order fits, in the terms of the header that looks most like Tipsy.
[[noreturn]] void explain_bad_header(const std::string& name, const Header& big, const Header& little,
                                     std::size_t file_bytes) {
  auto fail = [&](const std::string& why) { throw InputError(name + ": " + why); };
  const Header* h = big.ndim == 3 ? &big : little.ndim == 3 ? &little : nullptr;
  if (!h) fail("not a Tipsy file: the header's dimension count is not 3 in either byte order");
  std::ostringstream counts;
  counts << h->nsph << " gas + " << h->ndark << " dark + " << h->nstar << " star";
  if (h->nbodies < 0 || h->nsph < 0 || h->ndark < 0 || h->nstar < 0)
    fail("the header has a negative particle count (nbodies " + std::to_string(h->nbodies) + ", " + counts.str() + ")");
  if (h->nbodies != h->nsph + h->ndark + h->nstar)
    fail("the header's counts disagree: nbodies is " + std::to_string(h->nbodies) + " but " + counts.str() + " is " +
         std::to_string(h->nsph + h->ndark + h->nstar));
  const auto records = static_cast<std::size_t>(h->record_bytes());
  // (Exactly 28 + records bytes is the unpadded layout, accepted before this point.)
  if (file_bytes < kHeaderPaddedBytes + records)
    fail("truncated: the header announces " + counts.str() + " particles, which take " +
         std::to_string(kHeaderPaddedBytes + records) + " bytes (a " + std::to_string(kHeaderPaddedBytes) +
         "-byte header and " + std::to_string(records) + " bytes of records), but the file has only " +
         std::to_string(file_bytes) + " bytes");
  throw InputError(name + ": the file is " + std::to_string(file_bytes) + " bytes, but a header announcing " +
                   counts.str() + " particles makes it " + std::to_string(kHeaderPaddedBytes + records) + " (or " +
                   std::to_string(kHeaderDataBytes + records) + " without header padding): the counts are wrong");
}

// gzip's magic number: the shipped bookmarks are Tipsy files compressed with gzip (NAME.tipsy.gz).
bool is_gzip(const std::string& bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Replaces `bytes` by what they decompress to; false (and why) for a damaged or truncated stream.
bool gunzip(std::string& bytes, std::string& why) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    why = "zlib could not start";
    return false;
  }
  std::string out;
  out.resize(std::max<std::size_t>(bytes.size() * 2, 1 << 16));
  z.next_in = reinterpret_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  int status = Z_OK;
  while (status == Z_OK) {
    if (z.total_out == out.size()) out.resize(out.size() * 2);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + z.total_out);
    z.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size() - z.total_out, 1u << 30));
    status = inflate(&z, Z_NO_FLUSH);
  }
  const bool ok = status == Z_STREAM_END;
  if (!ok)
    why = status == Z_BUF_ERROR ? "the stream ends early" : (z.msg ? z.msg : "zlib error " + std::to_string(status));
  out.resize(z.total_out);
  inflateEnd(&z);
  if (ok) bytes = std::move(out);
  return ok;
}

}  // namespace

TipsySnapshot read_tipsy(const std::filesystem::path& file) {
  const std::string name = file.string();
  auto fail = [&](const std::string& why) { throw InputError(name + ": " + why); };
  std::string bytes = read_text_file(file);  // binary-safe; InputError when it cannot be read
  if (is_gzip(bytes)) {
    std::string why;
    if (!gunzip(bytes, why)) fail("a gzip-compressed file that cannot be decompressed (" + why + ")");
  }
  if (bytes.size() < kHeaderDataBytes)
    fail("too short for a Tipsy file (" + std::to_string(bytes.size()) + " bytes; the header alone is 28)");

  // Standard files are big-endian; files written natively on x86 are little-endian. Whichever order
  // gives a self-consistent header that matches the file size exactly is the file's.
  const Header big = parse_header(bytes, true);
  const Header little = parse_header(bytes, false);
  std::size_t offset = big.header_bytes_for(bytes.size());
  Header h = big;
  if (offset == 0) {
    offset = little.header_bytes_for(bytes.size());
    h = little;
  }
  if (offset == 0) explain_bad_header(name, big, little, bytes.size());
  if (h.nbodies == 0) fail("the file holds no bodies");
  if (!std::isfinite(h.time)) fail("the header's time is not a finite number");

  TipsySnapshot snapshot;
  snapshot.time = h.time;
  Bodies& b = snapshot.bodies;
  b.resize(static_cast<std::size_t>(h.nbodies));
  std::size_t body = 0;
  auto read_kind = [&](const ParticleKind& kind, std::int64_t count) {
    float record[12];
    for (std::int64_t p = 0; p < count; ++p, ++body) {
      for (int f = 0; f < kind.fields; ++f) {
        record[f] = std::bit_cast<float>(load_u32(bytes.data() + offset, h.big_endian));
        offset += 4;
        if (!std::isfinite(record[f])) {
          fail(std::string(kind.name) + " particle " + std::to_string(p) + " (body " + std::to_string(body) +
               "): field '" + kind.field_names[f] + "' is " + (std::isnan(record[f]) ? "NaN" : "infinite"));
        }
      }
      if (record[0] < 0) {
        std::ostringstream m;
        m << kind.name << " particle " << p << " (body " << body << ") has a negative mass (" << record[0] << ")";
        fail(m.str());
      }
      b.mass[body] = record[0];
      b.x[body] = record[1];
      b.y[body] = record[2];
      b.z[body] = record[3];
      b.vx[body] = record[4];
      b.vy[body] = record[5];
      b.vz[body] = record[6];
    }
  };
  read_kind(kGas, h.nsph);
  read_kind(kDark, h.ndark);
  read_kind(kStar, h.nstar);
  check_snapshot_speeds(name, b);
  return snapshot;
}

void write_tipsy(const std::filesystem::path& file, const Bodies& bodies, double time, float softening) {
  const std::size_t n = bodies.size();
  if (n == 0) throw Error("cannot write " + file.string() + ": there are no bodies to save");
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error("cannot write " + file.string() + ": Tipsy counts bodies in 32 bits, and there are " +
                std::to_string(n));
  std::string out;
  out.reserve(kHeaderPaddedBytes + n * 4 * kDark.fields);
  store_u64_big(out, std::bit_cast<std::uint64_t>(time));
  const auto count = static_cast<std::uint32_t>(n);
  for (std::uint32_t v : {count, 3u /* ndim */, 0u /* gas */, count /* dark */, 0u /* star */}) store_u32_big(out, v);
  store_u32_big(out, 0);  // pad to the 32 bytes of the C struct every reader expects
  for (std::size_t i = 0; i < n; ++i) {
    for (float v : {bodies.mass[i], bodies.x[i], bodies.y[i], bodies.z[i], bodies.vx[i], bodies.vy[i], bodies.vz[i],
                    softening, 0.0f}) {
      store_float_big(out, v);
    }
  }
  write_file_atomically(file, out);
}

}  // namespace nbl
