#pragma once
#include <string>
#include <vector>

#include "bench.hpp"

namespace nbody::bench {

// The table's header and one line per record, as printed while the suites run.
[[nodiscard]] std::string table_header();
[[nodiscard]] std::string table_row(const Record& r);
[[nodiscard]] std::string describe(const Environment& e);
// "policy <shape> <rate> = <x>% of the best measured (<shape> <rate>)" for the records of one
// sweep (one N and precision), or "" when the policy's record or a timed one is missing.
[[nodiscard]] std::string policy_summary(const std::vector<const Record*>& sweep);

}  // namespace nbody::bench
