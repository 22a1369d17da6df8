// The check a `nbody bench --suite pic-scaling` record passes before it is timed
// (bench/pic_scaling.cpp, check_pic_scaling_record): Gauss's law kept and its reference run's
// total energy (within a bound, or to the bit); a record that fails it is marked "pic WRONG"
// (which makes the suite exit 1) and has no times.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "bench.hpp"

namespace nbody::bench {
namespace {

PicScalingCheck passing() {
  PicScalingCheck c;
  c.gauss_change = 3e-15;
  c.energy = 2.0;
  c.reference_energy = 2.0 * (1 + 1e-14);
  c.gauss_bound = 1e-12;
  c.energy_bound = 1e-12;
  return c;
}

TEST(PicScalingCheck, AKeptRecordIsVerifiedAndNamesWhatWasChecked) {
  Record r;
  check_pic_scaling_record(r, passing());
  EXPECT_TRUE(r.verified) << r.verification;
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.charge_error, 3e-15);
  EXPECT_NEAR(r.energy_error, 1e-14, 1e-16);
  EXPECT_NE(r.verification.find("Gauss residual change 3e-15 of the charge scale (bound 1e-12)"), std::string::npos)
      << r.verification;
  EXPECT_NE(r.verification.find("from the 1-rank run's (bound 1e-12)"), std::string::npos) << r.verification;
  PicScalingCheck one = passing();
  one.reference = true;
  Record ref;
  check_pic_scaling_record(ref, one);
  EXPECT_TRUE(ref.verified);
  EXPECT_NE(ref.verification.find("(the 1-rank reference)"), std::string::npos) << ref.verification;
}

// With energy_bound 0 (the CPU's deterministic runs: blocks against slabs, the balanced run
// against the even split) the energy must be the reference's bits.
TEST(PicScalingCheck, ABoundOfZeroAsksForTheSameBits) {
  PicScalingCheck c = passing();
  c.against = "the slabs'";
  c.energy_bound = 0;
  c.reference_energy = c.energy;
  Record same;
  check_pic_scaling_record(same, c);
  EXPECT_TRUE(same.verified) << same.verification;
  EXPECT_NE(same.verification.find(", the slabs' to the bit"), std::string::npos) << same.verification;
  c.reference_energy = std::nextafter(c.energy, 3.0);
  Record off;
  check_pic_scaling_record(off, c);
  EXPECT_FALSE(off.verified) << off.verification;
  EXPECT_NE(off.error.find(", not the slabs'"), std::string::npos) << off.error;
}

TEST(PicScalingCheck, AFailedCheckIsWrongAndUntimed) {
  struct Case {
    const char* what;
    PicScalingCheck c;
  };
  PicScalingCheck charge = passing(), energy = passing(), nan = passing(), zero = passing();
  charge.gauss_change = 7.8e-3;  // charge not conserved
  energy.energy = 2.0 * (1 + 1e-9);
  nan.energy = std::numeric_limits<double>::quiet_NaN();
  zero.energy = 0;
  for (const Case& k : {Case{"charge", charge}, Case{"energy", energy}, Case{"nan", nan}, Case{"zero", zero}}) {
    Record r;
    check_pic_scaling_record(r, k.c);
    EXPECT_FALSE(r.verified) << k.what;
    EXPECT_EQ(r.error.rfind("pic WRONG: Gauss residual change", 0), 0u) << k.what << ": " << r.error;
    EXPECT_EQ(r.median_s, 0.0) << k.what;
    EXPECT_EQ(r.repeats, 0) << k.what;
  }
}

}  // namespace
}  // namespace nbody::bench
