#include "cli/pic_renders.hpp"

#include <algorithm>
#include <utility>

#include "nbody/error.hpp"
#include "pic/driver/config.hpp"
#include "pic/output/images.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/output/openpmd_read.hpp"
#include "pic/output/run_directory.hpp"

namespace nbody::cli {
namespace fs = std::filesystem;

bool is_pic_run(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::is_regular_file(dir / pic::PicRunDirectory::kDeck, ec);
}

void parse_step_range(const std::string& text, const std::string& flag, std::int64_t& first, std::int64_t& last) {
  auto step = [&](const std::string& s, std::int64_t fallback) {
    if (s.empty()) return fallback;
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || v < 0 || s.find_first_not_of("0123456789") != std::string::npos)
      throw_input_error(flag + " " + text + ": not a step range A:B (whole steps >= 0; A: or :B leave a side open)");
    return std::int64_t(v);
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    first = last = step(text.empty() ? "x" : text, 0);
    return;
  }
  first = step(text.substr(0, colon), 0);
  last = step(text.substr(colon + 1), std::numeric_limits<std::int64_t>::max());
  if (first > last) throw_input_error(flag + " " + text + ": the first step is after the last");
}

std::vector<fs::path> render_pic_run(const PicRenderRequest& r) {
  std::string why;
  if (!pic::images_available(&why)) throw_input_error("render: " + why);
  if (!pic::openpmd_available())
    throw_input_error("render: a PIC run is drawn from its openPMD dumps, and this build has no HDF5 (configure "
                      "with -DNBODY_ENABLE_HDF5=ON)");
  const fs::path deck = r.run / pic::PicRunDirectory::kDeck;
  const pic::PicConfig config = pic::read_pic_config(deck.string(), {});
  pic::PicSimulation sim = pic::build_pic_simulation(config, false);
  // Every request checked before anything is read or written.
  try {
    pic::check_image_request({r.out, r.quantities, r.colormap}, sim);
  } catch (const Error& e) {
    throw Error(e.kind(), "render: " + std::string(e.what()));
  }
  std::vector<std::pair<std::int64_t, fs::path>> dumps;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(r.run, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("pic_", 0) != 0 || e.path().extension() != ".h5" || !e.is_regular_file()) continue;
    const auto step = pic::PicRunDirectory::output_step(name);
    if (step && *step >= r.first && *step <= r.last) dumps.emplace_back(*step, e.path());
  }
  if (ec) throw_input_error("render: cannot list '" + r.run.string() + "': " + ec.message());
  if (dumps.empty())
    throw_input_error("render: '" + r.run.string() + "' holds no openPMD dumps (pic_<step>.h5, written every " +
                      "output.fields_every steps)" +
                      (r.first > 0 || r.last < std::numeric_limits<std::int64_t>::max() ? " in the steps asked for" : ""));
  std::sort(dumps.begin(), dumps.end());
  std::vector<fs::path> written;
  for (const auto& [step, path] : dumps) {
    pic::read_openpmd(path.string(), sim);
    const std::vector<fs::path> files = pic::write_images({r.out, r.quantities, r.colormap}, sim);
    written.insert(written.end(), files.begin(), files.end());
  }
  return written;
}

}  // namespace nbody::cli
