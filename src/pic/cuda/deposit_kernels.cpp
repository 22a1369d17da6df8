// The deposition kernels' table (deposit_kernels.hpp): its rows and names, in every build.
#include "pic/cuda/deposit_kernels.hpp"

#include <vector>

#include "nbody/error.hpp"

namespace nbody::pic {
namespace {

#define NBODY_PIC_DEPOSIT_INFO(name, flags, help) DepositKernelInfo{DepositKernel::name, #name, help, flags},
constexpr DepositKernelInfo kRows[] = {NBODY_PIC_DEPOSIT_KERNELS(NBODY_PIC_DEPOSIT_INFO)};
#undef NBODY_PIC_DEPOSIT_INFO

// (a row's place is its enumerator's value: deposit_kernel_info indexes by it)
constexpr bool rows_in_enum_order() {
  for (std::size_t k = 0; k < std::size(kRows); ++k)
    if (static_cast<std::size_t>(kRows[k].kind) != k) return false;
  return true;
}
static_assert(rows_in_enum_order());

}  // namespace

std::span<const DepositKernelInfo> deposit_kernels() { return kRows; }

const DepositKernelInfo& deposit_kernel_info(DepositKernel k) {
  const auto i = static_cast<std::size_t>(k);
  if (i >= std::size(kRows)) throw_runtime_error("pic: a deposition kernel outside the table");
  return kRows[i];
}

DepositKernel deposit_kernel(const std::string& name) {
  for (const DepositKernelInfo& r : kRows)
    if (r.name == name) return r.kind;
  throw_input_error("solver.deposit: '" + name + "' is not one of " + deposit_kernel_names());
}

std::string deposit_kernel_names() {
  std::string out;
  for (const DepositKernelInfo& r : kRows) {
    if (!out.empty()) out += ", ";
    out += r.name;
  }
  return out;
}

std::string deposit_kernels_over_blocks() {
  std::vector<std::string_view> names;
  for (const DepositKernelInfo& r : kRows)
    if (r.over_blocks()) names.push_back(r.name);
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k > 0) out += k + 1 == names.size() ? " or " : ", ";
    out += '"';
    out += names[k];
    out += '"';
  }
  return out;
}

}  // namespace nbody::pic
