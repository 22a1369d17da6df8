#include "cli/camera_options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "nbody/error.hpp"
#include "render/projection.hpp"
#if NBODY_HAVE_RENDER
#include "render/colormap.hpp"
#endif

namespace nbody::cli {
namespace {

std::string number(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

// "x,y,z" of finite numbers; an input error naming the flag.
render::Vec3 parse_vector(const std::string& flag, const std::string& text) {
  render::Vec3 v{};
  std::string s = text;
  std::replace(s.begin(), s.end(), ',', ' ');
  std::istringstream in(s);
  for (double& c : v)
    if (!(in >> c) || !std::isfinite(c)) throw_input_error(flag + ": '" + text + "' is not three numbers X,Y,Z");
  std::string rest;
  if (in >> rest) throw_input_error(flag + ": '" + text + "' is not three numbers X,Y,Z");
  return v;
}

}  // namespace

std::vector<std::string> RenderSettings::as_arguments() const {
  std::vector<std::string> a;
  const auto vec = [](const render::Vec3& v) { return number(v[0]) + "," + number(v[1]) + "," + number(v[2]); };
  const bool persp = camera.projection == render::Projection::perspective;
  a.insert(a.end(), {"--camera", persp ? "perspective" : "orthographic"});
  a.insert(a.end(), {"--centre", camera.centre ? vec(*camera.centre) : "com"});
  a.insert(a.end(), {"--direction", vec(camera.direction), "--up", vec(camera.up)});
  if (persp) {
    a.insert(a.end(), {"--fov", number(camera.fov_degrees), "--distance", number(camera.distance)});
  } else {
    a.insert(a.end(), {"--width", auto_width ? "auto" : number(camera.width)});
  }
  a.insert(a.end(), {"--size", std::to_string(nx) + "x" + std::to_string(ny), "--colormap", colormap, "--decades",
                     number(decades)});
  if (components != "all") a.insert(a.end(), {"--components", components});
  return a;
}

void CameraOptions::add_to(CLI::App& app, const std::string& prefix) {
  prefix_ = prefix;
  const std::string f = "--" + prefix;
  options_ = {
      app.add_option(f + "camera", projection_, "the camera: orthographic (default) or perspective")->type_name("KIND"),
      app.add_option(f + "centre", centre_, "the point the camera looks at, X,Y,Z (default com: the centre of mass)")
          ->type_name("X,Y,Z"),
      app.add_option(f + "direction", direction_, "the line of sight, X,Y,Z (default 0,0,-1: looking down z)")
          ->type_name("X,Y,Z"),
      app.add_option(f + "up", up_, "the image's up, X,Y,Z (default 0,1,0)")->type_name("X,Y,Z"),
      app.add_option(f + "width", width_,
                     "orthographic: the view's width in length units (default auto: 2.5 times the 90% mass radius "
                     "of the first frame)")
          ->type_name("W"),
      app.add_option(f + "fov", fov_, "perspective: the horizontal field of view in degrees (default 60)")
          ->type_name("DEG"),
      app.add_option(f + "distance", distance_,
                     "perspective: the eye's distance from the centre, behind it along the line of sight (required "
                     "with --" + prefix + "camera perspective)")
          ->type_name("D"),
      app.add_option(f + "size", size_, "the map's size in pixels, WxH (default 1920x1080)")->type_name("WxH"),
      app.add_option(f + "colormap", colormap_, "viridis, magma (default) or coolwarm")->type_name("NAME"),
      app.add_option(f + "decades", decades_, "decades of the log scale below the densest pixel (default 4)")
          ->type_name("N"),
      app.add_option(f + "components", components_,
                     "the components drawn: all (default), or names and shell patterns separated by commas, e.g. "
                     "'*.disk,*.bulge' (a galaxy's stars without its halo)")
          ->type_name("NAMES"),
  };
}

bool CameraOptions::any_given() const {
  return std::any_of(options_.begin(), options_.end(), [](const CLI::Option* o) { return o->count() > 0; });
}

std::string CameraOptions::camera_flag_given() const {
  for (const CLI::Option* o : options_)
    if (o->count() > 0 && o->get_name() != "--" + prefix_ + "colormap") return o->get_name();
  return "";
}

std::string CameraOptions::colormap_given() const {
  for (const CLI::Option* o : options_)
    if (o->count() > 0 && o->get_name() == "--" + prefix_ + "colormap") return colormap_;
  return "";
}

RenderSettings CameraOptions::resolve() const {
  const std::string f = "--" + prefix_;
  RenderSettings s;
  if (projection_ == "orthographic" || projection_ == "ortho") {
    s.camera.projection = render::Projection::orthographic;
  } else if (projection_ == "perspective") {
    s.camera.projection = render::Projection::perspective;
  } else {
    throw_input_error(f + "camera: unknown camera '" + projection_ + "' (choose orthographic or perspective)");
  }
  if (centre_ != "com") s.camera.centre = parse_vector(f + "centre", centre_);
  s.camera.direction = parse_vector(f + "direction", direction_);
  s.camera.up = parse_vector(f + "up", up_);
  const bool persp = s.camera.projection == render::Projection::perspective;
  if (persp) {
    if (options_.size() > 4 && options_[4]->count() > 0)
      throw_input_error(f + "width " + width_ + ": a perspective camera takes " + f + "fov and " + f + "distance");
    if (!(fov_ > 0 && fov_ < 180)) throw_input_error(f + "fov: " + number(fov_) + " is not in (0, 180) degrees");
    if (!(distance_ > 0) || !std::isfinite(distance_))
      throw_input_error(f + "distance: a perspective camera needs a distance > 0 (it is " + number(distance_) + ")");
    s.camera.fov_degrees = fov_, s.camera.distance = distance_;
  } else {
    if (width_ == "auto") {
      s.auto_width = true;
    } else {
      char* end = nullptr;
      const double w = std::strtod(width_.c_str(), &end);
      if (width_.empty() || *end != '\0' || !(w > 0) || !std::isfinite(w))
        throw_input_error(f + "width: '" + width_ + "' is not a width > 0 (or auto)");
      s.camera.width = w;
    }
  }
  int nx = 0, ny = 0;
  char x = 0, rest = 0;
  if (std::sscanf(size_.c_str(), "%d%c%d%c", &nx, &x, &ny, &rest) != 3 || (x != 'x' && x != 'X') || nx < 1 || ny < 1 ||
      nx > render::kMaxMapSide || ny > render::kMaxMapSide)
    throw_input_error(f + "size: '" + size_ + "' is not WxH with each side 1 to " + std::to_string(render::kMaxMapSide));
  s.nx = nx, s.ny = ny;
#if NBODY_HAVE_RENDER
  try {
    (void)render::colormap(colormap_);
  } catch (const Error& e) {
    throw_input_error(f + "colormap: " + e.what());
  }
#endif
  s.colormap = colormap_;
  if (!(decades_ > 0 && decades_ <= 30)) throw_input_error(f + "decades: " + number(decades_) + " is not in (0, 30]");
  s.decades = decades_;
  if (components_.empty() || components_.find_first_not_of(", ") == std::string::npos)
    throw_input_error(f + "components: '" + components_ + "' names no component (all, or names separated by commas)");
  s.components = components_;
  try {
    render::check_camera(s.camera, s.nx, s.ny);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("render: ", 0) == 0) why = why.substr(8);
    throw_input_error(f + "up " + up_ + ", " + f + "direction " + direction_ + ": " + why);
  }
  return s;
}

RenderSettings parse_render_arguments(const std::vector<std::string>& args, const std::string& source) {
  CLI::App app;
  CameraOptions o;
  o.add_to(app, "");
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
    return o.resolve();
  } catch (const CLI::ParseError& e) {
    throw_input_error(source + ": " + e.what());
  } catch (const Error& e) {
    throw_input_error(source + ": " + e.what());
  }
}

}  // namespace nbody::cli
