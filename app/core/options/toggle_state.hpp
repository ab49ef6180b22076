// When a kernel toggle cannot change anything right now, and why; the panel greys such toggles out
// and says the reason in the tooltip, and the CLI warns about the ones the user set, so nothing it
// offers is fake. Within an algorithm the reasons come from the switchboards' own inert
// lists (AllPairsVariant::inert, BarnesHutVariant::inert): no second list here.
#pragma once
#include <string>

#include "sim/toggles.hpp"

namespace nbl {

struct Settings;

// "" when the toggle shapes the code that runs with these settings on this backend.
std::string toggle_inert_reason(const ToggleDef& toggle, const Settings& settings, bool backend_on_gpu);

}  // namespace nbl
