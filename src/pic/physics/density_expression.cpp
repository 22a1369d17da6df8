#include "pic/physics/density_expression.hpp"

#include <muParser.h>

#include <mutex>
#include <stdexcept>

namespace nbody::pic {

struct DensityExpression::Impl {
  std::string text;
  mu::Parser parser;
  double x = 0, y = 0;
  std::mutex mutex;  // (the parser's stack and the bound variables are shared state)
};

DensityExpression::DensityExpression(const std::string& text) : impl_(std::make_shared<Impl>()) {
  impl_->text = text;
  try {
    impl_->parser.DefineVar("x", &impl_->x);
    impl_->parser.DefineVar("y", &impl_->y);
    impl_->parser.SetExpr(text);
    (void)impl_->parser.GetUsedVar();  // parses now: syntax errors and unknown names surface here
    (void)impl_->parser.Eval();
  } catch (const mu::Parser::exception_type& e) {
    std::string why = e.GetMsg();
    while (!why.empty() && (why.back() == '.' || why.back() == ' ')) why.pop_back();
    // (muparser counts positions from 0, and names them in some messages only)
    if (why.find("position") == std::string::npos && e.GetPos() != static_cast<decltype(e.GetPos())>(-1))
      why += " at position " + std::to_string(e.GetPos());
    throw std::invalid_argument(why);
  }
}

double DensityExpression::operator()(double x, double y) const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->x = x, impl_->y = y;
  return impl_->parser.Eval();
}

const std::string& DensityExpression::text() const { return impl_->text; }

}  // namespace nbody::pic
