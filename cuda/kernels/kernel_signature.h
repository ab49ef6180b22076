// A kernel's name and parameter types, declared once in a header that both sides include: the host
// launches through it (cuda/launch.hpp checks every argument's type against P...), and the kernel file
// checks its own definition against it (static_assert with kHasSignature), so a parameter added on one
// side and not the other is a compile error on that side, never a garbled launch.
// Plain C++ without standard headers (NVRTC has none).
#pragma once

namespace nbl {

template <class... Params>
struct KernelSignature {
  const char* name;  // the extern "C" entry point
};

// kHasSignature<decltype(kernel), decltype(signature)>: the kernel takes exactly Params...
template <class Function, class Signature>
inline constexpr bool kHasSignature = false;
template <class... Params>
inline constexpr bool kHasSignature<void(Params...), const KernelSignature<Params...>> = true;
template <class... Params>
inline constexpr bool kHasSignature<void(Params...), KernelSignature<Params...>> = true;

}  // namespace nbl
