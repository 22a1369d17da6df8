#pragma once
// What a resumed run may not change: two decks' identities (their TOML text without the keys a
// resume may change) compared table by table, for `nbody pic run --resume` and
// `nbody ensemble --resume`.
#include <string>

namespace nbody {

// The first "table.key" (or top-level key) in which two identities differ ("" when they agree).
std::string first_deck_difference(const std::string& identity_a, const std::string& identity_b);

}  // namespace nbody
