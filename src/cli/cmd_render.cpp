// nbody render SNAPSHOT|RUN_DIR: frames of particle files, or the images of a PIC run's dumps
// (docs/pictures.md).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "cli/camera_options.hpp"
#include "cli/commands.hpp"
#include "cli/pic_renders.hpp"
#include "cli/render_files.hpp"
#include "core/units.hpp"
#include "io/particle_file.hpp"
#include "nbody/error.hpp"
#include "render/projection.hpp"
#if NBODY_HAVE_RENDER
#include "render/frame.hpp"
#endif

namespace nbody::cli {
namespace fs = std::filesystem;

std::vector<fs::path> run_snapshots(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("snapshot_", 0) == 0 && e.is_regular_file() && format_from_extension(e.path())) files.push_back(e.path());
  }
  if (ec) throw_input_error("render: cannot list '" + dir.string() + "': " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

#if NBODY_HAVE_RENDER
namespace {

// The name of the unit system whose factors a file records ("henon" when none matches).
std::string units_of(const ParticleFileInfo& info) {
  if (!info.units) return "henon";
  for (const std::string& name : unit_system_names())
    if (unit_system_cgs(name) == *info.units) return name;
  return "henon";
}

}  // namespace
#endif

std::vector<fs::path> render_files(const std::vector<fs::path>& files, const fs::path& out, RenderSettings s,
                                   const std::string& units) {
#if NBODY_HAVE_RENDER
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw_input_error("render: --out: cannot create '" + out.string() + "': " + ec.message());
  render::FrameStyle style;
  style.colormap = render::colormap(s.colormap).id;
  style.decades = s.decades;
  std::vector<fs::path> written;
  for (const fs::path& file : files) {
    const ParticleFileData data = read_particle_file(file);
    const Particles<double>& p = data.particles;
    if (s.auto_width) {
      s.camera.width = render::auto_width<double>(p.x, p.y, p.z, p.m, s.camera.centre);
      s.auto_width = false;
    }
    // Coloured by component where the file names two components or more.
    std::span<const std::uint8_t> components;
    if (p.component_names.size() > 1 && p.component.size() == p.size()) components = p.component;
    s.camera.shown = render::component_mask(s.components, p.component_names, "render: --components");
    const render::DensityMap map = render::project_bodies<double>(p.x, p.y, p.z, p.m, components, s.camera, s.nx, s.ny);
    render::FrameLabels labels;
    labels.title = file.filename().string() + ", " + std::to_string(p.size()) + " bodies";
    labels.time = data.info.time;
    labels.units = units.empty() ? units_of(data.info) : units;
    if (!components.empty()) labels.components = render::shown_names(s.camera, p.component_names);
    labels.camera = s.camera.projection == render::Projection::perspective ? "perspective" : "orthographic";
    const fs::path target = out / (file.stem().string() + ".png");
    render::write_frame(target, map, style, labels);
    written.push_back(target);
  }
  return written;
#else
  (void)files, (void)out, (void)s, (void)units;
  throw_input_error("render: this build of nbody has no renderer (it needs libpng and cairo: Debian libpng-dev, "
                    "libcairo2-dev; configure with -DNBODY_ENABLE_RENDER=ON)");
#endif
}

namespace {

struct RenderOptions {
  std::string source, out, units, steps;
  std::vector<std::string> quantities;
  CameraOptions camera;
};

// A PIC run: the images of its dumps, into --out (default RUN/renders).
int execute_pic(const RenderOptions& o) {
  if (const std::string flag = o.camera.camera_flag_given(); !flag.empty())
    throw_input_error("render: " + flag + ": '" + o.source + "' is a PIC run, whose images have no camera (its " +
                      "flags are --quantity, --colormap, --steps, --out)");
  if (!o.units.empty()) throw_input_error("render: --units " + o.units + ": a PIC run's images are in laser units");
  PicRenderRequest r;
  r.run = o.source;
  r.out = o.out.empty() ? r.run / "renders" : fs::path(o.out);
  r.quantities = o.quantities;
  r.colormap = o.camera.colormap_given();
  if (!o.steps.empty()) parse_step_range(o.steps, "render: --steps", r.first, r.last);
  const std::vector<fs::path> written = render_pic_run(r);
  std::printf("render: %zu image%s in %s\n", written.size(), written.size() == 1 ? "" : "s", r.out.string().c_str());
  return 0;
}

int execute(const RenderOptions& o) {
  if (!o.source.empty() && is_pic_run(o.source)) return execute_pic(o);
  if (!o.quantities.empty() || !o.steps.empty())
    throw_input_error("render: --quantity and --steps are for a PIC run's directory (with deck.toml); '" + o.source +
                      "' is not one");
#if !NBODY_HAVE_RENDER
  render_files({}, {}, {}, {});  // says that this build has no renderer
#endif
  const RenderSettings s = o.camera.resolve();  // every flag checked before anything is read
  if (!o.units.empty()) (void)unit_system(o.units);
  if (o.source.empty()) throw_input_error("render: the snapshot or run directory is empty");
  std::error_code ec;
  std::vector<fs::path> files;
  fs::path out = o.out;
  if (fs::is_directory(o.source, ec)) {
    files = run_snapshots(o.source);
    if (files.empty()) throw_input_error("render: '" + o.source + "' holds no snapshot_* files");
    if (out.empty()) out = fs::path(o.source) / "renders";
  } else {
    if (!fs::exists(o.source, ec)) throw_input_error("render: '" + o.source + "' does not exist");
    files = {o.source};
    if (out.empty()) out = ".";
  }
  const std::vector<fs::path> written = render_files(files, out, s, o.units);
  std::printf("render: %zu frame%s in %s\n", written.size(), written.size() == 1 ? "" : "s", out.string().c_str());
  return 0;
}

}  // namespace

Command add_render_command(CLI::App& parent) {
  auto* app = parent.add_subcommand(
      "render",
      "Render frames of particle files: the projected surface density (log scale) in an annotated figure. SOURCE is "
      "a snapshot (HDF5, Tipsy, CSV), written to --out DIR/<name>.png (default the current directory), or a run "
      "directory: every snapshot, into --out (default RUN/renders). The camera flags are those of nbody run "
      "--render-every without 'render-'. A PIC run's directory (nbody pic run): the images of its openPMD dumps "
      "(field maps, densities, phase spaces, spectra, as output.images_every draws them) into --out (default "
      "RUN/renders), chosen with --quantity, --steps and --colormap.");
  auto o = std::make_shared<RenderOptions>();
  app->add_option("source", o->source, "a snapshot file or a run directory")->type_name("SNAPSHOT|RUN_DIR")->required();
  app->add_option("--out", o->out, "the directory for the frames")->type_name("DIR");
  app->add_option("--units", o->units, "the unit system of the labels (default: the one the file records)")
      ->type_name("NAME");
  app->add_option("--quantity", o->quantities,
                  "a PIC run: the images to draw (Ey, Ez, Bz, E_abs, density_<species>, phase_<species>, "
                  "spectrum_<species>; several as Q1,Q2 or the flag again; default all)")
      ->type_name("Q")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->delimiter(',');
  app->add_option("--steps", o->steps, "a PIC run: the dumps' steps to draw, A:B (both included; A: or :B open)")
      ->type_name("A:B");
  o->camera.add_to(*app, "");
  return {app, [o]() { return execute(*o); }};
}

}  // namespace nbody::cli
