#pragma once
// What a resumed run may not change: two decks' identities (their TOML text without the keys a
// resume may change) compared table by table, for `nbody pic run --resume` and
// `nbody ensemble --resume`.
#include <functional>
#include <string>

namespace nbody {

// Runs `read`; an input error it throws that begins "<kind> config: " is thrown again as
// "<kind> config '<file>': ..." (the file named in the line); any other error as it was.
void naming_the_deck(const std::string& kind, const std::string& file, const std::function<void()>& read);

// The first "table.key" (or top-level key) in which two identities differ ("" when they agree).
std::string first_deck_difference(const std::string& identity_a, const std::string& identity_b);

}  // namespace nbody
