#include "experiments/faraj_yuan_experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "experiments/mpi_run.hpp"
#include "io/json.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::experiments {
namespace {

/// One line of the experiment: a schedule of ours with a phase separation, or one of SimGrid's
/// built-in alltoall implementations (library != "").
struct Contender {
  std::string label, algorithm, sync, library;
};

const std::vector<Contender>& contenders() {
  static const std::vector<Contender> all = {
      {"linear (LAM: post everything)", "linear", "none", ""},
      {"shift (MPICH pairwise order)", "shift", "none", ""},
      {"faraj-yuan, barrier", "faraj-yuan", "barrier", ""},
      {"faraj-yuan, pair-wise sync", "faraj-yuan", "pairwise", ""},
      {"SimGrid basic_linear", "", "", "basic_linear"},
      {"SimGrid pair", "", "", "pair"},
      {"SimGrid ring", "", "", "ring"},
      {"SimGrid bruck", "", "", "bruck"},
      {"SimGrid ompi", "", "", "ompi"},
      {"SimGrid mpich", "", "", "mpich"},
  };
  return all;
}

const std::string kBoundLabel = "bound |Mu| |Mv| m / B";

/// Writes the programs the runner executes for `c` on `model` to `plan`: the contender's own
/// schedule, or for a library run linear's (the cheapest programs of the right rank count).
void write_contender_programs(const Contender& c, const Topology& model, const Schedule& filler,
                              const std::string& plan) {
  const auto& linear = *schedules::find_algorithm("linear");
  if (!c.library.empty()) {
    write_run_programs(filler, "linear", "none", &model, linear.claims(filler.header), plan);
    return;
  }
  const auto& algorithm = *schedules::find_algorithm(c.algorithm);
  const Schedule table = schedules::generate(algorithm, model, {});
  write_run_programs(table, c.algorithm, c.sync, &model, algorithm.claims(table.header), plan);
}

}  // namespace

std::vector<ExperimentMachine> read_experiment_machines(const std::vector<std::string>& files,
                                                        std::uint64_t largest_bytes) {
  std::vector<ExperimentMachine> machines;
  for (const std::string& file : files) {
    Topology model = io::read_topology_file(file);
    const auto* tree = std::get_if<Tree>(&model);
    if (!tree) throw InputError(input_name(file) + ": the experiment needs tree topologies");
    with_source(file, [&] { check_simulated_tree(*tree, "whatif experiment"); });
    check_run_volume(tree->ranks(), largest_bytes);
    machines.push_back({file, "", std::move(model)});
  }
  // A machine is named after its file (core/files.hpp, machine_name); two machines of the same
  // name get -2, -3, ...
  const auto taken = [&](const std::string& name) {
    return std::any_of(machines.begin(), machines.end(),
                       [&](const ExperimentMachine& m) { return m.name == name; });
  };
  for (ExperimentMachine& m : machines) {
    std::string name = machine_name(m.file);
    for (int n = 2; taken(name); ++n) name = machine_name(m.file) + "-" + std::to_string(n);
    m.name = name;
  }
  return machines;
}

