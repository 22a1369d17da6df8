// The pictures of gravity runs on the command line: nbody run --render-every (the trajectory
// unchanged, a resumed run's frames equal an uninterrupted run's), nbody render (one body on its
// pixel, the mass in view in the file's text chunks, a perspective camera), nbody movie (the frame
// count by ffprobe, a PIC image series) and bad options (one line, exit status 2, nothing written).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "nbody/checkpoint.hpp"
#include "render/colormap.hpp"
#include "nbody/camera.hpp"
#include "render/image.hpp"

namespace nbody::render {
namespace {
namespace fs = std::filesystem;

struct ProcessResult {
  int status = -1;
  std::string out, err;
};

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

fs::path temp_dir(const std::string& tag) {
  const fs::path d = fs::temp_directory_path() / ("nbody_frames_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A shell command line, its stdout and stderr.
ProcessResult run_command(const std::string& line) {
  const fs::path d = temp_dir("proc");
  const std::string cmd = line + " >" + (d / "out").string() + " 2>" + (d / "err").string() + " </dev/null";
  const int raw = std::system(cmd.c_str());
  ProcessResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.out = read_text((d / "out").string());
  r.err = read_text((d / "err").string());
  return r;
}

// The program with `args` (shell words).
ProcessResult run_nbody(const std::string& args) { return run_command(std::string(NBODY_EXE_PATH) + " " + args); }

std::vector<std::string> names_in(const fs::path& dir, const std::string& ext) {
  std::vector<std::string> n;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) n.push_back(e.path().filename().string());
  std::sort(n.begin(), n.end());
  return n;
}

void write_csv(const fs::path& path, const std::vector<std::array<double, 4>>& bodies) {
  std::ofstream f(path);
  f << "id,m,x,y,z,vx,vy,vz\n";
  for (std::size_t k = 0; k < bodies.size(); ++k)
    f << k << "," << bodies[k][0] << "," << bodies[k][1] << "," << bodies[k][2] << "," << bodies[k][3] << ",0,0,0\n";
}

bool on_path(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

const char* kRun = "run --ic plummer -n 400 --seed 7 --precision fp64 --snapshot-format csv --snapshot-every 10 "
                   "--checkpoint-every 10";
const char* kFrames = " --render-every 5 --render-size 96x54";

TEST(FramesCli, FramesLeaveTheTrajectoryAloneAndAResumedRunRendersTheSameFrames) {
  const fs::path base = temp_dir("frames_resume");
  // With frames, without, and with frames stopped at step 10 then resumed (no render flags: the
  // run directory's frames/render.args) to step 20.
  // The uninterrupted run draws on 4 threads, the resumed one frame at a time, then on 3.
  ASSERT_EQ(run_nbody(std::string(kRun) + kFrames + " --render-threads 4 --steps 20 --out " + (base / "with").string()).status, 0);
  ASSERT_EQ(run_nbody(std::string(kRun) + " --steps 20 --out " + (base / "without").string()).status, 0);
  ASSERT_EQ(
      run_nbody(std::string(kRun) + kFrames + " --render-threads 1 --steps 10 --out " + (base / "resumed").string()).status,
      0);
  const ProcessResult r = run_nbody("run --resume " + (base / "resumed").string() + " --steps 20 --render-threads 3");
  ASSERT_EQ(r.status, 0) << r.err;
  // The snapshots byte for byte; the checkpoints' state, step, time and integrator and solver
  // state (their configuration names the directory and their run id differs by directory).
  for (const char* f : {"snapshot_000.csv", "snapshot_001.csv", "snapshot_002.csv"}) {
    const std::string with = read_text((base / "with" / f).string());
    ASSERT_FALSE(with.empty()) << f;
    EXPECT_TRUE(with == read_text((base / "without" / f).string())) << f << ": frames changed the run";
    EXPECT_TRUE(with == read_text((base / "resumed" / f).string())) << f;
  }
  for (const char* f : {"checkpoint_0000000010.ckpt", "checkpoint_0000000020.ckpt"}) {
    const Checkpoint with = read_checkpoint(base / "with" / f);
    for (const char* other : {"without", "resumed"}) {
      const Checkpoint o = read_checkpoint(base / other / f);
      EXPECT_EQ(o.step, with.step) << f;
      EXPECT_EQ(o.time, with.time) << f;
      const auto& a = std::get<Particles<double>>(with.state);
      const auto& b = std::get<Particles<double>>(o.state);
      EXPECT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z && a.vx == b.vx && a.vy == b.vy && a.vz == b.vz &&
                  a.m == b.m && a.id == b.id)
          << f << " of " << other << ": another state";
      EXPECT_TRUE(o.integrator.bytes == with.integrator.bytes && o.solver.bytes == with.solver.bytes) << f;
      EXPECT_TRUE(o.progress == with.progress) << f;
    }
  }
  const std::vector<std::string> frames = names_in(base / "with" / "frames", ".png");
  EXPECT_EQ(frames, (std::vector<std::string>{"frame_00000000.png", "frame_00000005.png", "frame_00000010.png",
                                              "frame_00000015.png", "frame_00000020.png"}));
  EXPECT_EQ(names_in(base / "resumed" / "frames", ".png"), frames);
  for (const std::string& f : frames)
    EXPECT_TRUE(read_text((base / "with" / "frames" / f).string()) == read_text((base / "resumed" / "frames" / f).string()))
        << f << " of the resumed run differs";
  const PngFile png = read_png(base / "with" / "frames" / "frame_00000020.png");
  EXPECT_EQ(png.text_value("Step"), "20");
  EXPECT_EQ(png.text_value("Plot_box"), "84 40 576 324") << "the 96 x 54 map, each sample 6 x 6 pixels";
}

TEST(FramesCli, RenderPutsOneBodyOnItsPixelAndCountsTheMassInView) {
  const fs::path d = temp_dir("render_one");
  // The body at (0.75, -0.25) on 8 x 6 pixels 4 wide about the origin: column 5, row 2 from the
  // bottom (pixel size 0.5); a second body outside the view.
  write_csv(d / "one.csv", {{{2.0, 0.75, -0.25, 0.0}}, {{5.0, 9.0, 0.0, 0.0}}});
  const ProcessResult r =
      run_nbody("render " + (d / "one.csv").string() + " --out " + (d / "out").string() + " --centre 0,0,0 --width 4 --size 8x6");
  ASSERT_EQ(r.status, 0) << r.err;
  const PngFile png = read_png(d / "out" / "one.png");
  EXPECT_EQ(png.text_value("Mass_inside"), "2");
  EXPECT_EQ(png.text_value("Bodies_inside"), "1");
  // Each sample an 80 x 80 block (the 8 x 6 map enlarged to about 640 x 480) from the plot box's corner.
  ASSERT_EQ(png.text_value("Plot_box"), "84 40 640 480");
  const Colormap& magma = colormap("magma");
  for (int j = 0; j < 6; ++j)
    for (int i = 0; i < 8; ++i) {
      const Rgb c = png.image.rgb(84 + 80 * i + 40, 40 + 80 * (5 - j) + 40);
      EXPECT_EQ(c, colormap_colour(magma, (i == 5 && j == 2) ? 1.0 : 0.0)) << i << " " << j;
    }
  // A perspective camera 2 behind the origin looking down z with 90 degrees: the body at depth 2
  // and 0.75 right is at tangent 0.375, column 4 + 4 * 0.375 / 1 = 5.5 -> 5.
  const ProcessResult p = run_nbody("render " + (d / "one.csv").string() + " --out " + (d / "persp").string() +
                                    " --centre 0,0,0 --camera perspective --distance 2 --fov 90 --size 8x6");
  ASSERT_EQ(p.status, 0) << p.err;
  const PngFile q = read_png(d / "persp" / "one.png");
  EXPECT_EQ(q.text_value("Bodies_inside"), "1");
  EXPECT_EQ(q.image.rgb(84 + 80 * 5 + 40, 40 + 80 * (5 - 2) + 40), colormap_colour(magma, 1.0));
}

// A file naming two components or more is coloured by component: each pixel its bodies' hue
// (one body a pixel: the hue at full brightness), with a legend of the names in the hues.
TEST(FramesCli, RenderColoursByComponentWithALegend) {
  const fs::path d = temp_dir("render_components");
  {
    std::ofstream f(d / "two.csv");
    f << "id,m,x,y,z,vx,vy,vz,component\n# components = disk, halo\n";
    f << "0,1,0.75,-0.25,0,0,0,0,0\n1,1,-1.25,0.75,0,0,0,0,1\n";
  }
  const ProcessResult r =
      run_nbody("render " + (d / "two.csv").string() + " --out " + (d / "out").string() + " --centre 0,0,0 --width 4 --size 8x6");
  ASSERT_EQ(r.status, 0) << r.err;
  const PngFile png = read_png(d / "out" / "two.png");
  EXPECT_EQ(png.text_value("Colormap"), "component hues, log brightness");
  ASSERT_EQ(png.text_value("Plot_box"), "84 40 640 480");
  auto hue = [](int c) {
    const auto h = component_colour(std::uint8_t(c));
    return Rgb{h[0], h[1], h[2]};
  };
  // (0.75, -0.25): column 5, row 2 from the bottom; (-1.25, 0.75): column 1, row 4.
  EXPECT_EQ(png.image.rgb(84 + 80 * 5 + 40, 40 + 80 * 3 + 40), hue(0));
  EXPECT_EQ(png.image.rgb(84 + 80 * 1 + 40, 40 + 80 * 1 + 40), hue(1));
  EXPECT_EQ(png.image.rgb(84 + 80 * 3 + 40, 40 + 80 * 3 + 40), (Rgb{0, 0, 0})) << "an empty pixel is black";
  // The legend's squares in the map's upper left corner, one line of 18 pixels each.
  EXPECT_EQ(png.image.rgb(84 + 15, 40 + 15), hue(0));
  EXPECT_EQ(png.image.rgb(84 + 15, 40 + 15 + 18), hue(1));
  // --components: the halo alone; the disk's pixel is empty and the legend names the halo only.
  const ProcessResult halo = run_nbody("render " + (d / "two.csv").string() + " --out " + (d / "halo").string() +
                                       " --centre 0,0,0 --width 4 --size 8x6 --components 'h*'");
  ASSERT_EQ(halo.status, 0) << halo.err;
  const PngFile h = read_png(d / "halo" / "two.png");
  EXPECT_EQ(h.text_value("Bodies_inside"), "1");
  EXPECT_EQ(h.image.rgb(84 + 80 * 5 + 40, 40 + 80 * 3 + 40), (Rgb{0, 0, 0})) << "the disk is not drawn";
  EXPECT_EQ(h.image.rgb(84 + 80 * 1 + 40, 40 + 80 * 1 + 40), hue(1));
  EXPECT_EQ(h.image.rgb(84 + 15, 40 + 15), hue(1)) << "the legend's first line is the halo";
  EXPECT_NE(h.image.rgb(84 + 15, 40 + 15 + 18), hue(0)) << "no legend line for the disk";
  const ProcessResult bad = run_nbody("render " + (d / "two.csv").string() + " --out " + (d / "bad").string() +
                                      " --components disk,bar");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(lines(bad.err).size(), 1u) << bad.err;
  EXPECT_NE(bad.err.find("--components: 'bar' matches no component (the bodies' components: disk, halo)"),
            std::string::npos)
      << bad.err;
  // A file of one component: one colour map, no legend.
  write_csv(d / "one.csv", {{{1.0, 0.75, -0.25, 0.0}}});
  ASSERT_EQ(run_nbody("render " + (d / "one.csv").string() + " --out " + (d / "out") .string() +
                      " --centre 0,0,0 --width 4 --size 8x6").status, 0);
  EXPECT_EQ(read_png(d / "out" / "one.png").text_value("Colormap"), "magma");
}

// --render-components: a galaxy's frames without its halo; the setting kept for a resume.
TEST(FramesCli, RunFramesDrawOnlyTheComponentsAskedFor) {
  const fs::path d = temp_dir("run_components");
  const std::string common = "run --ic disk-galaxy -n 3000 --dt 0.01 --steps 2 --diag-every 0 --render-every 2 "
                             "--render-size 64x36 --render-width 20 --render-centre 0,0,0 --out ";
  ASSERT_EQ(run_nbody(common + (d / "all").string()).status, 0);
  const ProcessResult stars = run_nbody(common + (d / "stars").string() + " --render-components disk,bulge");
  ASSERT_EQ(stars.status, 0) << stars.err;
  const auto inside = [](const fs::path& f) { return std::stoll(read_png(f).text_value("Bodies_inside")); };
  const long long all = inside(d / "all" / "frames" / "frame_00000002.png");
  const long long shown = inside(d / "stars" / "frames" / "frame_00000002.png");
  EXPECT_GT(shown, 0);
  EXPECT_LT(shown, all) << "the halo's bodies are not drawn";
  EXPECT_NE(read_text((d / "stars" / "frames" / "render.args").string()).find("--components\ndisk,bulge"),
            std::string::npos);
  const ProcessResult bad = run_nbody(common + (d / "bad").string() + " --render-components disc");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--render-components: 'disc' matches no component (the bodies' components: disk, bulge, halo)"),
            std::string::npos)
      << bad.err;
}

TEST(FramesCli, BadCameraOptionsAreOneLineAndExitStatusTwo) {
  const fs::path d = temp_dir("render_bad");
  write_csv(d / "s.csv", {{{1.0, 0.0, 0.0, 0.0}}});
  const std::string file = (d / "s.csv").string(), out = " --out " + (d / "never").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"render " + file + out + " --camera fisheye", "--camera: unknown camera 'fisheye'"},
      {"render " + file + out + " --width 0", "--width: '0' is not a width > 0"},
      {"render " + file + out + " --camera perspective", "--distance: a perspective camera needs a distance > 0"},
      {"render " + file + out + " --camera perspective --distance 1 --fov 200", "--fov: 200 is not in (0, 180)"},
      {"render " + file + out + " --direction 0,1,0", "--up 0,1,0, --direction 0,1,0: the camera's up must not lie"},
      {"render " + file + out + " --centre 1,2", "--centre: '1,2' is not three numbers"},
      {"render " + file + out + " --size 1920", "--size: '1920' is not WxH"},
      {"render " + file + out + " --colormap jet", "--colormap: "},
      {"render " + (d / "missing.csv").string() + out, "does not exist"},
      {"run -n 10 --steps 1 --out " + (d / "never").string() + " --render-every 1 --render-width -2",
       "--render-width: '-2' is not a width > 0"},
      {"run -n 10 --steps 1 --render-every 1", "--render-every: the frames go into the run directory"},
      {"run -n 10 --steps 1 --out " + (d / "never").string() + " --render-threads 2", "--render-threads: 2 needs --render-every K"},
      {"run -n 10 --steps 1 --out " + (d / "never").string() + " --render-camera perspective",
       "need --render-every K"},
  };
  for (const auto& [args, message] : cases) {
    const ProcessResult r = run_nbody(args);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(lines(r.err).size(), 1u) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
  }
  EXPECT_FALSE(fs::exists(d / "never")) << "nothing written";
}

TEST(FramesCli, MovieHasOneFramePerPictureAndNeedsFfmpeg) {
  const fs::path d = temp_dir("movie");
  const fs::path run = d / "run";
  ASSERT_EQ(run_nbody(std::string(kRun) + kFrames + " --steps 20 --out " + run.string()).status, 0);
  // Without ffmpeg on PATH: one line, exit status 2, no movie.
  const ProcessResult none = run_command("PATH=/nonexistent " + std::string(NBODY_EXE_PATH) + " movie " + run.string());
  EXPECT_EQ(none.status, 2);
  EXPECT_EQ(lines(none.err).size(), 1u) << none.err;
  EXPECT_NE(none.err.find("movie: ffmpeg is not on PATH"), std::string::npos) << none.err;
  if (!on_path("ffmpeg") || !on_path("ffprobe")) GTEST_SKIP() << "skipped: no ffmpeg/ffprobe (Debian ffmpeg)";
  EXPECT_FALSE(fs::exists(run / "movie.mp4"));
  ProcessResult r = run_nbody("movie " + run.string() + " --fps 5");
  ASSERT_EQ(r.status, 0) << r.err;
  auto frames_of = [](const fs::path& movie) {
    const std::string cmd = "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,codec_name "
                            "-of csv=p=0 " + movie.string() + " > " + (movie.string() + ".txt");
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    return read_text(movie.string() + ".txt");
  };
  EXPECT_EQ(frames_of(run / "movie.mp4"), "h264,5\n");
  EXPECT_FALSE(fs::exists(run / "movie.partial.mp4"));
  // Without frames the snapshots are rendered first (3 snapshots: steps 0, 10, 20).
  fs::remove_all(run / "frames");
  r = run_nbody("movie " + run.string() + " --out " + (d / "snapshots.mp4").string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(frames_of(d / "snapshots.mp4"), "h264,3\n");
  // A PIC run's image series (here made of the renders): --quantity picks it, a missing one is named.
  fs::create_directories(d / "pic" / "images");
  int k = 0;
  for (const auto& f : names_in(run / "renders", ".png")) {
    fs::copy_file(run / "renders" / f, d / "pic" / "images" / ("Ey_0000000" + std::to_string(k) + ".png"));
    fs::copy_file(run / "renders" / f, d / "pic" / "images" / ("Bz_0000000" + std::to_string(k++) + ".png"));
  }
  r = run_nbody("movie " + (d / "pic").string() + " --quantity Ey");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(frames_of(d / "pic" / "movie_Ey.mp4"), "h264,3\n");
  r = run_nbody("movie " + (d / "pic").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("is a PIC run: choose one image series with --quantity (Bz, Ey)"), std::string::npos) << r.err;
  r = run_nbody("movie " + (d / "pic").string() + " --quantity Ex");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--quantity Ex: no such images"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace nbody::render
