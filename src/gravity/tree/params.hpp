#pragma once
// The parameters of the Barnes-Hut tree (--gravity tree): the opening criterion and the sizes of
// leaves and target groups. Light on purpose: the solver request includes it.
#include <string>
#include <string_view>
#include <vector>

namespace nbody::gravity::tree {

// How a cell is accepted for its multipole expansion (see opening.hpp):
//   barnes_hut: the distance from the target group's box to the cell's centre of mass is at
//               least l/theta + delta (l the cell's side, delta the offset of its centre of mass
//               from its geometric centre);
//   relative:   GADGET's criterion G M l^2 <= alpha |a_old| r^4 with the previous force pass's
//               |a| of the group's weakest-pulled target (Barnes-Hut where none is known yet).
enum class Criterion { barnes_hut, relative };

[[nodiscard]] inline std::vector<std::string> criterion_names() { return {"barnes-hut", "relative"}; }
[[nodiscard]] inline const char* to_string(Criterion c) {
  return c == Criterion::relative ? "relative" : "barnes-hut";
}
// False for an unknown name.
[[nodiscard]] inline bool parse_criterion(std::string_view name, Criterion& out) {
  if (name == "barnes-hut") {
    out = Criterion::barnes_hut;
  } else if (name == "relative") {
    out = Criterion::relative;
  } else {
    return false;
  }
  return true;
}

struct TreeParams {
  double theta = 0.5;  // opening angle; 0 opens every cell (the direct sum)
  Criterion criterion = Criterion::barnes_hut;
  double alpha = 0.005;  // the relative criterion's tolerance
  int leaf_size = 16;    // a cell with at most this many bodies is a leaf
  int group_size = 64;   // targets walk the tree in groups of at most this many nearby bodies

  bool operator==(const TreeParams&) const = default;
};

}  // namespace nbody::gravity::tree
