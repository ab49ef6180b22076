// When a kernel toggle cannot change anything right now, and why; the panel greys such toggles out
// and says the reason in the tooltip, so nothing it offers is fake (DESIGN.md).
#pragma once
#include <string>

#include "sim/toggles.hpp"

namespace nbl {

struct Settings;

// "" when the toggle shapes the code that runs with these settings on this backend.
std::string toggle_inert_reason(const ToggleDef& toggle, const Settings& settings, bool backend_on_gpu);

}  // namespace nbl
