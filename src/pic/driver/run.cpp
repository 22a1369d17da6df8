#include "pic/driver/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "io/atomic_file.hpp"
#include "nbody/error.hpp"
#include "comm/communicator.hpp"
#include "pic/output/checkpoint.hpp"
#include "pic/parallel/domain.hpp"
#include "pic/cuda/pic_gpu.hpp"
#include "pic/cuda/gpu_slabs.hpp"
#include "pic/output/images.hpp"
#include "pic/output/openpmd.hpp"
#include "pic/output/reduced_output.hpp"
#include "pic/physics/units.hpp"

namespace nbody::pic {

std::string diagnostics_header(const PicSimulation& sim) {
  std::string h = "step,time_periods,field_energy,e_energy,b_energy";
  for (const Species& s : sim.species()) h += ",kinetic_" + s.name;
  h += ",total_energy,poynting_left,poynting_right,energy_in_left,energy_out_right,gauss_residual";
  for (const Species& s : sim.species()) h += ",count_" + s.name;
  return h + "\n";
}

namespace {

// The largest charge density of a single species (the scale of the Gauss residual).
double species_rho_max(PicSimulation& sim) {
  double rho_s = 0;
  for (int k = 0; k < int(sim.species().size()); ++k) {
    sim.compute_rho(k);
    rho_s = std::max(rho_s, sim.rho_abs_max());
  }
  return rho_s;
}

// max|(div E - rho) - (div E - rho)_initial| / rho_scale: the initial loading is not Gauss
// consistent (species loaded at independent positions, E = 0); charge conservation keeps that
// initial residual unchanged, so the change is the measure.
double gauss_change(PicSimulation& sim, const std::vector<double>& initial, double rho_scale) {
  sim.compute_rho();
  const std::vector<double> r = sim.gauss_residual_field();
  double m = 0;
  for (std::size_t k = 0; k < r.size(); ++k) m = std::max(m, std::fabs(r[k] - initial[k]));
  return rho_scale > 0 ? m / rho_scale : m;
}

std::string units_json(const PicConfig& c, const PicSimulation& sim) {
  const SiUnits u = si_units(c.wavelength_um * 1e-6);
  std::ostringstream o;
  o.precision(17);
  o << "{\n  \"normalisation\": \"time 1/omega0, length c/omega0, density n_c, E m_e c omega0/e, B m_e omega0/e\",\n"
    << "  \"wavelength_m\": " << u.wavelength_m << ",\n  \"omega0_per_s\": " << u.omega0 << ",\n"
    << "  \"time_unit_s\": " << u.time_s << ",\n  \"length_unit_m\": " << u.length_m << ",\n"
    << "  \"critical_density_per_m3\": " << u.density_m3 << ",\n  \"efield_unit_V_per_m\": " << u.efield_V_m << ",\n"
    << "  \"bfield_unit_T\": " << u.bfield_T << ",\n  \"energy_unit_J\": " << u.energy_J << ",\n"
    << "  \"dt\": " << sim.settings().dt << ",\n  \"dx\": " << sim.settings().geom.dx << ",\n  \"dy\": " << sim.settings().geom.dy
    << ",\n  \"laser_a0\": " << sim.settings().laser.a0 << "\n}\n";
  return o.str();
}

}  // namespace

bool use_slab_decomposition(const PicConfig& c) {
  return !c.use_gpu && (comm::world().size() > 1 || c.deterministic);
}

bool use_gpu_slabs(const PicConfig& c) { return c.use_gpu && (comm::world().size() > 1 || c.deterministic); }

std::optional<CellWindow> rank_load_window(const PicConfig& c) {
  const comm::Communicator& comm = comm::world();
  if (comm.size() < 2 || comm.rank() == 0 || !(use_slab_decomposition(c) || use_gpu_slabs(c))) return std::nullopt;
  return block_load_window(c, comm.size(), comm.rank(), block_rows(c, comm.size()));
}

CellWindow block_load_window(const PicConfig& c, int ranks, int rank, int ranks_y) {
  const SlabLayout l = block_layout(c.nx, c.ny, c.field_bc.x == FieldBoundary::periodic,
                                    c.field_bc.y == FieldBoundary::periodic, ranks, ranks_y, rank);
  return CellWindow{std::max(0, l.i0 - 1), std::min(c.nx, l.i1 + 1), std::max(0, l.j0 - 1), std::min(c.ny, l.j1 + 1)};
}

PicRunResult run_pic(const PicConfig& c, PicSimulation& sim, const PicProgress& progress) {
  namespace fs = std::filesystem;
  PicRunResult r;
  const std::int64_t steps = pic_steps(c);
  // Over several processes (or with the deterministic deposition on the CPU) the grid is split
  // into slabs (pic/domain.hpp); the whole state is gathered on every rank for diagnostics and
  // outputs, which rank 0 alone writes.
  comm::Communicator& comm = comm::world();
  const bool slabs = use_slab_decomposition(c);
  const bool writer = comm.rank() == 0;
  std::ofstream csv;
  if (!c.out_dir.empty() && writer) {
    std::error_code ec;
    fs::create_directories(c.out_dir, ec);
    if (ec) throw_input_error("pic: cannot create the output directory '" + c.out_dir + "': " + ec.message());
    write_file_atomic(fs::path(c.out_dir) / "units.json", units_json(c, sim));
    // A restarted run appends to the diagnostics of the run it continues.
    const bool append = sim.step_count() > 0 && fs::exists(fs::path(c.out_dir) / "diagnostics.csv");
    csv.open(fs::path(c.out_dir) / "diagnostics.csv", append ? std::ios::app : std::ios::trunc);
    if (!csv) throw_runtime_error("pic: cannot write '" + (fs::path(c.out_dir) / "diagnostics.csv").string() + "'");
    if (!append) csv << diagnostics_header(sim);
  }
  const GridGeometry& g = sim.settings().geom;
  const int i_left = 1, i_right = g.nx - 2;
  const double dt = sim.settings().dt;
  const double rho_scale = species_rho_max(sim);
  sim.compute_rho();
  const std::vector<double> initial_residual = sim.gauss_residual_field();
  // One row of diagnostics.csv: the state's scalars, from the host state or from the device.
  auto put_row = [&](std::int64_t step, double time, const EnergyReport& e, double flux_l, double flux_r,
                     const std::vector<std::size_t>& counts) {
    if (!csv.is_open()) return;
    std::ostringstream row;
    row.precision(12);
    row << step << ',' << time / (2 * kPi) << ',' << e.field << ',' << e.e_field << ',' << e.b_field;
    for (double k : e.kinetic) row << ',' << k;
    row << ',' << e.total << ',' << flux_l << ',' << flux_r << ',' << r.laser_energy_in << ',' << r.energy_out << ','
        << r.gauss_residual;
    for (std::size_t n : counts) row << ',' << n;
    csv << row.str() << '\n';
    csv.flush();
    if (!csv) throw_runtime_error("pic: writing diagnostics.csv failed (disk full?)");
  };
  auto write_row = [&](double flux_l, double flux_r) {
    const EnergyReport e = sim.energies();
    r.gauss_residual = gauss_change(sim, initial_residual, rho_scale);
    std::vector<std::size_t> counts;
    for (const Species& s : sim.species()) counts.push_back(s.size());
    put_row(sim.step_count(), sim.time(), e, flux_l, flux_r, counts);
  };
  // A dump: the openPMD file where the build has HDF5, and always the reduced CSV outputs.
  const bool dumps = c.fields_every > 0 && !c.out_dir.empty() && writer;
  auto dump = [&] {
    sim.compute_rho();
    if (openpmd_available()) write_openpmd(c.out_dir, sim, c.wavelength_um * 1e-6);
    write_reduced_outputs(c.out_dir, sim);
  };
  // PNG images (the field maps and phase spaces) every images_every steps.
  const bool images = c.images_every > 0 && !c.out_dir.empty() && writer;
  const std::int64_t first = sim.step_count() + 1;
  r.energy_start = sim.energies().total;
  if (first == 1) {
    write_row(sim.poynting_flux_x(i_left), sim.poynting_flux_x(i_right));
    if (dumps) dump();
    if (images) write_images(c.out_dir, sim);
  }
  // On the GPU the state comes back to the host only for dumps, checkpoints and at the end. The
  // Poynting fluxes are computed and integrated on the device after every step (a fixed-order
  // reduction). With atomic deposition the other diagnostics are reduced on the device too
  // (energies, counts, the Gauss residual); the deterministic mode takes them from the host copy
  // (every output bit-identical between runs).
  std::unique_ptr<PicGpu> gpu;
  std::unique_ptr<DomainPicGpu> gdom;
  bool device_diagnostics = false;
  if (use_gpu_slabs(c)) {
    // The GPU blocks (slabs unless parallel.ranks_y > 1): one per rank, on GPU rank % devices; the state gathered on rank 0 for the
    // diagnostics (from the host copy: the same bits on any number of ranks) and the outputs.
    PicGpuOptions o;
    o.deposit = deposit_kernel(c.deposit);
    o.sort_every = c.sort_every;
    o.empty_ratio = c.empty_ratio;
    o.slab.guards = comm.size() > 1 ? c.exchange : GuardExchange::host;  // ("auto" resolved by DomainPicGpu)
    gdom = std::make_unique<DomainPicGpu>(sim, comm, o, block_rows(c, comm.size()));
    gdom->track_poynting(i_left, i_right);
    r.gpu = true;
    r.slabs_gpu = true;
    r.ranks = comm.size();
    if (!writer)
      for (Species& s : sim.species()) {
        s.resize(0);
        for (auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) v->shrink_to_fit();
      }
  } else if (c.use_gpu) {
    PicGpuOptions o;
    o.deposit = deposit_kernel(c.deposit);
    o.sort_every = c.sort_every;
    o.empty_ratio = c.empty_ratio;
    gpu = std::make_unique<PicGpu>(sim, o);
    gpu->enable_timing(true);
    r.gpu = true;
    device_diagnostics = !c.deterministic;
    gpu->track_poynting(i_left, i_right);
    if (device_diagnostics) gpu->set_gauss_reference(initial_residual);
  }
  std::unique_ptr<DomainPic> dom;
  std::int64_t gathered_at = -1;
  if (slabs) {
    dom = std::make_unique<DomainPic>(sim, comm, block_rows(c, comm.size()));
    // Each rank keeps its slab's particles only; rank 0 gathers the whole state when needed.
    if (!writer)
      for (Species& s : sim.species()) {
        s.resize(0);
        for (auto* v : {&s.x, &s.y, &s.ux, &s.uy, &s.uz, &s.w}) v->shrink_to_fit();
      }
  }
  std::int64_t last_sample = first - 1;
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t n = first; n <= steps; ++n) {
    if (dom) {
      r.particle_steps += double(dom->local_particles(true));
    } else if (gdom) {
      r.particle_steps += double(gdom->local_particles(true));
    } else {
      for (const Species& s : sim.species())
        if (!s.immobile) r.particle_steps += double(s.size());
    }
    const bool diag = n % c.diag_every == 0 || n == steps;
    // (every rank decides the same: the schedule does not depend on the rank)
    const bool dump_now = c.fields_every > 0 && !c.out_dir.empty() && (n % c.fields_every == 0 || n == steps);
    const bool ck_now = c.checkpoint_every > 0 && (n % c.checkpoint_every == 0 || n == steps);
    const bool images_now = c.images_every > 0 && !c.out_dir.empty() && (n % c.images_every == 0 || n == steps);
    // (the slabs' load balance after this step; not after the last)
    const bool balance_now = c.balance.every > 0 && n % c.balance.every == 0 && n < steps;
    if (dom) {
      dom->step();
      const double fl = dom->poynting_flux_x(i_left), fr = dom->poynting_flux_x(i_right);
      r.laser_energy_in += fl * dt;
      r.energy_out += fr * dt;
      last_sample = n;
      if (diag || dump_now || ck_now || images_now) {
        dom->gather(sim, 0);
        gathered_at = n;
      }
      if (diag && writer) write_row(fl, fr);
      if (balance_now) dom->balance(c.balance);
    } else if (gdom) {
      gdom->step();
      if (diag || dump_now || ck_now || images_now) {
        gdom->gather(sim, 0);
        gathered_at = n;
      }
      if (diag) {
        const PoyntingTrack t = gdom->poynting();  // (collective)
        r.laser_energy_in = t.energy_in_left;
        r.energy_out = t.energy_out_right;
        if (writer) write_row(t.flux_left, t.flux_right);
      }
      if (balance_now) gdom->balance(c.balance);
    } else if (gpu) {
      gpu->step();
      if (dump_now || ck_now || images_now || n == steps || (diag && !device_diagnostics)) gpu->copy_to(sim);
    } else {
      sim.step();
    }
    if (dom || gdom) {
      // (the fluxes and the diagnostics row above)
    } else if (device_diagnostics) {
      if (diag) {
        const DeviceDiagnostics d = gpu->diagnostics();
        r.laser_energy_in = d.energy_in_left;
        r.energy_out = d.energy_out_right;
        r.gauss_residual = rho_scale > 0 ? d.gauss_change_max / rho_scale : d.gauss_change_max;
        put_row(n, sim.settings().t0 + double(n) * dt, d.energies, d.flux_left, d.flux_right, d.counts);
      }
    } else if (gpu) {
      if (diag) {
        const PoyntingTrack t = gpu->poynting();
        r.laser_energy_in = t.energy_in_left;
        r.energy_out = t.energy_out_right;
        write_row(t.flux_left, t.flux_right);
      }
    } else {
      const double fl = sim.poynting_flux_x(i_left), fr = sim.poynting_flux_x(i_right);
      r.laser_energy_in += fl * dt * double(n - last_sample);
      r.energy_out += fr * dt * double(n - last_sample);
      last_sample = n;
      if (diag) write_row(fl, fr);
    }
    if (dump_now && dumps) dump();
    if (images_now && images) write_images(c.out_dir, sim);
    if (ck_now && writer) save_pic_checkpoint((fs::path(c.out_dir) / "checkpoint.bin").string(), sim);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress && writer) progress(n, steps, secs);
  }
  if (dom) {
    if (gathered_at != dom->step_count()) dom->gather(sim, 0);  // (the same decision on every rank)
    // The summary's numbers from rank 0 (the others hold only their slabs).
    r.gauss_residual = comm.broadcast_value(r.gauss_residual, 0);
    if (comm.size() > 1) r.particle_steps = comm.allreduce_sum(r.particle_steps);  // exact: integers below 2^53
    r.rebalances = dom->rebalances();
    r.slab_starts = dom->layout().starts;
  }
  if (gdom) {
    if (gathered_at != gdom->step_count()) gdom->gather(sim, 0);
    r.gauss_residual = comm.broadcast_value(r.gauss_residual, 0);
    r.rebalances = gdom->rebalances();
    r.slab_starts = gdom->layout().starts;
    const PicGpu::StepTimes t = gdom->total_times();
    r.time_particles = t.particles, r.time_fields = t.fields, r.time_comm = t.comm, r.time_sort = t.sort;
    r.particle_kernel_seconds = t.particles;
    if (comm.size() > 1) {
      r.particle_steps = comm.allreduce_sum(r.particle_steps);
      r.time_particles = comm.allreduce_max(r.time_particles);
      r.time_fields = comm.allreduce_max(r.time_fields);
      r.time_comm = comm.allreduce_max(r.time_comm);
      r.time_sort = comm.allreduce_max(r.time_sort);
      r.particle_kernel_seconds = r.time_particles;
    }
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (gpu) r.particle_kernel_seconds = gpu->particle_kernel_seconds();
  r.steps = steps - first + 1;
  r.energy_end = sim.energies().total;
  if ((dom || gdom) && comm.size() > 1) r.energy_end = comm.broadcast_value(r.energy_end, 0);
  if (gdom && writer && !c.out_dir.empty()) {
    // The time split for a scaling study (bench/): seconds summed over the steps, largest over ranks.
    std::ostringstream o;
    o.precision(9);
    o << "{\n  \"ranks\": " << r.ranks << ",\n  \"steps\": " << r.steps << ",\n  \"deposit\": \"" << c.deposit
      << "\",\n  \"wall_seconds\": " << r.wall_seconds << ",\n  \"particle_steps\": " << r.particle_steps
      << ",\n  \"particles_seconds\": " << r.time_particles << ",\n  \"fields_seconds\": " << r.time_fields
      << ",\n  \"comm_seconds\": " << r.time_comm << ",\n  \"sort_seconds\": " << r.time_sort
      << ",\n  \"rebalances\": " << r.rebalances << ",\n  \"slab_starts\": [";
    for (std::size_t k = 0; k < r.slab_starts.size(); ++k) o << (k ? ", " : "") << r.slab_starts[k];
    o << "]\n}\n";
    write_file_atomic(fs::path(c.out_dir) / "timings.json", o.str());
  }
  return r;
}

}  // namespace nbody::pic