TableReport faraj_yuan_experiment(const FarajYuanQuestion& q, std::ostream* progress_out,
                                  const std::function<void(const FarajYuanMachine&)>& on_machine) {
  bool all_ok = true;
  ProgressMeter progress(progress_out, "whatif experiment", "simulations",
                         q.machines.size() * contenders().size() * q.sizes.size());
  Table long_table({{"machine", "machine"},
                    {"algorithm", "algorithm"},
                    {"bytes", "bytes"},
                    {"milliseconds", "ms"},
                    {"throughput_MBps", "MB/s"},
                    {"status", "status"}});
  std::vector<std::string> names;
  for (const ExperimentMachine& machine : q.machines) names.push_back(machine.name);
  for (const ExperimentMachine& machine : q.machines) {
    const std::string& name = machine.name;
    const Topology& model = machine.model;
    const Tree& tree = std::get<Tree>(model);
    const SimulatedNetwork network(tree, q.bandwidth, q.latency);
    const auto start = std::chrono::steady_clock::now();
    std::vector<Column> columns = {{"algorithm", "algorithm"}};
    for (const auto b : q.sizes) columns.push_back({size_label(b), size_label(b)});
    Table table(std::move(columns));
    std::vector<std::pair<std::string, std::vector<double>>> series;
    std::map<std::string, std::string> notes;
    const Schedule filler = schedules::generate(*schedules::find_algorithm("linear"), model, {});
    for (const Contender& c : contenders()) {
      const launch::ScratchDirectory scratch;  // the programs, for the runner
      const std::string plan = scratch.file("programs.json");
      write_contender_programs(c, model, filler, plan);
      std::vector<Cell> row = {c.label};
      std::vector<double> throughput;
      for (const auto b : q.sizes) {
        progress.note(name + ", " + c.label + ", " + size_label(b));
        progress.advance();
        const launch::Launched run = network.run(
            plan, b, 1, c.library, c.library.empty() ? "schedule" : "library", q.timeout);
        double seconds = std::nan("");
        try {
          const launch::RunnerResult r = launch::result_of(run);
          const auto& measured = c.library.empty() ? r.schedule_seconds : r.library_seconds;
          if (!measured)
            throw InputError(run.launcher + " printed a result line without " +
                             (c.library.empty() ? "schedule_seconds" : "library_seconds"));
          seconds = *measured;
          if (r.errors != 0) {
            all_ok = false;
            row.emplace_back(std::string("BYTES WRONG"));
            long_table.add({name, c.label, b, {}, {}, std::string("bytes wrong")});
            throughput.push_back(std::nan(""));
            continue;
          }
        } catch (const InputError& e) {
          // SimGrid may refuse one of its own algorithms (pair: powers of two only): a note.
          // Ours must run.
          if (c.library.empty()) all_ok = false;
          const std::string what = e.what();
          const auto why = what.find("Uncaught exception");
          const std::string reason = why == std::string::npos
                                         ? std::string("smpirun failed")
                                         : what.substr(why, what.find('\n', why) - why);
          std::string& at = notes[c.label + ": " + reason];
          at += (at.empty() ? "" : ", ") + size_label(b);
          row.emplace_back(std::string("-"));
          long_table.add({name, c.label, b, {}, {}, reason});
          throughput.push_back(std::nan(""));
          continue;
        }
        row.emplace_back(std::round(seconds * 1e4) / 10);
        throughput.push_back(double(tree.ranks()) * (tree.ranks() - 1) * double(b) / seconds / 1e6);
        long_table.add({name, c.label, b, seconds * 1e3, throughput.back(), std::string("ok")});
      }
      table.add(std::move(row));
      series.push_back({c.label, std::move(throughput)});
    }
    // The bottleneck link carries |Mu| |Mv| messages each way: no alltoall finishes sooner.
    const Tree::Cut cut = tree.bottleneck();
    const double load = double(cut.machines_a) * cut.machines_b;
    std::vector<Cell> bound = {kBoundLabel};
    for (const auto b : q.sizes) {
      bound.push_back(std::round(load * double(b) / q.bytes_per_second * 1e4) / 10);
      long_table.add({name,
                      kBoundLabel,
                      b,
                      load * double(b) / q.bytes_per_second * 1e3,
                      {},
                      std::string("bound")});
    }
    table.add(std::move(bound));
    progress.finish();
    on_machine({machine, std::move(table), std::move(series), std::move(notes),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()});
  }
  nlohmann::ordered_json facts;
  facts["paper"] = "faraj-yuan";
  facts["bandwidth"] = q.bandwidth;
  facts["latency"] = q.latency;
  facts["machines"] = names;
  return {"whatif experiment",
          all_ok ? verify::Verdict::pass : verify::Verdict::fail,
          "",
          std::move(facts),
          std::move(long_table),
          ""};
}

}  // namespace phasecheck::experiments
