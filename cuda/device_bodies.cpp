#include "cuda/device_bodies.hpp"

#include <vector>

#include <vector_functions.h>

#include "cuda/layout_kernels.hpp"
#include "cuda/retire.hpp"

namespace nbl {

void upload_float4_bodies(const Bodies& b, float4* pos_mass, float4* vel, cudaStream_t stream) {
  const std::size_t n = b.size();
  if (n == 0) return;
  std::vector<float4> p(n), v(n);
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = make_float4(b.x[i], b.y[i], b.z[i], b.mass[i]);
    v[i] = make_float4(b.vx[i], b.vy[i], b.vz[i], 0.0f);
  }
  NBL_CUDA_CHECK(cudaMemcpyAsync(pos_mass, p.data(), n * sizeof(float4), cudaMemcpyHostToDevice, stream));
  NBL_CUDA_CHECK(cudaMemcpyAsync(vel, v.data(), n * sizeof(float4), cudaMemcpyHostToDevice, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors go out of scope
}

void download_float4_bodies(const float4* pos_mass, const float4* vel, std::size_t n, Bodies& b, cudaStream_t stream) {
  b.resize(n);
  if (n == 0) return;
  std::vector<float4> p(n), v(n);
  NBL_CUDA_CHECK(cudaMemcpyAsync(p.data(), pos_mass, n * sizeof(float4), cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaMemcpyAsync(v.data(), vel, n * sizeof(float4), cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  for (std::size_t i = 0; i < n; ++i) {
    b.x[i] = p[i].x, b.y[i] = p[i].y, b.z[i] = p[i].z, b.mass[i] = p[i].w;
    b.vx[i] = v[i].x, b.vy[i] = v[i].y, b.vz[i] = v[i].z;
  }
}

void download_float4_accelerations(const float4* acc, std::size_t n, Accelerations& out, cudaStream_t stream) {
  std::vector<float4> host(n);
  if (n > 0) NBL_CUDA_CHECK(cudaMemcpyAsync(host.data(), acc, n * sizeof(float4), cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.x[i] = host[i].x, out.y[i] = host[i].y, out.z[i] = host[i].z;
}

std::size_t DeviceBodies::bytes() const {
  std::size_t total = aos_.bytes() + pos_mass_.bytes() + vel_.bytes();
  for (const auto& a : soa_) total += a.bytes();
  return total;
}

void DeviceBodies::upload(const Bodies& b, BodyLayout layout, cudaStream_t stream) {
  n_ = b.size();
  layout_ = layout;
  release_except(layout);
  if (n_ == 0) return;
  switch (layout) {
    case BodyLayout::aos: {
      std::vector<allpairs::BodyRecord> records(n_);
      for (std::size_t i = 0; i < n_; ++i) records[i] = {b.mass[i], b.x[i], b.y[i], b.z[i], b.vx[i], b.vy[i], b.vz[i]};
      aos_.resize(n_);
      aos_.upload(records.data(), n_, stream);
      NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
      break;
    }
    case BodyLayout::soa: {
      const std::vector<float>* fields[7] = {&b.x, &b.y, &b.z, &b.mass, &b.vx, &b.vy, &b.vz};
      for (int f = 0; f < 7; ++f) {
        soa_[f].resize(n_);
        soa_[f].upload(fields[f]->data(), n_, stream);
      }
      NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
      break;
    }
    case BodyLayout::float4:
      pos_mass_.resize(n_);
      vel_.resize(n_);
      upload_float4_bodies(b, pos_mass_.data(), vel_.data(), stream);
      break;
  }
}

void DeviceBodies::download(Bodies& b, cudaStream_t stream) const {
  b.resize(n_);
  if (n_ == 0) return;
  switch (layout_) {
    case BodyLayout::aos: {
      std::vector<allpairs::BodyRecord> records(n_);
      aos_.download(records.data(), n_, stream);
      for (std::size_t i = 0; i < n_; ++i) {
        const auto& r = records[i];
        b.mass[i] = r.mass, b.x[i] = r.x, b.y[i] = r.y, b.z[i] = r.z, b.vx[i] = r.vx, b.vy[i] = r.vy, b.vz[i] = r.vz;
      }
      break;
    }
    case BodyLayout::soa: {
      std::vector<float>* fields[7] = {&b.x, &b.y, &b.z, &b.mass, &b.vx, &b.vy, &b.vz};
      for (int f = 0; f < 7; ++f) soa_[f].download(fields[f]->data(), n_, stream);
      break;
    }
    case BodyLayout::float4: download_float4_bodies(pos_mass_.data(), vel_.data(), n_, b, stream); break;
  }
}

void DeviceBodies::convert(BodyLayout to, cudaStream_t stream, RetiredObjects* old) {
  if (to == layout_) return;
  if (n_ == 0) {
    layout_ = to;
    return;
  }
  // Through float4: the source layout to float4 (unless it is float4), then float4 to the target.
  if (layout_ != BodyLayout::float4) {
    pos_mass_.resize(n_);
    vel_.resize(n_);
    if (layout_ == BodyLayout::aos)
      layout_kernels::aos_to_float4(aos_.data(), pos_mass_.data(), vel_.data(), n_, stream);
    else layout_kernels::soa_to_float4(soa(), pos_mass_.data(), vel_.data(), n_, stream);
  }
  if (to == BodyLayout::aos) {
    aos_.resize(n_);
    layout_kernels::float4_to_aos(pos_mass_.data(), vel_.data(), aos_.data(), n_, stream);
  } else if (to == BodyLayout::soa) {
    for (auto& a : soa_) a.resize(n_);
    layout_kernels::float4_to_soa(pos_mass_.data(), vel_.data(), soa(), n_, stream);
  }
  if (!old) NBL_CUDA_CHECK(cudaStreamSynchronize(stream));  // the old layout's buffers are freed next
  layout_ = to;
  release_except(to, old);
}

void DeviceBodies::copy_from(const DeviceBodies& other, BodyLayout layout, cudaStream_t stream) {
  n_ = other.n_;
  layout_ = other.layout_;
  release_except(layout_);
  auto copy = [&](auto& to, const auto& from) {
    to.resize(from.size());
    if (from.size())
      NBL_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.bytes(), cudaMemcpyDeviceToDevice, stream));
  };
  switch (layout_) {
    case BodyLayout::aos: copy(aos_, other.aos_); break;
    case BodyLayout::soa:
      for (int f = 0; f < 7; ++f) copy(soa_[f], other.soa_[f]);
      break;
    case BodyLayout::float4:
      copy(pos_mass_, other.pos_mass_);
      copy(vel_, other.vel_);
      break;
  }
  convert(layout, stream);
}

allpairs::AosBodies DeviceBodies::aos() { return {aos_.data()}; }

allpairs::SoaBodies DeviceBodies::soa() {
  return {soa_[0].data(), soa_[1].data(), soa_[2].data(), soa_[3].data(),
          soa_[4].data(), soa_[5].data(), soa_[6].data()};
}

allpairs::Float4Bodies DeviceBodies::float4_pair() {
  return {reinterpret_cast<nbl_float4*>(pos_mass_.data()), reinterpret_cast<nbl_float4*>(vel_.data())};
}

void DeviceBodies::release_except(BodyLayout keep, RetiredObjects* old) {
  if (keep != BodyLayout::aos) resize_retiring(aos_, 0, old);
  if (keep != BodyLayout::soa)
    for (auto& a : soa_) resize_retiring(a, 0, old);
  if (keep != BodyLayout::float4) {
    resize_retiring(pos_mass_, 0, old);
    resize_retiring(vel_, 0, old);
  }
}

std::vector<std::pair<void*, std::size_t>> DeviceBodies::regions() {
  switch (layout_) {
    case BodyLayout::aos: return {{aos_.data(), n_ * sizeof(allpairs::BodyRecord)}};
    case BodyLayout::soa: {
      std::vector<std::pair<void*, std::size_t>> r;
      for (auto& a : soa_) r.emplace_back(a.data(), n_ * sizeof(float));
      return r;
    }
    case BodyLayout::float4: return {{pos_mass_.data(), n_ * sizeof(float4)}, {vel_.data(), n_ * sizeof(float4)}};
  }
  return {};
}

}  // namespace nbl
