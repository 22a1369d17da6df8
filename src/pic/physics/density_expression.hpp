#pragma once
// A density n(x, y) given as an expression of x and y (muparser's syntax: + - * / ^, exp, sqrt,
// sin, tanh, abs, min, max, the ternary ?:, comparisons, _pi). muparser stays in the .cpp.
#include <memory>
#include <string>

namespace nbody::pic {

class DensityExpression {
 public:
  // Compiles `text`; an expression that does not parse, or names a variable other than x and y,
  // throws std::invalid_argument with muparser's reason and the position (one line).
  explicit DensityExpression(const std::string& text);
  // The value at (x, y), in the expression's units. Safe to call from several threads (one
  // evaluation at a time: loading evaluates once per cell).
  [[nodiscard]] double operator()(double x, double y) const;
  [[nodiscard]] const std::string& text() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace nbody::pic
