#pragma once
// Helpers of the PIC tests: those of `nbody pic check` (pic/probes.hpp), under the tests' names.
#include "pic/driver/probes.hpp"

namespace nbody::pic::test {

using probes::periodic_settings;
using probes::electrons;
using probes::background_of;
using probes::project;
using probes::frequency_from_zeros;
using probes::frequency_from_recurrence;
using probes::log_slope;

}  // namespace nbody::pic::test
