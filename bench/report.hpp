#pragma once
#include <string>

#include "bench.hpp"

namespace nbody::bench {

// The table's header and one line per record, as printed while the suites run.
[[nodiscard]] std::string table_header();
[[nodiscard]] std::string table_row(const Record& r);
[[nodiscard]] std::string describe(const Environment& e);

}  // namespace nbody::bench
